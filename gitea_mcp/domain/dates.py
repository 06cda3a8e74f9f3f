"""Dates and times as every tool reads them: one rule, written once (pure, no I/O).

The rule (`RULE`, stated in the schema of each tool taking one): a `YYYY-MM-DD` date is that whole UTC day, and
each bound treats it as a whole — `since=D` and `updated:>=D` from its first second, `before=D` and `updated:<D`
up to the second before it starts, `updated:<=D` through its last second, `updated:>D` after it. An RFC 3339 time
is an instant: `since` is at or after it, `before` strictly before it. So issue_list's `since`/`before` are
issue_search's `updated:>=`/`updated:<`, a half-open range, and two ranges that meet never share a second.

Gitea keeps `since`/`before` as whole Unix seconds and compares them INCLUSIVELY with the issue's updated time, in
the database and in every indexer alike (docs/server-behaviour.md). `bound` therefore gives the first whole second
that matches (a lower bound) or the last (an upper one); e.g. updated:<2026-01-01 -> before=2025-12-31T23:59:59Z.
Gitea reads 0 as "not set": bounds before 1970 are refused.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from gitea_mcp.domain.failures import BadArgument
from gitea_mcp.redaction import shown as quoted_back

RULE = "DATE: YYYY-MM-DD (a UTC day) or RFC 3339; since/>= include it, before/< don't."
HELP = "write YYYY-MM-DD (a whole UTC day) or an RFC 3339 time such as 2026-01-31T12:00:00Z"
Op = Literal[">=", ">", "<=", "<"]
Side = Literal["since", "before"]

LAST_SECOND = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp())
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def span(text: str, shown: str) -> tuple[int, int]:
    """The first and last whole second (Unix) that a date or a time stands for.

    A day covers 00:00:00 to 23:59:59 UTC. A time with a fraction lies between two seconds: the first whole second
    at or after it is the next one, the last at or before it is the one it started in. `shown` names the text in
    the refusal (`updated:>=x`, `since='x'`).
    """
    try:
        if _DAY.fullmatch(text):
            start = int(datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC).timestamp())
            return start, start + 86_399
        match = _TIME.fullmatch(text)
        if match:
            floor = int(datetime.fromisoformat(f"{match[1]}{match[3]}".upper()).timestamp())
            fraction = bool(match[2] and match[2].strip(".0"))
            return floor + fraction, floor
    except (ValueError, OverflowError):
        pass
    raise BadArgument(f"{shown} is not a valid date or time: {HELP}.")


def is_day(text: str) -> bool:
    return bool(_DAY.fullmatch(text))


def next_day(day: str) -> str:
    """The day after a YYYY-MM-DD (the exclusive end that includes it)."""
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def side(op: Op) -> Side:
    return "since" if op.startswith(">") else "before"


def bound(op: Op, text: str, shown: str) -> int:
    """Gitea's inclusive whole second for `updated <op> text`: `since` for > and >=, `before` for < and <=."""
    first, last = span(text, shown)
    value = {">=": first, ">": last + 1, "<=": last, "<": first - 1}[op]
    return checked(side(op), value, shown)


def checked(name: Side, value: int, shown: str) -> int:
    """A bound Gitea can be sent: after 1970-01-01 (0 means no bound there), and within RFC 3339's years."""
    if value < (1 if name == "before" else 0):
        raise BadArgument(
            f"{shown} reaches back to 1970-01-01T00:00:00Z or earlier, which Gitea cannot express: it keeps Unix "
            "times and reads 0 as no bound. Use a later date."
        )
    if value > LAST_SECOND:
        raise BadArgument(f"{shown} reaches past 9999-12-31, which RFC 3339 cannot express. Use an earlier date.")
    return value


def rfc3339(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def exclusive(before: str) -> str | None:
    """Gitea's inclusive `before` (RFC 3339, whole seconds) as issue_list's `before=`: the second after it. None
    past 9999-12-31T23:59:59Z, where nothing can be updated anyway."""
    unix = int(datetime.fromisoformat(before.replace("Z", "+00:00")).timestamp()) + 1
    return rfc3339(unix) if unix <= LAST_SECOND else None


def instant(text: str) -> datetime:
    """A time from Gitea's answer (RFC 3339, UTC once read: gitea/models.py) as an aware datetime; an unreadable
    one is the earliest time, so it never passes for recent."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def written_instant(value: str, field_name: str) -> str:
    """A time a write sends (RFC 3339, or a plain date as its midnight UTC); Gitea answers 422 to anything else."""
    text = value.strip()
    try:
        if len(text) == 10:
            moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
    except ValueError:
        raise BadArgument(
            f"{field_name}={quoted_back(value)} is not a date; use RFC 3339 like 2026-01-31T00:00:00Z or a date "
            "like 2026-01-31."
        ) from None
    return moment.isoformat().replace("+00:00", "Z")


def due_instant(value: str, offset: str = "+00:00") -> str:
    """A due date as the instant sent to Gitea: a plain date becomes noon of that day in the server's zone.

    Gitea shows a due date in its own zone. Creating keeps the instant; editing moves it to 23:59:59 of its day in
    the zone it was sent in (Gitea 1.22 in Berlin turned 2026-12-31T12:00:00Z into 2027-01-01T00:59:59+01:00).
    Noon in the server's zone stays that day either way; `offset` is unknown before an issue was read, and noon
    UTC is the same day in every zone from UTC-11 to UTC+11.
    """
    text = value.strip()
    if len(text) == 10:
        written_instant(text, "due_date")  # refuse what is not a date
        return f"{text}T12:00:00{'Z' if offset == '+00:00' else offset}"
    return written_instant(text, "due_date")
