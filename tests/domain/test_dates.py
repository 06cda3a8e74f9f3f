"""domain/dates.py: one rule for a date and a time, read directly (tests/tools/test_dates.py holds the tools to
it). A day is a whole UTC day; a time is an instant; Gitea compares whole seconds inclusively, so each bound is the
first or last whole second that matches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from gitea_mcp.domain import dates
from gitea_mcp.domain.dates import Op
from gitea_mcp.domain.failures import BadArgument

SHOWN = "updated:x"  # how the refusal names the text; the cases below are about the values


@pytest.mark.parametrize(
    ("op", "text", "second"),
    [
        (">=", "2026-01-01", "2026-01-01T00:00:00Z"),
        (">", "2026-01-01", "2026-01-02T00:00:00Z"),
        ("<=", "2026-01-01", "2026-01-01T23:59:59Z"),
        ("<", "2026-01-01", "2025-12-31T23:59:59Z"),
        (">=", "2024-02-29", "2024-02-29T00:00:00Z"),  # a leap day is a day
        (">=", "2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z"),
        (">", "2026-01-31T12:00:00Z", "2026-01-31T12:00:01Z"),
        ("<", "2026-01-31T12:00:00Z", "2026-01-31T11:59:59Z"),
        ("<=", "2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z"),
        (">=", "2026-01-31T12:00:00.5Z", "2026-01-31T12:00:01Z"),  # between two seconds: the next one is first
        ("<=", "2026-01-31T12:00:00.5Z", "2026-01-31T12:00:00Z"),  # … and the one it started in is last
        (">=", "2026-01-31T12:00:00.000Z", "2026-01-31T12:00:00Z"),  # a fraction of zero is none
        (">=", "2026-01-31T13:30:00+01:30", "2026-01-31T12:00:00Z"),
        (">=", "2026-01-31t12:00:00z", "2026-01-31T12:00:00Z"),  # RFC 3339 allows the lower case
        (">=", "1970-01-01", "1970-01-01T00:00:00Z"),  # since 0: from the start, which Gitea reads as no bound
    ],
)
def test_a_bound_is_the_first_or_last_whole_second_that_matches(op: Op, text: str, second: str) -> None:
    assert dates.rfc3339(dates.bound(op, text, SHOWN)) == second


@pytest.mark.parametrize(
    "text",
    ["2026-02-30", "2026-1-31", "yesterday", "2026-01-31T12:00:00", "2026-01-31 12:00:00Z", "2026-01-31T25:00:00Z",
     "", " 2026-01-31"],
)  # fmt: skip
def test_what_is_no_date_or_time_is_refused_with_the_rule(text: str) -> None:
    with pytest.raises(BadArgument) as refused:
        dates.bound(">=", text, f"since={text!r}")
    assert str(refused.value) == f"since={text!r} is not a valid date or time: {dates.HELP}."


@pytest.mark.parametrize(
    ("op", "text", "why"),
    [
        ("<", "1970-01-01", "reaches back to 1970-01-01T00:00:00Z or earlier"),
        ("<=", "1970-01-01T00:00:00Z", "reaches back to 1970-01-01T00:00:00Z or earlier"),  # before 0: no bound
        (">=", "1969-12-31", "reaches back to 1970-01-01T00:00:00Z or earlier"),
        (">", "9999-12-31", "reaches past 9999-12-31"),
    ],
)
def test_a_bound_gitea_cannot_express_is_refused(op: Op, text: str, why: str) -> None:
    with pytest.raises(BadArgument, match=why):
        dates.bound(op, text, SHOWN)


def test_the_last_second_rfc_3339_can_write_is_a_bound() -> None:
    assert dates.bound("<=", "9999-12-31", SHOWN) == dates.LAST_SECOND


@pytest.mark.parametrize(("op", "side"), [(">=", "since"), (">", "since"), ("<=", "before"), ("<", "before")])
def test_lower_bounds_are_since_and_upper_ones_before(op: Op, side: str) -> None:
    assert dates.side(op) == side


@pytest.mark.parametrize(
    ("day", "after"), [("2026-01-31", "2026-02-01"), ("2024-02-28", "2024-02-29"), ("2025-12-31", "2026-01-01")]
)
def test_the_day_after(day: str, after: str) -> None:
    assert dates.next_day(day) == after


@pytest.mark.parametrize(
    ("text", "day"), [("2026-01-31", True), ("2026-01-31T00:00:00Z", False), ("31-01-2026", False), ("", False)]
)
def test_a_day_is_told_from_a_time(text: str, day: bool) -> None:
    assert dates.is_day(text) is day


@pytest.mark.parametrize(
    ("before", "exclusive"),
    [
        ("2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"),
        ("2026-01-31T12:00:00+00:00", "2026-01-31T12:00:01Z"),
        ("9999-12-31T23:59:59Z", None),  # nothing is updated after the end of time
    ],
)
def test_gitea_s_inclusive_before_is_the_exclusive_one_a_second_later(before: str, exclusive: str | None) -> None:
    assert dates.exclusive(before) == exclusive


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-01-31T12:00:00Z", datetime(2026, 1, 31, 12, tzinfo=UTC)),
        ("2026-01-31T12:00:00", datetime(2026, 1, 31, 12, tzinfo=UTC)),  # no zone: UTC, as Gitea's answers are
        ("2026-01-31T14:00:00+02:00", datetime(2026, 1, 31, 14, tzinfo=timezone(timedelta(hours=2)))),
        ("not a time", datetime.min.replace(tzinfo=UTC)),  # never passes for recent
        ("", datetime.min.replace(tzinfo=UTC)),
    ],
)
def test_a_time_in_gitea_s_answer_is_an_aware_instant(text: str, moment: datetime) -> None:
    read = dates.instant(text)
    assert read == moment and read.utcoffset() == moment.utcoffset()


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("2026-01-31", "2026-01-31T00:00:00Z"),  # a date: its midnight UTC
        (" 2026-01-31T12:00:00+02:00 ", "2026-01-31T12:00:00+02:00"),  # its own zone kept
        ("2026-01-31T12:00:00", "2026-01-31T12:00:00Z"),  # no zone: UTC
        ("2026-01-31T12:00:00.250Z", "2026-01-31T12:00:00.250000Z"),
    ],
)
def test_a_time_a_write_sends(value: str, sent: str) -> None:
    assert dates.written_instant(value, "deadline") == sent


@pytest.mark.parametrize("value", ["soon", "2026-13-01", "31/01/2026", ""])
def test_a_write_s_time_that_is_no_date_is_refused_naming_the_field(value: str) -> None:
    with pytest.raises(BadArgument) as refused:
        dates.written_instant(value, "deadline")
    assert str(refused.value).startswith(f"deadline={value!r} is not a date; use RFC 3339 like 2026-01-31T00:00:00Z")


@pytest.mark.parametrize(
    ("value", "offset", "sent"),
    [
        ("2026-12-31", "+00:00", "2026-12-31T12:00:00Z"),  # noon: the same day in every zone from UTC-11 to UTC+11
        ("2026-12-31", "+01:00", "2026-12-31T12:00:00+01:00"),  # noon in the server's own zone, once it is known
        ("2026-12-31T08:00:00Z", "+01:00", "2026-12-31T08:00:00Z"),  # an instant is sent as it is
    ],
)
def test_a_due_date_is_noon_of_its_day_in_the_server_s_zone(value: str, offset: str, sent: str) -> None:
    assert dates.due_instant(value, offset) == sent


def test_a_due_date_that_is_no_date_is_refused_as_due_date() -> None:
    with pytest.raises(BadArgument, match=r"^due_date='2026-02-30' is not a date"):
        dates.due_instant("2026-02-30")
