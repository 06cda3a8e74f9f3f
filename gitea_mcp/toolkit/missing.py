"""What a 404 means. Gitea answers 404 for a missing repository, a missing issue and an unknown user filter alike.

Telling them apart must not need more than the issue scopes (read:issue, write:issue): `GET /repos/{o}/{r}`
needs read:repository and `GET /users/{u}` read:user, so neither is used. The repository's label list is an
issue route (200 when the repository exists and is readable), and an unknown user filter names itself in the
404's `errors` array (verified on Gitea 1.22, 1.25 and Forgejo 11 by the contract suite).
"""

from __future__ import annotations

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea.errors import NO_TOKEN, GiteaError, NotFound
from gitea_mcp.toolkit.base import Deps


def repo_missing(deps: Deps, owner: str, name: str) -> ToolFailure:
    if not deps.client.has_token:  # no token is no token's fault: say what reading without one means
        return ToolFailure(
            f"repository {owner}/{name} not found, or it is private: {NO_TOKEN}; check the owner and name, or set "
            "GITEA_TOKEN."
        )
    return ToolFailure(f"repository {owner}/{name} not found, or this token cannot see it; check the owner and name.")


def repo_exists(deps: Deps, owner: str, name: str) -> bool:
    """Whether the repository exists and this token can read its issues (one cheap issue-scope request)."""
    try:
        deps.client.get(["repos", owner, name, "labels"], {"page": 1, "limit": 1})
    except GiteaError as exc:
        if isinstance(exc, NotFound):
            return False
        raise
    return True


def explain_list_404(deps: Deps, owner: str, name: str, exc: GiteaError, users: dict[str, str]) -> ToolFailure:
    """A 404 from the issue list: an unknown user filter (named in Gitea's answer) or a missing repository."""
    unknown = exc.unknown_user
    if unknown is not None:
        keys = [key for key, login in users.items() if login.lower() == unknown.lower()] or list(users)
        shown = keys[0] if keys else "a user filter"
        return ToolFailure(f"{shown}={unknown!r}: no Gitea user by that name; check the username.")
    if users and repo_exists(deps, owner, name):
        return ToolFailure(f"Gitea answered 404 for {owner}/{name} with filters {users}; check the usernames.")
    return repo_missing(deps, owner, name)


def explain_issue_404(deps: Deps, owner: str, name: str, number: int) -> ToolFailure:
    if not repo_exists(deps, owner, name):
        return repo_missing(deps, owner, name)
    return ToolFailure(f"{owner}/{name} has no issue or pull request #{number}; find numbers with issue_list.")
