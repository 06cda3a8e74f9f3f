"""check's owner lines against the stand-in: an allowed owner that is the token's own user is never a warning (a
user may change issues in every repository it owns), whatever its case; another owner whose issues this token
cannot see still is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from gitea_mcp.cli.check import run_checks
from gitea_mcp.cli.lines import Mark
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.settings import Settings
from gitea_mcp.standin import ALICE_TOKEN, DEMO_TOKEN, StandIn


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with StandIn() as running:
        yield running


def owner_lines(standin: StandIn, token: str, owners: set[str], **changes: Any) -> list[tuple[Mark, str, str]]:
    settings = Settings(url=standin.url, token=SecretStr(token), allowed_owners=frozenset(owners), **changes)
    client = GiteaClient(standin.url, token, timeout=5, retry=RetryPolicy(attempts=1))
    lines = run_checks(settings, client)
    return [(line.mark, line.text, line.fix) for line in lines if line.text.startswith("owner ")]


ALICE = "@alice may change issues there"
OWN = "the token's own user: @alice may change issues in every repository it owns"


@pytest.mark.parametrize(
    ("token", "owner", "changes", "expected"),
    [
        # alice owns no repository with issues yet: the token sees none there, and that is no reason to warn.
        pytest.param(ALICE_TOKEN, "alice", {}, ("ok", f"owner alice: no issues yet; {OWN}"), id="own-user"),
        pytest.param(ALICE_TOKEN, "ALICE", {}, ("ok", f"owner ALICE: no issues yet; {OWN}"), id="own-user-cased"),
        pytest.param(
            ALICE_TOKEN, "alice", {"read_only": True}, ("ok", f"owner alice: no issues yet; {OWN}"), id="read-only"
        ),
        # bob is another user: that this token sees nothing of his is worth a warning, as before.
        pytest.param(
            ALICE_TOKEN,
            "bob",
            {},
            ("warn", f"owner bob: exists, but this token sees no issues there, so whether {ALICE} is not known"),
            id="another-user",
        ),
    ],
)
def test_an_owner_that_is_the_token_user_is_no_warning(
    standin: StandIn, token: str, owner: str, changes: dict[str, Any], expected: tuple[Mark, str]
) -> None:
    (mark, text, _fix), *more = owner_lines(standin, token, {owner}, **changes)
    assert (mark, text) == expected
    assert not more


def test_the_own_user_with_issues_is_probed_as_before(standin: StandIn) -> None:
    said = owner_lines(standin, DEMO_TOKEN, {"demo"})
    assert [mark for mark, _, _ in said] == ["ok", "ok"]
    assert said[1][1] == "owner demo: @demo can change issues in notes (write access; probed, nothing changed)"
