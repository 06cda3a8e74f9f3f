"""Everything the stand-in serves is held to Gitea's OpenAPI spec (strictly: no field the spec does not name)."""

from __future__ import annotations

from typing import Any

import pytest

from gitea_mcp.standin import (
    ALICE_TOKEN,
    CAROL_TOKEN,
    DEMO_READ_TOKEN,
    LONG_BODY_ISSUE,
    MANY_COMMENTS_ISSUE,
    NEWLINE_TITLE_ISSUE,
    PIPE_TITLE_ISSUE,
    PULL_EVERY,
    REVIEWED_PULL,
    UNICODE_TITLE_ISSUE,
)
from gitea_mcp.standin.endpoints import ROUTES
from gitea_mcp.standin.render import View
from tests.standin.conftest import Client
from tests.support.gitea_spec import operation, query_parameters, validate_definition, validate_list

ISSUES = "/repos/acme/widgets/issues"


@pytest.mark.parametrize(
    ("path", "params", "definition"),
    [
        ("/version", {}, "ServerVersion"),
        ("/settings/api", {}, "GeneralAPISettings"),
        ("/user", {}, "User"),
        ("/users/alice", {}, "User"),
        ("/users/acme", {}, "User"),
        ("/orgs/acme", {}, "Organization"),
        ("/repos/acme/widgets", {}, "Repository"),
        ("/repos/other/secret", {}, "Repository"),
        (f"{ISSUES}/1", {}, "Issue"),
        (f"{ISSUES}/{PULL_EVERY}", {}, "Issue"),
        (f"{ISSUES}/{NEWLINE_TITLE_ISSUE}", {}, "Issue"),
        (f"{ISSUES}/{PIPE_TITLE_ISSUE}", {}, "Issue"),
        (f"{ISSUES}/{UNICODE_TITLE_ISSUE}", {}, "Issue"),
        (f"{ISSUES}/{LONG_BODY_ISSUE}", {}, "Issue"),
    ],
)
def test_single_documents(reader: Client, path: str, params: dict[str, Any], definition: str) -> None:
    validate_definition(definition, reader.json(path, **params))


@pytest.mark.parametrize(
    ("path", "params", "definition"),
    [
        (ISSUES, {"state": "all", "limit": 50}, "Issue"),
        (ISSUES, {"state": "closed", "type": "pulls", "limit": 50}, "Issue"),
        (ISSUES, {"state": "all", "milestones": "v1.1", "limit": 50}, "Issue"),
        ("/repos/issues/search", {"state": "all", "limit": 50}, "Issue"),
        ("/repos/issues/search", {"owner": "other", "state": "all"}, "Issue"),
        (f"{ISSUES}/{MANY_COMMENTS_ISSUE}/comments", {}, "Comment"),
        (f"{ISSUES}/{PULL_EVERY}/comments", {}, "Comment"),
        (f"{ISSUES}/{MANY_COMMENTS_ISSUE}/timeline", {}, "TimelineComment"),
        (f"{ISSUES}/{REVIEWED_PULL}/timeline", {}, "TimelineComment"),
        (f"{ISSUES}/1/labels", {}, "Label"),
        ("/repos/acme/widgets/labels", {}, "Label"),
        ("/orgs/acme/labels", {}, "Label"),
        ("/repos/acme/widgets/milestones", {"state": "all"}, "Milestone"),
        (f"/repos/acme/widgets/pulls/{REVIEWED_PULL}/reviews", {}, "PullReview"),
        (f"/repos/acme/widgets/pulls/{REVIEWED_PULL}/reviews/1/comments", {}, "PullReviewComment"),
    ],
)
def test_lists(reader: Client, path: str, params: dict[str, Any], definition: str) -> None:
    documents = reader.json(path, **params)
    assert documents
    validate_list(definition, documents)


def test_every_seeded_issue_and_comment(reader: Client) -> None:
    store = reader.standin.store
    for doer in (None, store.user("demo")):
        view = View(store, reader.standin.url, doer)
        validate_list("Issue", [view.issue(i) for i in store.issues.values()])
        validate_list("Comment", [view.comment(c) for cs in store.comments.values() for c in cs])


def test_write_answers(fresh: Client) -> None:
    created = fresh.call("POST", ISSUES, json={"title": "Spec check of a created issue", "labels": [1], "closed": True})
    validate_definition("Issue", created.json())
    number = created.json()["number"]
    edited = fresh.call("PATCH", f"{ISSUES}/{number}", json={"state": "open", "due_date": "2027-01-01T00:00:00Z"})
    validate_definition("Issue", edited.json())
    comment = fresh.call("POST", f"{ISSUES}/{number}/comments", json={"body": "Spec check"})
    validate_definition("Comment", comment.json())
    labels = fresh.call("PUT", f"{ISSUES}/{number}/labels", json={"labels": ["bug", "triage"]})
    validate_list("Label", labels.json())
    label = fresh.call("POST", "/repos/acme/widgets/labels", json={"name": "spec-check", "color": "#0af"})
    assert label.status_code == 201 and label.json()["color"] == "00aaff"
    validate_definition("Label", label.json())


@pytest.mark.parametrize(
    ("method", "path", "token", "status"),
    [
        ("GET", "/version", "bad", 401),
        ("GET", "/user", None, 401),
        ("POST", ISSUES, DEMO_READ_TOKEN, 403),
        ("GET", "/repos/other/secret/issues", ALICE_TOKEN, 404),
        ("GET", f"{ISSUES}?since=never", ALICE_TOKEN, 422),
        ("GET", "/repos/issues/search?owner=nobody", ALICE_TOKEN, 400),
        ("GET", f"{ISSUES}/9999/comments", ALICE_TOKEN, 500),
        ("GET", f"{ISSUES}/9999/timeline", ALICE_TOKEN, 500),
        ("PATCH", f"{ISSUES}/1", ALICE_TOKEN, 412),
        ("POST", "/repos/acme/widgets/labels", CAROL_TOKEN, 403),  # a reader: refused before the body is read
        ("POST", "/repos/acme/widgets/labels", ALICE_TOKEN, 422),  # a writer: no name
        ("GET", f"/repos/acme/widgets/pulls/{REVIEWED_PULL}/reviews", ALICE_TOKEN, 403),  # no read:repository
    ],
)
def test_errors(fresh: Client, method: str, path: str, token: str | None, status: int) -> None:
    response = fresh.call(method, path, token, json={"state": "sideways"})
    assert response.status_code == status
    validate_definition("APIError", response.json())


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.template}")
def test_every_route_and_query_parameter_is_in_the_spec(route: Any) -> None:
    operation(route.template, route.method)  # raises KeyError if the spec has no such operation
    assert route.params <= query_parameters(route.template, route.method)
