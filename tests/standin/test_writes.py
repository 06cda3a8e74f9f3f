"""Writes: creating and editing issues, comments, an issue's labels; and the read-only lists around them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gitea_mcp.standin import (
    ALICE_TOKEN,
    CAROL_TOKEN,
    DEMO_TOKEN,
    MANY_COMMENTS_COUNT,
    MANY_COMMENTS_ISSUE,
    PROFILES,
    StandIn,
)
from gitea_mcp.standin.store import Issue
from tests.standin.conftest import Client

ISSUES = "/repos/acme/widgets/issues"


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _labels(fresh: Client, *names: str) -> list[int]:
    repo = fresh.standin.store.find_repo("acme", "widgets")
    assert repo is not None
    by_name = {x.name: x.id for x in fresh.standin.store.usable_labels(repo)}
    return [by_name[n] for n in names]


def _create(fresh: Client, token: str = DEMO_TOKEN, **form: Any) -> Any:
    response = fresh.call("POST", ISSUES, token, json={"title": "A freshly filed issue in widgets", **form})
    assert response.status_code == 201, response.text
    return response.json()


def _issue(fresh: Client, number: int) -> Issue:
    issue = fresh.standin.store.get_issue("acme", "widgets", number)
    assert issue is not None
    return issue


# -- create ------------------------------------------------------------------------------------------------


def test_create_takes_the_next_shared_index_and_lists_first(fresh: Client) -> None:
    created = _create(fresh, body="Body text", labels=_labels(fresh, "bug", "triage"), assignees=["alice"])
    assert created["number"] == 331  # after 300 issues and 30 pull requests
    assert created["user"]["login"] == "demo" and created["state"] == "open"
    assert [x["name"] for x in created["labels"]] == ["bug", "triage"]
    assert [a["login"] for a in created["assignees"]] == ["alice"] and created["assignee"]["login"] == "alice"
    assert abs(_parse(created["created_at"]) - datetime.now(UTC)) < timedelta(seconds=5)
    assert fresh.json(ISSUES, limit=1)[0]["number"] == 331
    assert fresh.json(f"{ISSUES}/331")["title"] == "A freshly filed issue in widgets"


def test_create_with_milestone_due_date_and_closed(fresh: Client) -> None:
    v11 = next(m for m in fresh.standin.store.milestones.values() if m.title == "v1.1")
    created = _create(fresh, milestone=v11.id, due_date="2026-12-24T10:00:00+01:00", closed=True)
    assert created["milestone"]["title"] == "v1.1"
    assert created["due_date"] == "2026-12-24T09:00:00Z"
    assert created["state"] == "closed" and created["closed_at"] is not None


def test_create_drops_unknown_label_and_milestone_ids(fresh: Client) -> None:
    created = _create(fresh, labels=[9999, *_labels(fresh, "bug")], milestone=9999)
    assert [x["name"] for x in created["labels"]] == ["bug"] and created["milestone"] is None


def test_create_keeps_two_labels_of_one_exclusive_scope(fresh: Client) -> None:
    high, low = _scoped(fresh)
    created = _create(fresh, labels=[high, low])
    assert [x["name"] for x in created["labels"]] == ["priority/high", "priority/low"]


def test_a_caller_without_write_access_has_extras_dropped(fresh: Client) -> None:
    created = _create(
        fresh,
        CAROL_TOKEN,
        labels=_labels(fresh, "bug"),
        assignees=["zed"],
        milestone=1,
        due_date="2027-01-01T00:00:00Z",
    )
    assert created["user"]["login"] == "carol"
    assert (created["labels"], created["assignees"], created["milestone"], created["due_date"]) == (
        [],
        None,
        None,
        None,
    )


@pytest.mark.parametrize(
    ("form", "status", "message"),
    [
        ({}, 422, "[Title]: Required"),
        ({"title": ""}, 422, "[Title]: Required"),
        (
            {"title": "Labels by name", "labels": ["bug"]},
            422,
            "[]: json: cannot unmarshal string into Go struct field CreateIssueOption.labels of type int64",
        ),
        (
            {"title": "Milestone as text", "milestone": "v1.1"},
            422,
            "[]: json: cannot unmarshal string into Go struct field CreateIssueOption.milestone of type int64",
        ),
        (
            {"title": "Bad due date", "due_date": "tomorrow"},
            422,
            '[]: parsing time "tomorrow" as "2006-01-02T15:04:05Z07:00": cannot parse "tomorrow" as "2006"',
        ),
        (
            {"title": "Unknown assignee", "assignees": ["zed"]},
            422,
            "Assignee does not exist: [name: user does not exist [uid: 0, name: zed]]",
        ),
        (
            {"title": "Assignee without access", "assignees": ["carol"]},
            422,
            "user doesn't have access to repo [user_id: 4, repo_name: widgets]",
        ),
    ],
)
def test_create_errors_change_nothing(fresh: Client, form: dict[str, Any], status: int, message: str) -> None:
    response = fresh.call("POST", ISSUES, json=form)
    assert (response.status_code, response.json()["message"]) == (status, message)
    assert _create(fresh)["number"] == 331


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "[]: invalid character 'n' looking for beginning of value"),
        (b'{"title": "cut', "[]: unexpected end of JSON input"),
        (b"[1, 2]", "[]: json: cannot unmarshal array into Go value of type structs.CreateIssueOption"),
    ],
)
def test_create_with_a_broken_body(fresh: Client, body: bytes, message: str) -> None:
    response = fresh.session.post(
        f"{fresh.standin.url}/api/v1{ISSUES}",
        data=body,
        headers={"Authorization": f"token {DEMO_TOKEN}", "Content-Type": "application/json"},
        timeout=5,
    )
    assert (response.status_code, response.json()["message"]) == (422, message)


# -- edit ----------------------------------------------------------------------------------------------------


def _patch(fresh: Client, number: int, token: str = DEMO_TOKEN, **form: Any) -> Any:
    return fresh.call("PATCH", f"{ISSUES}/{number}", token, json=form)


def test_edit_answers_201_and_bumps_updated(fresh: Client) -> None:
    number = next(i.number for i in fresh.standin.store.issues.values() if i.state == "open" and not i.is_pull)
    before = fresh.json(f"{ISSUES}/{number}")
    response = _patch(fresh, number, title="Retitled by the test suite", state="closed")
    assert response.status_code == 201
    edited = response.json()
    assert (edited["title"], edited["state"]) == ("Retitled by the test suite", "closed")
    assert edited["closed_at"] is not None and edited["updated_at"] > before["updated_at"]
    reopened = _patch(fresh, number, state="open").json()
    assert (reopened["state"], reopened["closed_at"]) == ("open", None)


def test_edit_assignees_milestone_and_due_date(fresh: Client) -> None:
    v20 = next(m for m in fresh.standin.store.milestones.values() if m.title == "v2.0")
    edited = _patch(fresh, 1, assignees=["bob", "alice"], milestone=v20.id, due_date="2026-12-24T10:00:00Z").json()
    assert [a["login"] for a in edited["assignees"]] == ["bob", "alice"]
    assert edited["milestone"]["title"] == "v2.0"
    assert edited["due_date"] == "2026-12-24T23:59:59Z"  # only the date counts
    cleared = _patch(fresh, 1, assignees=[], milestone=0, unset_due_date=True).json()
    assert (cleared["assignees"], cleared["milestone"], cleared["due_date"]) == (None, None, None)


def test_edit_body_and_content_version(fresh: Client) -> None:
    version = fresh.json(f"{ISSUES}/1")["content_version"]
    edited = _patch(fresh, 1, body="New body", content_version=version).json()
    assert (edited["body"], edited["content_version"]) == ("New body", version + 1)
    stale = _patch(fresh, 1, body="Lost update", content_version=version)
    assert stale.status_code == 409


@pytest.mark.parametrize(
    ("number", "token", "form", "status", "message"),
    [
        (1, DEMO_TOKEN, {"state": "reopened"}, 412, "unknown state: reopened"),
        (9999, DEMO_TOKEN, {"title": "Nothing here"}, 404, "not found"),
        (1, DEMO_TOKEN, {"assignees": ["zed"]}, 500, ""),  # Gitea fails inside: a blank 500
        (1, DEMO_TOKEN, {"milestone": 9999}, 500, ""),
        (1, DEMO_TOKEN, {"unset_due_date": False}, 400, "The due_date cannot be empty"),
        (1, None, {"title": "Anonymous edit attempt"}, 401, "token is required"),
    ],
)
def test_edit_errors(
    fresh: Client, number: int, token: str | None, form: dict[str, Any], status: int, message: str
) -> None:
    response = fresh.call("PATCH", f"{ISSUES}/{number}", token, json=form)
    assert (response.status_code, response.json()["message"]) == (status, message)


def test_edit_with_an_unknown_assignee_fails_after_saving_the_title(fresh: Client) -> None:
    before = fresh.json(f"{ISSUES}/1")
    response = _patch(fresh, 1, title="Saved before the failure", assignees=["zed"])
    assert (response.status_code, response.json()["message"]) == (500, "")
    after = fresh.json(f"{ISSUES}/1")
    assert after["title"] == "Saved before the failure" and after["updated_at"] >= before["updated_at"]


def test_a_poster_without_write_access_changes_only_title_body_and_state(fresh: Client) -> None:
    number = _create(fresh, CAROL_TOKEN)["number"]
    edited = _patch(fresh, number, CAROL_TOKEN, title="Carol's own", assignees=["alice"], milestone=1, state="closed")
    body = edited.json()
    assert edited.status_code == 201 and (body["title"], body["state"]) == ("Carol's own", "closed")
    assert (body["assignees"], body["milestone"], body["due_date"]) == (None, None, None)


def test_edit_by_someone_neither_poster_nor_writer_is_a_bare_403(fresh: Client) -> None:
    number = next(i.number for i in fresh.standin.store.issues.values() if i.poster != "carol" and i.repo_id == 1)
    response = _patch(fresh, number, CAROL_TOKEN, title="Not mine to change")
    assert response.status_code == 403 and response.content == b""


def test_edit_a_merged_pull_request_state_is_412(fresh: Client) -> None:
    merged = next(i for i in fresh.standin.store.issues.values() if i.pull and i.pull.merged)
    response = _patch(fresh, merged.number, state="open")
    assert response.status_code == 412


# -- comments ------------------------------------------------------------------------------------------------


def test_comments_list_without_paging_and_with_total(reader: Client) -> None:
    response = reader.get(f"{ISSUES}/{MANY_COMMENTS_ISSUE}/comments", limit=5)
    comments = response.json()
    assert len(comments) == MANY_COMMENTS_COUNT and response.headers["X-Total-Count"] == str(MANY_COMMENTS_COUNT)
    assert max(len(c["body"]) for c in comments) > 5000
    assert "Link" not in response.headers
    middle = comments[20]["updated_at"]
    later = reader.get(f"{ISSUES}/{MANY_COMMENTS_ISSUE}/comments", since=middle)
    assert later.headers["X-Total-Count"] == str(sum(1 for c in comments if c["updated_at"] >= middle))


def test_comments_of_a_missing_issue_are_a_blank_500(reader: Client) -> None:
    response = reader.get(f"{ISSUES}/9999/comments")
    assert (response.status_code, response.json()["message"]) == (500, "")


def test_comments_of_a_pull_request_point_at_it(reader: Client) -> None:
    store = reader.standin.store
    pull = next(i for i in store.issues.values() if i.is_pull and store.comments_of(i))
    comment = reader.json(f"{ISSUES}/{pull.number}/comments")[0]
    assert comment["issue_url"] == "" and comment["pull_request_url"].endswith(f"/pulls/{pull.number}")


def test_create_comment_counts_and_bumps(fresh: Client) -> None:
    before = fresh.json(f"{ISSUES}/1")
    response = fresh.call("POST", f"{ISSUES}/1/comments", ALICE_TOKEN, json={"body": "A comment from alice"})
    assert response.status_code == 201
    comment = response.json()
    assert comment["user"]["login"] == "alice" and comment["html_url"].endswith(
        f"/issues/1#issuecomment-{comment['id']}"
    )
    after = fresh.json(f"{ISSUES}/1")
    assert after["comments"] == before["comments"] + 1 and after["updated_at"] >= before["updated_at"]
    assert fresh.json(f"{ISSUES}/1/comments")[-1]["body"] == "A comment from alice"


def test_a_locked_issue_takes_comments_only_from_writers(fresh: Client) -> None:
    _issue(fresh, 2).is_locked = True
    refused = fresh.call("POST", f"{ISSUES}/2/comments", CAROL_TOKEN, json={"body": "Let me in"})
    assert (refused.status_code, refused.json()["message"]) == (403, "You cannot comment on a locked issue.")
    assert fresh.call("POST", f"{ISSUES}/2/comments", ALICE_TOKEN, json={"body": "A writer may"}).status_code == 201


@pytest.mark.parametrize(
    ("path", "form", "status", "message"),
    [
        (f"{ISSUES}/1/comments", {}, 422, "[Body]: Required"),
        (f"{ISSUES}/1/comments", {"body": ""}, 422, "[Body]: Required"),
        (f"{ISSUES}/9999/comments", {"body": "Into the void"}, 500, ""),  # Gitea: a blank internal error
    ],
)
def test_create_comment_errors(fresh: Client, path: str, form: dict[str, Any], status: int, message: str) -> None:
    response = fresh.call("POST", path, json=form)
    assert (response.status_code, response.json()["message"]) == (status, message)


# -- an issue's labels -------------------------------------------------------------------------------------


def _names(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [x["name"] for x in response.json()]


def test_add_replace_and_delete_labels(fresh: Client) -> None:
    path = f"{ISSUES}/1/labels"
    fresh.call("PUT", path, json={"labels": []})
    ui, bug = _labels(fresh, "ui", "bug")
    assert _names(fresh.call("POST", path, json={"labels": [ui, 9999]})) == ["ui"]  # unknown ids dropped
    # By name (unknown names dropped; the organisation's too); listed by name, as Gitea sorts them.
    assert _names(fresh.call("POST", path, json={"labels": ["triage", "docs", "nosuch"]})) == ["docs", "triage", "ui"]
    assert _names(fresh.call("POST", path, json={"labels": [bug, ui]})) == ["bug", "docs", "triage", "ui"]
    replaced = fresh.call("PUT", path, json={"labels": ["security", "triage"]})
    assert _names(replaced) == ["security", "triage"]
    security = _labels(fresh, "security")[0]
    assert fresh.call("DELETE", f"{path}/{security}").status_code == 204
    assert [x["name"] for x in fresh.json(path)] == ["triage"]
    assert _issue(fresh, 1).label_ids == _labels(fresh, "triage")
    assert fresh.call("DELETE", path).status_code == 204
    assert fresh.json(path) == []


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_label_ids_and_names_do_not_mix(fresh: Client, method: str) -> None:
    response = fresh.call(method, f"{ISSUES}/1/labels", json={"labels": [_labels(fresh, "ui")[0], "docs"]})
    assert (response.status_code, response.json()["message"]) == (
        400,
        "labels should be an array of strings or integers",
    )


def _scoped(fresh: Client) -> list[int]:
    """priority/high and priority/low: one exclusive scope in acme/widgets."""
    store = fresh.standin.store
    repo = store.find_repo("acme", "widgets")
    assert repo is not None
    labels = [store.add_label(repo, name, "ee0701") for name in ("priority/high", "priority/low")]
    for label in labels:
        label.exclusive = True
    return [x.id for x in labels]


def test_replacing_keeps_one_label_per_exclusive_scope_the_last_by_name(fresh: Client) -> None:
    high, low = _scoped(fresh)
    replaced = fresh.call("PUT", f"{ISSUES}/1/labels", json={"labels": [high, low, *_labels(fresh, "bug")]})
    assert _names(replaced) == ["bug", "priority/low"]


def test_adding_a_label_replaces_the_issues_label_of_its_scope(fresh: Client) -> None:
    high, low = _scoped(fresh)
    path = f"{ISSUES}/1/labels"
    fresh.call("PUT", path, json={"labels": [low, *_labels(fresh, "bug")]})
    assert _names(fresh.call("POST", path, json={"labels": [high]})) == ["bug", "priority/high"]
    assert _names(fresh.call("POST", path, json={"labels": [high, low]})) == ["bug", "priority/low"]


def test_gitea_1_22_finds_only_the_repositorys_labels_by_name() -> None:
    with StandIn(profile=PROFILES["gitea-1.22"]) as standin:
        added = Client(standin).call("POST", f"{ISSUES}/1/labels", json={"labels": ["triage", "docs"]})
        assert "triage" not in _names(added) and "docs" in _names(added)


@pytest.mark.parametrize(
    ("method", "suffix", "token", "status"),
    [
        ("POST", "", CAROL_TOKEN, 403),
        ("PUT", "", CAROL_TOKEN, 403),
        ("DELETE", "/1", CAROL_TOKEN, 403),
        ("DELETE", "/9999", DEMO_TOKEN, 422),
        ("POST", "", None, 401),
    ],
)
def test_label_write_errors(fresh: Client, method: str, suffix: str, token: str | None, status: int) -> None:
    response = fresh.call(method, f"{ISSUES}/1/labels{suffix}", token, json={"labels": ["bug"]})
    assert response.status_code == status


# -- repository labels and milestones ---------------------------------------------------------------------


def test_repository_and_organisation_labels(reader: Client) -> None:
    response = reader.get("/repos/acme/widgets/labels", limit=3, page=2)
    # By name, as Gitea sorts them: bug docs enhancement | good first issue performance security | ui wontfix
    assert [x["name"] for x in response.json()] == ["good first issue", "performance", "security"]
    assert response.headers["X-Total-Count"] == "8"
    assert [x["name"] for x in reader.json("/orgs/acme/labels")] == ["triage"]
    assert all(x["color"] and not x["color"].startswith("#") for x in reader.json("/repos/acme/widgets/labels"))


@pytest.mark.parametrize(
    ("params", "titles"),
    [
        ({}, ["v1.0", "v1.1", "v2.0"]),  # unlike the issue list: no state is every milestone
        ({"state": "bogus"}, ["v1.0", "v1.1", "v2.0"]),
        ({"state": "open"}, ["v1.1", "v2.0"]),
        ({"state": "closed"}, ["v1.0"]),
        ({"state": "all"}, ["v1.0", "v1.1", "v2.0"]),
        ({"state": "all", "name": "V1"}, ["v1.0", "v1.1"]),
        ({"state": "all", "limit": 1, "page": 3}, ["v2.0"]),
    ],
)
def test_milestones(reader: Client, params: dict[str, Any], titles: list[str]) -> None:
    response = reader.get("/repos/acme/widgets/milestones", **params)
    assert [m["title"] for m in response.json()] == titles
    assert "X-Total-Count" in response.headers


def test_milestone_counts(reader: Client) -> None:
    store = reader.standin.store
    v10 = next(m for m in reader.json("/repos/acme/widgets/milestones", state="closed"))
    members = [i for i in store.issues.values() if i.milestone_id == v10["id"]]
    assert v10["closed_issues"] == sum(1 for i in members if i.state == "closed") and v10["open_issues"] == 0


# -- the store, for tests that arrange their own data ---------------------------------------------------


def test_store_helpers_show_through_the_api(fresh: Client) -> None:
    store = fresh.standin.store
    issue = store.add_issue(
        "acme", "gadgets", "Arranged by a test through the store", "Ping @carol", poster="alice", labels=["bug"]
    )
    store.add_comment(issue, "First!", poster="bob")
    served = fresh.json(f"/repos/acme/gadgets/issues/{issue.number}")
    assert (served["user"]["login"], served["comments"], [x["name"] for x in served["labels"]]) == ("alice", 1, ["bug"])
    assert fresh.total("/repos/acme/gadgets/issues", mentioned_by="carol") >= 1
    assert fresh.json(f"/repos/acme/gadgets/issues/{issue.number}/comments")[0]["user"]["login"] == "bob"


def test_the_keyword_index_can_lag_behind_writes(fresh: Client) -> None:
    fresh.standin.store.indexer_lag = 60.0
    created = _create(fresh, title="Zebra crossing widget is missing")
    assert fresh.total(ISSUES, q="zebra") == 0  # not indexed yet
    assert fresh.json(ISSUES, limit=1)[0]["number"] == created["number"]  # but listed without a keyword
    fresh.standin.store.indexer_lag = 0.0
    assert fresh.total(ISSUES, q="zebra") == 1


# -- dependencies: what closing a blocked issue answers ---------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "message"),
    [  # measured on Gitea 1.25.4 and Forgejo 12.0.4
        ("gitea-1.25", "cannot close this issue or pull request because it still has open dependencies"),
        ("forgejo-12", "cannot close this issue because it still has open dependencies"),
    ],
)
def test_closing_an_issue_with_an_open_blocker_is_412_after_the_other_fields_are_saved(
    profile: str, message: str
) -> None:
    with StandIn(profile=PROFILES[profile]) as standin:
        client = Client(standin)
        blocked, blocker = (_create(client, title=f"{role} issue")["number"] for role in ("blocked", "blocker"))
        link = {"owner": "acme", "repo": "widgets", "index": blocker}
        added = client.call("POST", f"{ISSUES}/{blocked}/dependencies", DEMO_TOKEN, json=link)
        assert added.status_code == 201 and added.json()["number"] == blocked
        again = client.call("POST", f"{ISSUES}/{blocked}/dependencies", DEMO_TOKEN, json=link)
        assert (again.status_code, again.json()["message"]) == (500, ""), "a duplicate: Gitea's blank 500"
        refused = client.call("PATCH", f"{ISSUES}/{blocked}", DEMO_TOKEN, json={"title": "Renamed", "state": "closed"})
        assert (refused.status_code, refused.json()["message"]) == (412, message)
        assert (_issue(client, blocked).title, _issue(client, blocked).state) == ("Renamed", "open")
        client.call("PATCH", f"{ISSUES}/{blocker}", DEMO_TOKEN, json={"state": "closed"})
        closed = client.call("PATCH", f"{ISSUES}/{blocked}", DEMO_TOKEN, json={"state": "closed"})
        assert closed.status_code == 201 and closed.json()["state"] == "closed"


def test_a_missing_blocker_is_404() -> None:
    with StandIn() as standin:
        client = Client(standin)
        link = {"owner": "acme", "repo": "widgets", "index": 99999}
        missing = client.call("POST", f"{ISSUES}/3/dependencies", DEMO_TOKEN, json=link)
        assert (missing.status_code, missing.json()["message"]) == (404, "IsErrIssueNotExist")
