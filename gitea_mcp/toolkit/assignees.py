"""An assignee Gitea refused: the nearest login it would accept, from the repository's assignee list.

The list (`GET /repos/{o}/{r}/assignees`) answers only read:repository, which the documented token lacks: without
it the refusal says where to look instead. Read only on a refusal, never before a write.
"""

from __future__ import annotations

import difflib

from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.models import Assignee
from gitea_mcp.toolkit.base import Deps

NEAR = 0.6  # difflib's ratio: `alcie` finds `alice`, `bob` does not find `rob`'s neighbour `robert`
CANNOT_LIST = "Check the usernames: assignee_list names who can be assigned (with read:repository)."


def nearest(deps: Deps, owner: str, name: str, asked: list[str]) -> str:
    """One sentence for a refusal: each asked login Gitea would not assign here with the nearest one it would."""
    try:
        users = deps.client.get(["repos", owner, name, "assignees"]).many(Assignee)
    except GiteaError:
        return CANNOT_LIST
    logins = {user.login.lower(): user.login for user in users}
    refused = [login for login in asked if login.lower() not in logins]
    if not refused:  # every one is assignable now (added since, or refused for another reason)
        return "Check the usernames with assignee_list."
    said = "; ".join(_nearest_to(login, logins) for login in refused)
    return f"Not assignable in {owner}/{name}: {said}. assignee_list names all {len(logins)}."


def _nearest_to(login: str, logins: dict[str, str]) -> str:
    found = difflib.get_close_matches(login.lower(), list(logins), n=1, cutoff=NEAR)
    return f"{login!r}, nearest @{logins[found[0]]}" if found else f"{login!r}, none near it"
