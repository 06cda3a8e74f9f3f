"""The mocks are real Gitea shapes: each builder validates against the spec; the spec check can fail."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from tests.support import gitea_json as fixtures
from tests.support.gitea_spec import validate_definition


@pytest.mark.parametrize(
    ("definition", "document"),
    [
        ("User", fixtures.user("alice")),
        ("Label", fixtures.label("bug", 1)),
        ("Milestone", fixtures.milestone("v1.0", 5)),
        ("Milestone", fixtures.milestone("v0.9", 4, "closed", counts=(0, 7), due_on="2026-03-31T23:59:59+01:00")),
        ("Issue", fixtures.issue(1)),
        ("Issue", fixtures.issue(2, pull=True, labels=fixtures.LABELS, assignees=["bob"], state="closed")),
        ("Issue", fixtures.issue(3, milestone_=fixtures.MILESTONES[1], due_date="2026-12-01T00:00:00Z")),
        ("Comment", fixtures.comment(9, "hello")),
        ("PullReview", fixtures.review(1, comments_count=2)),
        ("PullReviewComment", fixtures.review_comment(31, resolver="dave", old_line=4, line=0)),
        ("TimelineComment", fixtures.timeline_entry(101, "review", "Looks good", review_id=1)),
        ("TimelineComment", fixtures.timeline_entry(9, "comment", "hello", pull=False)),
        ("APIError", fixtures.api_error("not found")),
        ("RepoCollaboratorPermission", fixtures.permission("carol", "read")),
        ("Team", fixtures.team(4, "triage")),
        ("Team", fixtures.team(1, "Owners", "owner", "owner")),
    ],
)
def test_fixture_matches_spec(definition: str, document: dict[str, Any]) -> None:
    validate_definition(definition, document)


@pytest.mark.parametrize(
    ("definition", "document"),
    [
        ("Issue", {**fixtures.issue(1), "invented_field": 1}),
        ("Issue", {**fixtures.issue(1), "number": "one"}),
        ("Label", {**fixtures.label("bug", 1), "id": "1"}),
    ],
)
def test_spec_check_rejects_drift(definition: str, document: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        validate_definition(definition, document)
