"""One filter value, written out in one place each: list parameters, search parameters, header, next-page hint."""

from __future__ import annotations

from gitea_mcp.domain.issue_filter import IssueFilter

FILTER = IssueFilter(
    state="closed", type="all", labels=("bug", "ui"), milestones=("v1",), since="2026-01-01T00:00:00Z",
    created_by="alice", keywords="crash", mine=("assigned",),
)  # fmt: skip


def test_list_params() -> None:
    assert FILTER.list_params() == {
        "state": "closed", "q": "crash", "labels": "bug,ui", "milestones": "v1", "since": "2026-01-01T00:00:00Z",
        "created_by": "alice",
    }  # fmt: skip


def test_search_params_add_the_flags_and_the_owner() -> None:
    assert FILTER.search_params("acme") == {**FILTER.list_params(), "assigned": "true", "owner": "acme"}
    assert "owner" not in IssueFilter().search_params(None)


def test_hint_arguments_and_header() -> None:
    assert FILTER.call_args() == {
        "state": "closed", "type": "all", "labels": "bug,ui", "milestones": "v1", "since": "2026-01-01T00:00:00Z",
        "created_by": "alice",
    }  # fmt: skip
    assert FILTER.describe() == (
        "state=closed type=all labels=bug,ui milestones=v1 since=2026-01-01T00:00:00Z created_by=alice"
    )
    assert IssueFilter().describe() == "state=open" and IssueFilter().call_args() == {}


def test_users_are_the_filters_a_404_may_be_about() -> None:
    assert FILTER.users() == {"created_by": "alice"}
