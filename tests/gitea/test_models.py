"""Gitea's JSON into the models every tool reads: times in any server zone shown in UTC, due dates as days."""

from __future__ import annotations

import pytest

from gitea_mcp.gitea.models import Comment, Issue
from tests.support.gitea_json import issue


@pytest.mark.parametrize(
    ("rendered", "shown"),
    [
        pytest.param("2026-01-31T10:00:00Z", "2026-01-31T10:00:00Z", id="utc"),
        pytest.param("2026-01-31T10:00:00+01:00", "2026-01-31T09:00:00Z", id="berlin-winter"),
        pytest.param("2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00Z", id="across-new-year"),
        pytest.param("2026-07-01T05:00:00-07:00", "2026-07-01T12:00:00Z", id="pacific"),
        pytest.param("2026-07-01T05:00:00.123+02:00", "2026-07-01T03:00:00Z", id="fraction"),
        pytest.param("not a time", "not a time", id="left-alone"),
    ],
)
def test_times_are_shown_in_utc(rendered: str, shown: str) -> None:
    parsed = Issue.model_validate(issue(1, created=rendered, updated=rendered))
    assert (parsed.created_at, parsed.updated_at) == (shown, shown)
    comment = Comment.model_validate({"id": 1, "body": "x", "created_at": rendered, "updated_at": rendered})
    assert comment.created_at == shown


@pytest.mark.parametrize(
    ("rendered", "day"),
    [
        pytest.param("2026-03-01T12:00:00Z", "2026-03-01", id="noon-utc"),
        pytest.param("2026-03-01T13:00:00+01:00", "2026-03-01", id="server-zone"),
        pytest.param("2026-03-01T23:59:59-05:00", "2026-03-01", id="web-ui-end-of-day-west"),
        pytest.param(None, None, id="none"),
    ],
)
def test_due_date_is_the_day_the_server_shows(rendered: str | None, day: str | None) -> None:
    assert Issue.model_validate({**issue(1), "due_date": rendered}).due_date == day
