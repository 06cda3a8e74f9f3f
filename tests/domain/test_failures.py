"""domain/failures.py: the failures a tool turns into an `isError` result. Its words are the whole message, for the
model that called; a BadArgument (the call wrong in itself, whatever the server holds) is told from a failure that
depends on the server or on the operator's settings, so `call` can exit 2 on the one and 1 on the other."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gitea_mcp.domain import dates
from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.policy import Policy
from gitea_mcp.domain.query import parse_query

MESSAGE = "owner 'elsewhere' is not allowed (GITEA_ALLOWED_OWNERS=acme); use one of those owners."


@pytest.mark.parametrize("kind", [ToolFailure, BadArgument])
def test_the_message_is_the_whole_of_what_is_said(kind: type[ToolFailure]) -> None:
    failure = kind(MESSAGE)
    assert str(failure) == MESSAGE, "no class name, no quotes, no tuple of arguments"


def test_a_bad_argument_is_a_tool_failure_and_not_the_other_way_round() -> None:
    with pytest.raises(ToolFailure):
        raise BadArgument(MESSAGE)
    assert not isinstance(ToolFailure(MESSAGE), BadArgument)


def _not_allowed() -> None:
    Policy(frozenset({"acme"})).check_owner("elsewhere")


REFUSALS: list[tuple[str, Callable[[], object], bool]] = [
    ("a date that is none", lambda: dates.bound(">=", "yesterday", "since='yesterday'"), True),
    ("a write's time that is none", lambda: dates.written_instant("soon", "due_date"), True),
    ("an empty phrase in a query", lambda: parse_query('""'), True),
    ("an owner the operator did not allow", _not_allowed, False),  # the same call is right on another server
]


@pytest.mark.parametrize(("raised", "bad_argument"), [(r, b) for _, r, b in REFUSALS], ids=[n for n, _, _ in REFUSALS])
def test_the_domain_says_which_refusals_are_the_calls_own_fault(
    raised: Callable[[], object], bad_argument: bool
) -> None:
    with pytest.raises(ToolFailure) as refused:
        raised()
    assert isinstance(refused.value, BadArgument) is bad_argument
    said = str(refused.value)
    assert said and "\n" not in said and "Traceback" not in said, "one line, for the model"
