"""Who may write to a repository: a user's permission there, the repository's teams and a team's members, with the
real handlers' rules (Gitea 1.25.4 and Forgejo 12.0.4; tests/contract/test_lockdown.py holds them to the real ones).

- `GET /repos/{o}/{r}/collaborators/{user}/permission`: 403 unless the token's user is a site admin, the
  repository's admin or the user asked about; a user that does not exist is 404 (on Gitea only once the token
  may ask, on Forgejo first); the repository's owner and site admins are `owner`, a collaborator by their access,
  anyone else `read` on a public repository, and a member of a team with per-unit access `read` too (the stand-in
  grants teams no access).
- `GET /repos/{o}/{r}/teams`: the teams that have the repository, each with its `units_map` (and `permission` none
  on Gitea, read on Forgejo, for a team made per unit), for any reader; 405 where a user owns it.
- `GET /teams/{id}/members`: for site admins and members of the team's organisation (404 to anyone else, and for no
  such team), in pages with X-Total-Count.
"""

from __future__ import annotations

from gitea_mcp.standin.core import ApiError, Call, NotFound, Response, counted, json_response, list_options
from gitea_mcp.standin.endpoints.common import assign_repo
from gitea_mcp.standin.store import ADMIN, READ, WRITE

PERMISSION_REFUSED = (
    "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only "
    "their own"
)
_ROLES = {ADMIN: "admin", WRITE: "write", READ: "read"}


def get_permission(call: Call) -> Response:
    repo = assign_repo(call, "repository")
    asked = call.args["collaborator"]
    doer = call.require_token()
    admin = doer.login.lower() in call.store.site_admins
    user = call.store.user(asked)
    if user is None and call.profile.permission_finds_the_user_first:
        raise ApiError(404, f"user does not exist [uid: 0, name: {asked}]")
    if not admin and doer.login.lower() != asked.lower() and call.store.access_mode(repo, doer.login) < ADMIN:
        raise ApiError(403, PERMISSION_REFUSED)
    if user is None:
        raise ApiError(404, f"user does not exist [uid: 0, name: {asked}]")
    if user.login.lower() == repo.owner.lower() or user.login.lower() in call.store.site_admins:
        role = "owner"
    else:
        role = _ROLES.get(call.store.access_mode(repo, user.login), "none")
    return json_response({"permission": role, "role_name": role, "user": call.view.user(user)})


def list_repo_teams(call: Call) -> Response:
    repo = assign_repo(call, "repository")
    owner = call.store.user(repo.owner)
    if owner is None or not owner.is_org:
        raise ApiError(405, "repo is not owned by an organization")
    teams = sorted((t for t in call.store.teams.values() if repo.id in t.repo_ids), key=lambda t: t.id)
    listed = [call.view.team(team) for team in teams]
    for team in listed:
        if team["permission"] == "none" and call.profile.unit_team_keeps_permission:
            team["permission"] = "read"  # made per unit, with permission read, as lab.py and the web UI make them
    return json_response(listed)


def list_team_members(call: Call) -> Response:
    team = call.store.teams.get(int(call.args["id"])) if call.args["id"].isdigit() else None
    admin = call.login is not None and call.login.lower() in call.store.site_admins
    if team is None or not (admin or call.store.org_member(team.org, call.login)):
        raise NotFound()
    members = sorted((u for m in team.members if (u := call.store.user(m)) is not None), key=lambda u: u.login.lower())
    return counted(members, call.view.user, *list_options(call))
