"""issue_comment: one POST, the new count, duplicates from retries caught, lost answers resolved."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
import responses

from gitea_mcp.toolkit import writes
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_comment
from tests.support.gitea_json import API, api_error, comment, issue, user
from tests.support.mocks import sent_params
from tests.support.results import failed, ok

ISSUE = f"{API}/repos/acme/widgets/issues/7"
COMMENTS = f"{ISSUE}/comments"


@pytest.fixture
def gitea(mocked: responses.RequestsMock) -> responses.RequestsMock:
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(ISSUE, json=issue(7, comments=2))
    return mocked


def run(deps: Deps, body: str = "Looks fixed to me.", **kw: Any) -> Any:
    return issue_comment.TOOL.call(deps, {"owner": "acme", "name": "widgets", "number": 7, "body": body, **kw})


def posts(rsps: responses.RequestsMock) -> list[Any]:
    return [json.loads(c.request.body or b"{}") for c in rsps.calls if c.request.method == "POST"]


def test_adds_comment(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(COMMENTS, json=[])
    gitea.post(COMMENTS, status=201, json=comment(55, "Looks fixed to me.", "demo", 7))
    text, data = ok(run(deps))
    assert posts(gitea) == [{"body": "Looks fixed to me."}]
    assert data == {
        "id": 55,
        "issue": 7,
        "author": "demo",
        "created_at": "2026-11-21T10:00:00Z",
        "html_url": "https://gitea.test/acme/widgets/issues/7#issuecomment-55",
        "issue_comments": 3,
        "outcome": "created",
    }
    assert "the issue now has 3 comments" in text
    since = next(
        sent_params(gitea, i) for i, c in enumerate(gitea.calls) if c.request.url and "/comments" in c.request.url
    )
    assert datetime.fromisoformat(since["since"]) < datetime.now(UTC)


def test_duplicate_returns_existing(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(COMMENTS, json=[comment(54, "Looks fixed to me.\n", "demo", 7)])
    text, data = ok(run(deps))
    assert posts(gitea) == [] and data["id"] == 54 and data["outcome"] == "already_existed"
    assert "allow_duplicate=true" in text


def test_same_text_by_someone_else_is_not_a_duplicate(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(COMMENTS, json=[comment(54, "Looks fixed to me.", "bob", 7)])
    gitea.post(COMMENTS, status=201, json=comment(55, "Looks fixed to me.", "demo", 7))
    assert ok(run(deps))[1]["id"] == 55


def test_lost_answer_found(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(COMMENTS, json=[])
    gitea.post(COMMENTS, body=requests.ReadTimeout())
    gitea.get(COMMENTS, json=[comment(55, "Looks fixed to me.", "demo", 7)])
    _, data = ok(run(deps))
    assert data["outcome"] == "created_after_lost_answer" and data["id"] == 55
    assert len(posts(gitea)) == 1


def test_lost_answer_not_found_is_an_unknown_outcome(
    gitea: responses.RequestsMock, deps: Deps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)
    gitea.get(COMMENTS, json=[])
    gitea.post(COMMENTS, body=requests.ConnectionError())
    text = failed(run(deps))
    assert text.startswith("The outcome of the comment is unknown") and "Look with issue_get owner=acme" in text
    assert len(posts(gitea)) == 1


def test_an_older_identical_comment_is_never_taken_for_the_lost_write(
    gitea: responses.RequestsMock, deps: Deps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)
    gitea.get(COMMENTS, json=[comment(54, "Looks fixed to me.", "demo", 7)])
    gitea.post(COMMENTS, body=requests.ReadTimeout())
    assert failed(run(deps, allow_duplicate=True)).startswith("The outcome of the comment is unknown")


@pytest.mark.parametrize("status", [404, 500])
def test_missing_issue(mocked: responses.RequestsMock, deps: Deps, status: int) -> None:
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(ISSUE, status=404, json=api_error("not found"))
    mocked.get(COMMENTS, status=status, json=api_error(""))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[])
    assert failed(run(deps)) == "acme/widgets has no issue or pull request #7; find numbers with issue_list."


def test_missing_repository(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(ISSUE, status=404, json=api_error("not found"))
    mocked.get(COMMENTS, status=404, json=api_error("not found"))
    mocked.get(f"{API}/repos/acme/widgets/labels", status=404, json=api_error("not found"))
    want = "repository acme/widgets not found, or this token cannot see it; check the owner and name."
    assert failed(run(deps)) == want


def test_empty_body(mocked: responses.RequestsMock, deps: Deps) -> None:
    assert "body is empty" in failed(run(deps, body="  \n"))
    assert len(mocked.calls) == 0


def test_archived(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(COMMENTS, json=[])
    gitea.post(COMMENTS, status=423, json=api_error("repo is archived"))
    assert "archived" in failed(run(deps))


def test_locked_issue_says_so(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Gitea 1.24+ refuses comments on a locked issue from users who cannot write (docs/server-behaviour.md)."""
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(ISSUE, json={**issue(7, comments=2), "is_locked": True})
    mocked.get(COMMENTS, json=[])
    mocked.post(COMMENTS, status=403, json=api_error("You cannot comment on a locked issue."))
    text = failed(run(deps))
    assert text == "acme/widgets#7 is locked: only users who can write to the repository may comment."


def test_the_first_comment_is_counted_in_the_singular(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.upsert(responses.GET, ISSUE, json=issue(7, comments=0))
    gitea.get(COMMENTS, json=[])
    gitea.post(COMMENTS, status=201, json=comment(55, "Looks fixed to me.", "demo", 7))
    text, data = ok(run(deps))
    assert data["issue_comments"] == 1 and "the issue now has 1 comment" in text and "1 comments" not in text
