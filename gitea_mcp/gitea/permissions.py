"""Who may write to a repository, as far as the token can read it: lockdown's reads (toolkit/lockdown.py decides).

Write access to issues, as Gitea grants it, comes from four places: the repository's owner, a direct collaborator
with write or admin, a member of an organisation team whose issues unit is write or more, and a site admin. Two
routes tell them apart (Gitea 1.25.4 and Forgejo 12.0.4, tests/contract/test_lockdown.py):

- `GET /repos/{o}/{r}/collaborators/{user}/permission` reports the owner, org owners and site admins as `owner`,
  collaborators by their access, and everyone else as `read` on a public repository; a member of a team made with
  per-unit access (as the web UI makes them) is reported `read` too. Answered only with read:repository, and only
  to a site admin, the repository's admins (org owners among them) or the user asked about: 403 to others; a user
  that does not exist is 404.
- `GET /repos/{o}/{r}/teams` lists the teams with access, each with its `units_map` (any reader of the repository,
  read:repository; 405 for a repository owned by a user), and `GET /teams/{id}/members` their members: it needs
  read:organization and membership of the organisation (404 to others, the repository's admins among them).

Each read here answers its error rather than raising it: lockdown withholds what it cannot confirm.
"""

from __future__ import annotations

from gitea_mcp.gitea.catalog import fetch_all, rows_as
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.models import RepoPermission, Team, User

# The roles that write issues; `read` and `none` do not.
WRITE_ROLES = frozenset({"write", "admin", "owner"})
ISSUES_UNIT = "repo.issues"
# The members read of one team, at most: a larger team is read as far as this and counted not confirmed past it.
TEAM_MEMBERS = 1_000


def role(client: GiteaClient, owner: str, repo: str, login: str) -> str | GiteaError:
    """The user's role in the repository as Gitea reports it (`owner`, `admin`, `write`, `read`, `none`), or why it
    could not be read (Forbidden for a token that may not ask, NotFound for a user that does not exist)."""
    try:
        answer = client.get(["repos", owner, repo, "collaborators", login, "permission"], retry=False)
        return answer.one(RepoPermission).permission
    except GiteaError as exc:
        return exc


def writes_issues(team: Team) -> bool:
    """Whether a team's members may write issues: by its issues unit, or by its permission where it has no units."""
    unit = team.units_map.get(ISSUES_UNIT)
    return (unit if unit is not None else team.permission) in WRITE_ROLES


def writer_teams(client: GiteaClient, owner: str, repo: str) -> list[Team] | GiteaError | None:
    """The repository's teams whose members write issues; None where a user owns it (no teams: Gitea answers 405)."""
    try:
        teams = fetch_all(
            client, ["repos", owner, repo, "teams"], what=f"the teams of {owner}/{repo}", rows=TEAM_MEMBERS
        )
    except GiteaError as exc:
        return None if exc.status == 405 else exc
    return [team for team in rows_as(Team, teams) if writes_issues(team)]


def members(client: GiteaClient, team: Team) -> frozenset[str] | GiteaError:
    """The logins of a team's members, lower-case, read whole (at most TEAM_MEMBERS), or why they could not be."""
    try:
        rows = fetch_all(
            client, ["teams", team.id, "members"], what=f"the members of team {team.name}", rows=TEAM_MEMBERS
        )
    except GiteaError as exc:
        return exc
    return frozenset(user.login.lower() for user in rows_as(User, rows))
