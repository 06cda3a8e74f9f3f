"""RFC 3339 parsing with the error messages of Go's `time.Parse(time.RFC3339, value)`.

Gitea answers an unparsable `since`/`before` with 422 and Go's parse error as the message, e.g.
`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`.
A client that shows Gitea's message to its user shows exactly this, so the stand-in reproduces it.
"""

from __future__ import annotations

import calendar
import json
import re
from datetime import UTC, datetime, timedelta, timezone

LAYOUT = "2006-01-02T15:04:05Z07:00"


class GoTimeError(ValueError):
    """A parse failure worded like Go's `*time.ParseError`."""


def _quote(text: str) -> str:
    # Go's strconv.Quote and JSON agree for the printable text clients send.
    return json.dumps(text, ensure_ascii=False)


def _cannot(value: str, rest: str, element: str) -> GoTimeError:
    return GoTimeError(
        f"parsing time {_quote(value)} as {_quote(LAYOUT)}: cannot parse {_quote(rest)} as {_quote(element)}"
    )


def _message(value: str, message: str) -> GoTimeError:
    return GoTimeError(f"parsing time {_quote(value)}: {message}")


def _number(value: str, rest: str, element: str, fixed: bool) -> tuple[int, str]:
    """Go's getnum: one or two digits (exactly two when `fixed`)."""
    if not rest[:1].isdigit():
        raise _cannot(value, rest, element)
    if not rest[1:2].isdigit():
        if fixed:
            raise _cannot(value, rest, element)
        return int(rest[0]), rest[1:]
    return int(rest[:2]), rest[2:]


def _literal(value: str, rest: str, literal: str) -> str:
    if not rest.startswith(literal):
        raise _cannot(value, rest, literal)
    return rest[len(literal) :]


# (separator before the element, Go layout element, exactly two digits, name in a range error, lowest, highest)
_ELEMENTS = (
    ("-", "01", True, "month", 1, 12),
    ("-", "02", True, "", 0, 99),  # the day is checked against its month once everything is parsed
    ("T", "15", False, "hour", 0, 23),
    (":", "04", True, "minute", 0, 59),
    (":", "05", True, "second", 0, 59),
)


def _fields(value: str) -> tuple[list[int], int, str]:
    """Year, month, day, hour, minute, second; the fraction in microseconds; what follows the seconds."""
    rest = value
    if len(rest) < 4 or not rest[:4].isdigit():
        raise _cannot(value, rest, "2006")
    fields = [int(rest[:4])]
    rest = rest[4:]
    for literal, element, fixed, name, low, high in _ELEMENTS:
        rest = _literal(value, rest, literal)
        number, rest = _number(value, rest, element, fixed)
        # Go reports a value out of range as soon as it has read it, before any later format error.
        if name and not low <= number <= high:
            raise _message(value, f"{name} out of range")
        fields.append(number)
    # Go accepts a fraction after the seconds although the layout has none.
    fraction = re.match(r"[.,](\d+)", rest)
    micros = 0
    if fraction:
        micros = int((fraction.group(1) + "000000")[:6])
        rest = rest[fraction.end() :]
    return fields, micros, rest


def _zone(value: str, rest: str) -> tuple[timezone, str]:
    if rest.startswith("Z"):
        return UTC, rest[1:]
    match = re.match(r"([+-])(\d\d):(\d\d)", rest)
    if not match:
        raise _cannot(value, rest, "Z07:00")
    hours, minutes = int(match.group(2)), int(match.group(3))
    if hours > 24 or minutes > 60:
        raise _message(value, "time zone offset out of range")
    offset = timedelta(hours=hours, minutes=minutes)
    return timezone(-offset if match.group(1) == "-" else offset), rest[match.end() :]


def _check_day(value: str, fields: list[int]) -> None:
    year, month, day = fields[:3]
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        raise _message(value, "day out of range")


def parse_rfc3339(value: str) -> datetime:
    """Parse like Go's time.Parse(time.RFC3339, value); raise GoTimeError with Go's wording."""
    fields, micros, rest = _fields(value)
    zone, rest = _zone(value, rest)
    if rest:
        raise _message(value, f"extra text: {_quote(rest)}")
    _check_day(value, fields)
    year, month, day, hour, minute, second = fields
    return datetime(year, month, day, hour, minute, second, micros, tzinfo=zone)
