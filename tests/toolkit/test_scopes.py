"""Token scopes: write implies read, what a set of tools needs, and the sentence a 403 or a narrow grant gets."""

from __future__ import annotations

import pytest

from gitea_mcp.toolkit import scopes
from gitea_mcp.toolkit.spec import ToolSpec

WRITER = ToolSpec.written_once(
    "t_write", "W.", "write:issue", "read:user", toolset="issues", order=1, budget=1, listed_budget=1
)
READER = ToolSpec.reading("t_read", "R.", "read:issue", toolset="issues", order=2, budget=1, listed_budget=1)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        (["read:issue", "write:issue"], ["write:issue"]),
        (["read:user", "read:issue"], ["read:issue", "read:user"]),
        (["read:repository", "write:issue", "read:user"], ["write:issue", "read:repository", "read:user"]),
        ([], []),
    ],
)
def test_folded_drops_what_another_implies_issue_scopes_first(given: list[str], kept: list[str]) -> None:
    assert scopes.folded(given) == kept


def test_needed_and_users_of() -> None:
    assert scopes.needed([READER, WRITER]) == ["write:issue", "read:user"]
    assert scopes.users_of("read:issue", [READER, WRITER]) == ["t_read"]


@pytest.mark.parametrize(
    ("has", "said"),
    [
        (("read:issue",), "The token lacks write:issue and read:user, which t_write needs (403; it has read:issue). "),
        (None, "The token lacks read:user (403), and t_write needs write:issue and read:user. "),
    ],
)
def test_lacking_names_the_whole_set(has: tuple[str, ...] | None, said: str) -> None:
    assert (
        scopes.lacking(WRITER, "read:user", has)
        == f"{said}Create a token with write:issue and read:user and set GITEA_TOKEN."
    )


@pytest.mark.parametrize(
    ("granted", "refused"),
    [(("write:issue", "read:user"), False), (("all",), False), (("read:issue",), True), ((), True)],
)
def test_ungranted_holds_a_client_to_what_it_asked_for(granted: tuple[str, ...], refused: bool) -> None:
    said = scopes.ungranted(WRITER, granted)
    assert (said is not None) is refused
    if said is not None:
        assert "t_write needs" in said and "sign in again" in said
