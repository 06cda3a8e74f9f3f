"""issue_update: each field alone, label add/remove/replace by name, milestone set/clear, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
import responses

from gitea_mcp.tools import issue_update
from gitea_mcp.tools.base import Deps
from gitea_mcp.tools.issue_update import UpdateArgs
from tests.conftest import failed, ok
from tests.fixtures import API, LABELS, MILESTONES, api_error, issue

ISSUE = f"{API}/repos/acme/widgets/issues/7"


@pytest.fixture
def gitea(mocked: responses.RequestsMock) -> responses.RequestsMock:
    mocked.get(ISSUE, json=issue(7, labels=[LABELS[0]]))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    mocked.get(f"{API}/repos/acme/widgets/milestones", json=MILESTONES, headers={"X-Total-Count": "2"})
    return mocked


def run(deps: Deps, **kw: Any) -> Any:
    return issue_update.run(deps, UpdateArgs(owner="acme", name="widgets", number=7, **kw))


def writes_sent(rsps: responses.RequestsMock) -> list[tuple[str, str, Any]]:
    return [
        (c.request.method or "", (c.request.url or "").removeprefix(API), json.loads(c.request.body or b"null"))
        for c in rsps.calls
        if c.request.method != "GET"
    ]


@pytest.mark.parametrize(
    ("args", "payload"),
    [
        pytest.param({"title": " New title "}, {"title": "New title"}, id="title"),
        pytest.param({"body": "new body"}, {"body": "new body"}, id="body"),
        pytest.param({"state": "closed"}, {"state": "closed"}, id="close"),
        pytest.param({"state": "open"}, {"state": "open"}, id="reopen"),
        pytest.param({"assignees": ["bob", "carol"]}, {"assignees": ["bob", "carol"]}, id="assignees"),
        pytest.param({"assignees": []}, {"assignees": []}, id="clear-assignees"),
        pytest.param({"milestone": "v1.1"}, {"milestone": 6}, id="milestone-title"),
        pytest.param({"milestone": "5"}, {"milestone": 5}, id="milestone-id"),
        pytest.param({"milestone": ""}, {"milestone": 0}, id="milestone-clear"),
        pytest.param({"due_date": "2026-12-24"}, {"due_date": "2026-12-24T00:00:00Z"}, id="due"),
        pytest.param({"due_date": ""}, {"unset_due_date": True}, id="due-clear"),
    ],
)
def test_only_given_fields_are_sent(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], payload: dict[str, Any]
) -> None:
    gitea.patch(ISSUE, status=201, json=issue(7, state=args.get("state", "open")))
    text, data = ok(run(deps, **args))
    assert writes_sent(gitea) == [("PATCH", "/repos/acme/widgets/issues/7", payload)]
    assert data["outcome"] == "updated" and text.startswith("acme/widgets#7 updated (")


@pytest.mark.parametrize(
    ("args", "ids"),
    [
        pytest.param({"add_labels": ["ui"]}, [1, 2], id="add"),
        pytest.param({"remove_labels": ["bug"]}, [], id="remove"),
        pytest.param({"labels": ["ui", "good first issue"]}, [2, 3], id="replace"),
        pytest.param({"add_labels": ["ui"], "remove_labels": ["bug"]}, [2], id="add-and-remove"),
    ],
)
def test_labels(gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], ids: list[int]) -> None:
    gitea.put(f"{ISSUE}/labels", json=[lab for lab in LABELS if lab["id"] in ids])
    _, data = ok(run(deps, **args))
    assert writes_sent(gitea) == [("PUT", "/repos/acme/widgets/issues/7/labels", {"labels": ids})]
    assert data["labels"] == [lab["name"] for lab in LABELS if lab["id"] in ids]


def test_no_change_sends_nothing(gitea: responses.RequestsMock, deps: Deps) -> None:
    _, data = ok(run(deps, add_labels=["bug"]))
    assert writes_sent(gitea) == [] and data["outcome"] == "unchanged"


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ({}, "nothing to change"),
        ({"state": "done"}, "state='done' is not valid; use one of: open, closed"),
        ({"title": "  "}, "title cannot be empty"),
        ({"labels": ["bug"], "add_labels": ["ui"]}, "not both"),
        ({"add_labels": ["bugz"]}, "label 'bugz' does not exist"),
        ({"milestone": "v9"}, "milestone 'v9' does not exist"),
    ],
)
def test_bad_arguments_write_nothing(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], phrase: str
) -> None:
    assert phrase in failed(run(deps, **args))
    assert writes_sent(gitea) == []


def test_read_only_token(gitea: responses.RequestsMock, deps: Deps) -> None:
    message = "token does not have at least one of required scope(s), required=[write:issue], token scope=read:issue"
    gitea.patch(ISSUE, status=403, json=api_error(message))
    assert "lacks the write:issue scope" in failed(run(deps, state="closed"))


def test_missing_issue(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUE, status=404, json=api_error("not found"))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[])
    assert "has no issue or pull request #7" in failed(run(deps, state="closed"))


def test_missing_repository(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUE, status=404, json=api_error("not found"))
    mocked.get(f"{API}/repos/acme/widgets/labels", status=404, json=api_error("not found"))
    assert "repository acme/widgets not found" in failed(run(deps, state="closed"))


def test_partial_failure_says_what_changed(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.put(f"{ISSUE}/labels", json=LABELS[:2])
    gitea.patch(ISSUE, body=requests.ConnectionError())
    text = failed(run(deps, add_labels=["ui"], state="closed"))
    assert "The labels were changed, but the other fields were not" in text
