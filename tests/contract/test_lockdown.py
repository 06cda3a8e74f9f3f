"""What lockdown relies on the server to do (gitea/permissions.py): a user's role in a repository, who may ask for
it, a repository's teams with their units, and who may read a team's members. One probe per behaviour, on the
stand-in in every profile and on a live Gitea or Forgejo, in an organisation of the module's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.contract.lab import LiveSeeder, Seeder, StandInSeeder, new_run
from tests.contract.target import Http, Target

SCOPE_403 = "token does not have at least one of required scope(s)"
PERMISSION_REFUSED = "Only admins can query all permissions, repo admins can query all repo permissions"
NOT_AN_ORG = "repo is not owned by an organization"


@dataclass
class Ward:
    """An organisation with a public repository and one user of each kind, and a user's public repository."""

    org: str
    repo: str
    owner: str  # a user owning `own_repo`
    admin: str  # an admin collaborator
    writer: str  # a write collaborator
    reader: str  # a read collaborator
    member: str  # a member of `team`, whose issues unit is write
    outsider: str  # none of these
    own_repo: str = "mine"
    team: int = 0
    tokens: dict[str, str] = field(default_factory=dict)

    def permission(self, login: str, repo: str | None = None) -> str:
        return f"/repos/{self.owner if repo else self.org}/{repo or self.repo}/collaborators/{login}/permission"


SCOPES = ["read:issue", "read:repository", "read:user"]


@pytest.fixture(scope="module")
def ward(target: Target, http: Http) -> Iterator[Ward]:
    run = new_run()
    seeder: Seeder
    if target.standin is not None:
        seeder, live = StandInSeeder(target.standin), None
    else:
        seeder = live = LiveSeeder(http, target.admin_token)
    names = {role: f"k{role[:2]}{run}" for role in ("owner", "admin", "writer", "reader", "member", "outsider")}
    ward = Ward(f"k{run}", "public", names["owner"], names["admin"], names["writer"], names["reader"],
                names["member"], names["outsider"])  # fmt: skip
    try:
        for login in names.values():
            seeder.user(login)
        seeder.org(ward.org)
        seeder.repo(ward.org, ward.repo)
        seeder.repo(ward.owner, ward.own_repo)
        for login, role in ((ward.admin, "admin"), (ward.writer, "write"), (ward.reader, "read")):
            seeder.collaborator(ward.org, ward.repo, login, role)
        ward.team = seeder.team(ward.org, "triage", ward.repo, [ward.member])
        for login in names.values():
            ward.tokens[login] = seeder.token(login, SCOPES)
            ward.tokens[f"{login}+org"] = seeder.token(login, [*SCOPES, "read:organization"])
        ward.tokens["issue-only"] = seeder.token(ward.admin, ["read:issue"])
        yield ward
    finally:
        if live is not None:
            live.cleanup()


@pytest.mark.parametrize(
    ("who", "role"),
    [("admin", "admin"), ("writer", "write"), ("reader", "read"), ("member", "read"), ("outsider", "read")],
)
def test_a_role_as_the_site_admin_reads_it(http: Http, target: Target, ward: Ward, who: str, role: str) -> None:
    """A member of a team made per unit (issues: write) is reported `read`: the role alone cannot decide."""
    answer = http.get(ward.permission(getattr(ward, who)), target.admin_token)
    assert answer.status == 200, answer.text
    assert answer.body["permission"] == role and answer.body["user"]["login"] == getattr(ward, who)


def test_a_user_owner_is_owner(http: Http, target: Target, ward: Ward) -> None:
    answer = http.get(ward.permission(ward.owner, ward.own_repo), target.admin_token)
    assert answer.status == 200 and answer.body["permission"] == "owner", answer.text


def test_a_user_that_does_not_exist_is_404(http: Http, target: Target, ward: Ward) -> None:
    answer = http.get(ward.permission(f"nobody{ward.org}"), target.admin_token)
    assert answer.status == 404 and answer.message.startswith("user does not exist"), answer.text


