"""The token scopes each tool needs, declared once: `check` verifies them and the README lists them.

Gitea checks scopes per route category (verified on Gitea 1.22, 1.25 and Forgejo 11 by the contract suite):
the issue routes need read:issue or write:issue (write implies read), `GET /user` needs read:user. A token with
write:issue and read:user runs every tool but assignee_list; read:organization is needed only to list an
organisation's labels (label_list says they are missing without it), read:repository only for the state and inline
comments of a pull request's reviews (without it issue_get reads the reviews from the issue's timeline, and says what
is missing) and for assignee_list (`GET /repos/{o}/{r}/assignees` is a repository route; without it the call says
the token lacks it).
"""

from __future__ import annotations

from collections.abc import Iterable

from gitea_mcp.toolkit.spec import ToolSpec

READ_ISSUE = "read:issue"
WRITE_ISSUE = "write:issue"
READ_USER = "read:user"  # the token's own login: duplicate checks on writes, @me in searches
READ_ORGANIZATION = "read:organization"  # optional: label_list's organisation labels (said missing without it)
READ_REPOSITORY = "read:repository"  # optional: issue_get's review states and inline comments (not needed otherwise)


def needed(tools: Iterable[ToolSpec]) -> list[str]:
    """Every scope the given tools need, write implying read (`write:issue` covers `read:issue`)."""
    return folded(scope for tool in tools for scope in tool.scopes)


def folded(scopes: Iterable[str]) -> list[str]:
    """The scopes without those another implies (write:X covers read:X), issue scopes first."""
    kept = set(scopes)
    kept -= {f"read:{scope[6:]}" for scope in kept if scope.startswith("write:")}
    return sorted(kept, key=lambda s: (s.split(":")[-1], s))


def lacking(tool: ToolSpec, scope: str, has: tuple[str, ...] | None) -> str:
    """A tool's call refused for lacking `scope` (a 403): the whole set the tool needs, not Gitea's one at a time.

    Gitea names one scope per refusal, the route's (a token with read:issue only is told read:user by
    issue_comment's first request, then write:issue by its last). `has`: the token's own scopes where Gitea says them
    (1.25: `token scope=…`), so the missing set is exact; None where it does not (1.22, Forgejo).
    """
    needs = folded([*tool.scopes, scope])
    if has is not None:
        missing = [need for need in needs if not _covered(need, has)] or [scope]
        said = f"The token lacks {_and(missing)}, which {tool.name} needs (403; it has {', '.join(has) or 'none'})."
    elif needs == [scope]:
        said = f"The token lacks {scope}, which {tool.name} needs (403)."
    else:
        said = f"The token lacks {scope} (403), and {tool.name} needs {_and(needs)}."
    return f"{said} Create a token with {_and(needs)} and set GITEA_TOKEN."


def ungranted(tool: ToolSpec, granted: tuple[str, ...]) -> str | None:
    """Why a signed-in client may not call `tool`, or None. Gitea is always asked for every scope the offered tools
    need (it keeps one grant per user and application, and refuses a sign-in asking for other scopes), so what a
    client asked for at sign-in is held to here: a client that asked read:issue alone cannot write."""
    missing = [scope for scope in folded(tool.scopes) if not _covered(scope, granted)]
    if not missing:
        return None
    return (
        f"This client was granted {' '.join(granted) or 'no scope'} when it signed in, and {tool.name} needs "
        f"{_and(missing)}: sign in again from the client, asking for {_and(missing)}."
    )


def _covered(scope: str, has: tuple[str, ...]) -> bool:
    return scope in has or "all" in has or (scope.startswith("read:") and f"write:{scope[5:]}" in has)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def users_of(scope: str, tools: Iterable[ToolSpec]) -> list[str]:
    """The tools that need `scope` (write:issue also serves a tool that only reads issues)."""
    return [tool.name for tool in tools if scope in tool.scopes]
