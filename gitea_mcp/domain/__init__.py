"""The rules of the issue family, pure (no I/O, no MCP, no HTTP): the owner allowlist and Gitea's name rule
(policy), the search language (query), which issues (issue_filter), pasted links (links), dates, and the failures
a tool reports (failures)."""
