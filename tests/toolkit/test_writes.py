"""A write is sent once; with no clear answer, what it may have written is looked for, and an unknown outcome is
said with how to check. Never a second send."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea.errors import GiteaError, NoAnswer
from gitea_mcp.toolkit import writes


def lost(settled: bool = True) -> Callable[[], str]:
    def write() -> str:
        raise NoAnswer("lost", cause="the connection dropped", settled=settled)

    return write


def test_an_answered_write_is_returned_as_sent() -> None:
    assert writes.send_once(lambda: "issue", lambda: None, "issue", "Look") == ("issue", False)


def test_a_lost_answer_is_looked_up_once_when_gitea_answered() -> None:
    looks: list[int] = []

    def find() -> str | None:
        looks.append(1)
        return "found"

    assert writes.send_once(lost(), find, "issue", "Look") == ("found", True)
    assert len(looks) == 1


def test_a_lost_answer_not_found_is_an_unknown_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)  # the second look comes at once here
    looks: list[int] = []

    def find() -> None:
        looks.append(1)

    with pytest.raises(ToolFailure, match=r"^The outcome of the issue is unknown: the connection dropped, .* Look "):
        writes.send_once(lost(settled=False), find, "issue", "Look")
    assert len(looks) == 2  # looked at twice: a write a proxy gave up on may still be committing


def test_a_failed_look_says_both() -> None:
    def find() -> None:
        raise GiteaError("Gitea answered 500")

    with pytest.raises(ToolFailure, match=r"sent but the connection dropped, and checking failed too"):
        writes.send_once(lost(), find, "comment", "Look")
