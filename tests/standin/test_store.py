"""The store's write methods: the only way the endpoints change an issue."""

from __future__ import annotations

import pytest

from gitea_mcp.standin.store import Store


def _store() -> Store:
    store = Store()
    store.add_user("demo")
    store.add_repo("demo", "widgets")
    store.add_issue("demo", "widgets", "First")
    return store


def test_edit_reports_whether_anything_changed() -> None:
    store = _store()
    issue = store.get_issue("demo", "widgets", 1)
    assert issue is not None
    assert store.edit(issue, title="First") is False
    assert store.edit(issue, title="Renamed", ref="main") is True
    assert (issue.title, issue.ref) == ("Renamed", "main")


def test_edit_refuses_a_field_an_issue_does_not_have() -> None:
    store = _store()
    issue = store.get_issue("demo", "widgets", 1)
    assert issue is not None
    with pytest.raises(AttributeError, match="no field titel"):
        store.edit(issue, titel="typo")


def test_set_state_stamps_and_clears_closed_at() -> None:
    store = _store()
    issue = store.get_issue("demo", "widgets", 1)
    assert issue is not None
    assert store.set_state(issue, "open") is False
    assert store.set_state(issue, "closed") is True
    assert issue.closed_at is not None
    assert store.set_state(issue, "open") is True
    assert issue.closed_at is None


def test_new_issue_takes_the_next_number_and_a_closed_one_closes_when_created() -> None:
    store = _store()
    repo = store.find_repo("demo", "widgets")
    assert repo is not None
    issue = store.new_issue(repo, "Second", "", poster="demo", closed=True)
    assert issue.number == 2
    assert issue.closed_at == issue.created_at == issue.updated_at
