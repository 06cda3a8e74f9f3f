"""The token scopes each tool needs, declared once: `check` verifies them and the README lists them.

Gitea checks scopes per route category (verified on Gitea 1.22, 1.25 and Forgejo 11 by the contract suite):
the issue routes need read:issue or write:issue (write implies read), `GET /user` needs read:user. The tools
use nothing else, so a token with write:issue and read:user runs every tool; read:organization is never needed,
read:repository only to show a pull request's reviews (issue_get says so when it is missing).
"""

from __future__ import annotations

from collections.abc import Iterable

from gitea_mcp.spec import ToolSpec

READ_ISSUE = "read:issue"
WRITE_ISSUE = "write:issue"
READ_USER = "read:user"  # the token's own login: duplicate checks on writes, @me in searches
READ_REPOSITORY = "read:repository"  # optional: a pull request's reviews in issue_get (not needed otherwise)


def needed(tools: Iterable[ToolSpec]) -> list[str]:
    """Every scope the given tools need, write implying read (`write:issue` covers `read:issue`)."""
    scopes = {scope for tool in tools for scope in tool.scopes}
    if WRITE_ISSUE in scopes:
        scopes.discard(READ_ISSUE)
    return sorted(scopes, key=lambda s: (s.split(":")[1], s))


def users_of(scope: str, tools: Iterable[ToolSpec]) -> list[str]:
    """The tools that need `scope` (write:issue also serves a tool that only reads issues)."""
    return [tool.name for tool in tools if scope in tool.scopes]


def readme_table(tools: Iterable[ToolSpec]) -> str:
    """The README's scope table, generated so the docs cannot drift from the declarations."""
    rows = ["| tool | scopes |", "|---|---|"]
    for tool in tools:
        listed = ", ".join(f"`{scope}`" for scope in tool.scopes)
        rows.append(f"| `{tool.name}` | {listed}{' ' + tool.scope_note if tool.scope_note else ''} |")
    return "\n".join(rows)
