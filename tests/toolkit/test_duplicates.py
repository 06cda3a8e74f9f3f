"""The duplicate window by the deps' clock: what counts as filed "minutes ago" is decided by Deps.now, not the
machine's time, so the window's edges are tested exactly."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit import duplicates
from gitea_mcp.toolkit.base import Deps
from tests.support.gitea_json import issue

FILED = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("later", "duplicate"),
    [
        (timedelta(0), True),
        (timedelta(minutes=9, seconds=59), True),
        (timedelta(minutes=10), True),  # the window's first second is in it
        (timedelta(minutes=10, seconds=1), False),
        (timedelta(days=1), False),
    ],
)
def test_an_issue_is_a_duplicate_only_within_the_window(deps: Deps, later: timedelta, duplicate: bool) -> None:
    clocked = dataclasses.replace(deps, now=lambda: FILED + later)
    filed = Issue.model_validate(issue(7, "Crash", body="b", created="2026-11-20T09:00:00Z"))
    found = duplicates.same_issue([filed], "alice", "Crash", "b", duplicates.window_start(clocked))
    assert (found is not None) is duplicate


def test_the_window_is_sent_as_gitea_since_by_the_same_clock(deps: Deps) -> None:
    clocked = dataclasses.replace(deps, now=lambda: datetime(2026, 11, 20, 10, 0, 30, 999, tzinfo=UTC))
    assert duplicates.since_param(clocked) == "2026-11-20T09:50:30Z"
