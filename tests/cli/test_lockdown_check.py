"""check's lockdown lines (cli/lockdown_check.py), against the stand-in: off said in one line; on, per allowed owner,
whether this token reads users' roles and the writer teams' members, or what it lacks, with the fix."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gitea_mcp.cli.lockdown_check import FIX, lockdown_checks
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.settings import Settings
from gitea_mcp.standin import StandIn


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with StandIn() as running:
        for login, scopes in {
            "demo": ("read:issue", "read:repository", "read:organization"),  # widgets' admin, in the team
            "alice": ("read:issue", "read:repository", "read:organization"),  # a writer, not an admin
            "bob": ("read:issue", "read:repository"),  # in the team, without read:organization
            "carol": ("read:issue",),
        }.items():
            running.store.add_token(f"lockdown-{login}", login, *scopes)
        yield running


def lines(standin: StandIn, login: str, **changes: object) -> list[tuple[str, str, str]]:
    settings = Settings(url=standin.url, allowed_owners=frozenset({"acme"}), lockdown=True).model_copy(update=changes)
    client = GiteaClient(standin.url, f"lockdown-{login}", timeout=5, retry=RetryPolicy(attempts=1))
    return [(line.mark, line.text, line.fix) for line in lockdown_checks(settings, client)]


def test_off_is_one_line(standin: StandIn) -> None:
    assert lines(standin, "demo", lockdown=False) == [
        ("skip", "lockdown: off (GITEA_LOCKDOWN): agents read what any author wrote", "")
    ]


def test_on_with_a_token_that_confirms_everything(standin: StandIn) -> None:
    said = lines(standin, "demo", lockdown_trusted=frozenset({"dave"}))
    assert said[0][:2] == ("ok", "lockdown: on: texts by users without write access are withheld; trusted: writers, "
                           "and the 1 login GITEA_LOCKDOWN_TRUSTED names")  # fmt: skip
    assert said[1][0] == "ok" and "reads users' roles and the members of its writer teams" in said[1][1]


@pytest.mark.parametrize(
    ("login", "lacks"),
    [
        ("alice", "users' roles (it needs the repository's admin role or a site admin's token)"),
        (
            "bob",
            "users' roles (it needs the repository's admin role or a site admin's token) or its writer teams' "
            "members (it needs read:organization)",
        ),
        ("carol", "users' roles (it needs read:repository) or the repository's teams (it needs read:repository)"),
    ],
)
def test_what_a_token_lacks_is_said_with_the_fix(standin: StandIn, login: str, lacks: str) -> None:
    mark, text, fix = lines(standin, login)[1]
    assert mark == "warn" and fix == FIX
    assert text.endswith(f"this token cannot read {lacks}: their texts are withheld"), text


def test_every_owner_is_not_checked(standin: StandIn) -> None:
    said = lines(standin, "demo", allowed_owners=frozenset({"*"}))
    assert said[1][0] == "warn" and "checked nowhere" in said[1][1]
