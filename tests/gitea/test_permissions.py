"""gitea/permissions.py: a user's role, a repository's writer teams and a team's members, each read or its error
answered (never raised), on spec-checked mocks."""

from __future__ import annotations

import responses

from gitea_mcp.gitea import permissions
from gitea_mcp.gitea.errors import Forbidden, NotFound
from gitea_mcp.gitea.models import Team
from gitea_mcp.toolkit.base import Deps
from tests.support.gitea_json import API, api_error, permission, team, user

REPO = f"{API}/repos/acme/widgets"


def test_a_role_or_why_not(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{REPO}/collaborators/bob/permission", json=permission("bob", "write"))
    mocked.get(f"{REPO}/collaborators/carol/permission", status=403, json=api_error("Only admins can query"))
    mocked.get(f"{REPO}/collaborators/nobody/permission", status=404, json=api_error("user does not exist"))
    assert permissions.role(deps.client, "acme", "widgets", "bob") == "write"
    assert isinstance(permissions.role(deps.client, "acme", "widgets", "carol"), Forbidden)
    assert isinstance(permissions.role(deps.client, "acme", "widgets", "nobody"), NotFound)


def test_writer_teams_by_their_issues_unit(mocked: responses.RequestsMock, deps: Deps) -> None:
    listed = [team(1, "Owners", "owner", "owner"), team(4, "triage"), team(5, "readers", "read")]
    mocked.get(f"{REPO}/teams", json=listed)
    teams = permissions.writer_teams(deps.client, "acme", "widgets")
    assert isinstance(teams, list) and [t.name for t in teams] == ["Owners", "triage"]


def test_a_users_repository_has_no_teams(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{REPO}/teams", status=405, json=api_error("repo is not owned by an organization"))
    assert permissions.writer_teams(deps.client, "acme", "widgets") is None


def test_members_lower_case_or_why_not(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/teams/4/members", json=[user("Bob", 3)])
    mocked.get(f"{API}/teams/5/members", status=404, json=api_error("not found"))
    assert permissions.members(deps.client, Team(id=4, name="triage")) == frozenset({"bob"})
    assert isinstance(permissions.members(deps.client, Team(id=5, name="x")), NotFound)


def test_a_team_without_units_is_judged_by_its_permission() -> None:
    assert permissions.writes_issues(Team(id=1, permission="write"))
    assert not permissions.writes_issues(Team(id=1, permission="read"))
    assert not permissions.writes_issues(Team(id=1, permission="admin", units_map={"repo.issues": "read"}))
