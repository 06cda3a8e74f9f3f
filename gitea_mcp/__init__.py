"""gitea_mcp: an MCP server for the issues of Gitea, Forgejo and Codeberg."""

__version__ = "0.4.0"