@pytest.mark.parametrize("who", ["writer", "member", "outsider"])
def test_only_admins_may_ask_about_others(http: Http, ward: Ward, who: str) -> None:
    login = getattr(ward, who)
    refused = http.get(ward.permission(ward.reader), ward.tokens[f"{login}+org"])
    assert refused.status == 403 and refused.message.startswith(PERMISSION_REFUSED), refused.text
    own = http.get(ward.permission(login), ward.tokens[login])
    assert own.status == 200, own.text


def test_a_user_that_does_not_exist_asked_by_a_token_that_may_not_ask(http: Http, target: Target, ward: Ward) -> None:
    """Gitea refuses the token first (403); Forgejo looks the user up first (404): `check` probes with a login
    that exists (the repository's owner), so either answer tells whether the token may ask."""
    refused = http.get(ward.permission(f"nobody{ward.org}"), ward.tokens[ward.writer])
    if target.version.forgejo():
        assert refused.status == 404 and refused.message.startswith("user does not exist"), refused.text
    else:
        assert refused.status == 403 and refused.message.startswith(PERMISSION_REFUSED), refused.text


def test_the_organisation_itself_as_the_user_asked_about(http: Http, target: Target, ward: Ward) -> None:
    """What `check` asks: the owner's login exists, so a token that may not ask is refused, one that may is told."""
    refused = http.get(ward.permission(ward.org), ward.tokens[ward.writer])
    assert refused.status == 403 and refused.message.startswith(PERMISSION_REFUSED), refused.text
    told = http.get(ward.permission(ward.org), ward.tokens[ward.admin])
    assert told.status == 200, told.text


def test_the_repositorys_admin_may_ask(http: Http, ward: Ward) -> None:
    answer = http.get(ward.permission(ward.member), ward.tokens[ward.admin])
    assert answer.status == 200 and answer.body["permission"] == "read", answer.text


def test_the_permission_needs_read_repository(http: Http, ward: Ward) -> None:
    refused = http.get(ward.permission(ward.writer), ward.tokens["issue-only"])
    assert refused.status == 403 and SCOPE_403 in refused.message and "read:repository" in refused.message


def test_any_reader_lists_the_teams_with_their_units(http: Http, target: Target, ward: Ward) -> None:
    """A team made per unit with permission read: Gitea reports its permission `none`, Forgejo `read`; lockdown
    reads the issues unit."""
    answer = http.get(f"/repos/{ward.org}/{ward.repo}/teams", ward.tokens[ward.outsider])
    assert answer.status == 200, answer.text
    team = next(t for t in answer.body if t["id"] == ward.team)
    assert team["units_map"]["repo.issues"] == "write"
    assert team["permission"] == ("read" if target.version.forgejo() else "none")


def test_a_users_repository_has_no_teams(http: Http, ward: Ward) -> None:
    answer = http.get(f"/repos/{ward.owner}/{ward.own_repo}/teams", ward.tokens[ward.outsider])
    assert answer.status == 405 and answer.message == NOT_AN_ORG, answer.text


@pytest.mark.parametrize(
    ("token", "status"),
    [("member+org", 200), ("admin+org", 404), ("outsider+org", 404), ("member", 403)],
)
def test_a_teams_members_are_for_the_organisations_members(http: Http, ward: Ward, token: str, status: int) -> None:
    """The repository's admin, not a member of the organisation, may not read them: lockdown needs an organisation
    member's token (an owner's), or a site admin's."""
    login, _, org = token.partition("+")
    answer = http.get(f"/teams/{ward.team}/members", ward.tokens[getattr(ward, login) + ("+org" if org else "")])
    assert answer.status == status, answer.text
    if status == 200:
        assert [user["login"] for user in answer.body] == [ward.member]
    if status == 403:
        assert SCOPE_403 in answer.message and "read:organization" in answer.message


def test_the_site_admin_reads_a_teams_members(http: Http, target: Target, ward: Ward) -> None:
    answer = http.get(f"/teams/{ward.team}/members", target.admin_token)
    assert answer.status == 200 and [user["login"] for user in answer.body] == [ward.member], answer.text
