"""issue_update: each field alone, label add/remove/replace by name, milestone set/clear, errors."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import pytest
import requests
import responses

from gitea_mcp.toolkit import dependencies, in_flight, shared_flight, writes
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.lockdown import TITLE_MARK
from gitea_mcp.toolkit.shared_flight import SharedFlights
from gitea_mcp.tools import issue_update
from tests.support.fake_redis import FakeRedis
from tests.support.gitea_json import (
    API,
    HIGH,
    LABELS,
    LOW,
    MILESTONES,
    ROOT,
    api_error,
    comment,
    issue,
    label,
    milestone,
    org_label,
    user,
)
from tests.support.mocks import optional
from tests.support.results import failed, ok
from tests.support.waiting import wait_until
from tests.toolkit.test_shared_flight import WHERE, fake, replicas

__all__ = ["fake", "replicas"]  # the fixtures, imported to be used here

ISSUE = f"{API}/repos/acme/widgets/issues/7"


@pytest.fixture
def gitea(mocked: responses.RequestsMock) -> responses.RequestsMock:
    optional(mocked).get(ISSUE, json=issue(7, labels=[LABELS[0]]))
    optional(mocked).get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    optional(mocked).get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    optional(mocked).get(f"{API}/repos/acme/widgets/milestones", json=MILESTONES, headers={"X-Total-Count": "2"})
    return mocked


def run(deps: Deps, **kw: Any) -> Any:
    return issue_update.TOOL.call(deps, {"owner": "acme", "name": "widgets", "number": 7, **kw})


def writes_sent(rsps: responses.RequestsMock) -> list[tuple[str, str, Any]]:
    return [
        (c.request.method or "", (c.request.url or "").removeprefix(API), json.loads(c.request.body or b"null"))
        for c in rsps.calls
        if c.request.method != "GET"
    ]


@pytest.mark.parametrize(
    ("args", "payload", "before"),
    [
        pytest.param({"title": " New title "}, {"title": "New title"}, {}, id="title"),
        pytest.param({"body": "new body"}, {"body": "new body"}, {}, id="body"),
        pytest.param({"state": "closed"}, {"state": "closed"}, {}, id="close"),
        pytest.param({"state": "open"}, {"state": "open"}, {"state": "closed"}, id="reopen"),
        pytest.param({"assignees": ["bob", "carol"]}, {"assignees": ["bob", "carol"]}, {}, id="assignees"),
        pytest.param({"assignees": []}, {"assignees": []}, {"assignees": ["bob"]}, id="clear-assignees"),
        pytest.param({"milestone": "v1.1"}, {"milestone": 6}, {}, id="milestone-title"),
        pytest.param({"milestone": "5"}, {"milestone": 5}, {}, id="milestone-id"),
        pytest.param({"milestone": ""}, {"milestone": 0}, {"milestone_": MILESTONES[0]}, id="milestone-clear"),
        pytest.param({"due_date": "2026-12-24"}, {"due_date": "2026-12-24T12:00:00Z"}, {}, id="due"),
        pytest.param(
            {"due_date": "2026-12-24T18:00:00+01:00"}, {"due_date": "2026-12-24T18:00:00+01:00"}, {}, id="due-time"
        ),
        pytest.param({"due_date": ""}, {"unset_due_date": True}, {"due_date": "2026-12-24T23:59:59Z"}, id="due-clear"),
    ],
)
def test_only_given_fields_are_sent(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], payload: dict[str, Any], before: dict[str, Any]
) -> None:
    gitea.upsert(responses.GET, ISSUE, json=issue(7, labels=[LABELS[0]], **before))
    gitea.add_callback(responses.PATCH, ISSUE, callback=partial(edited, {"labels": [LABELS[0]], **before}))
    text, data = ok(run(deps, **args))
    assert writes_sent(gitea) == [("PATCH", "/repos/acme/widgets/issues/7", payload)]
    assert data["outcome"] == "updated" and text.startswith("acme/widgets#7 updated (")


def edited(before: dict[str, Any], request: Any) -> tuple[int, dict[str, str], str]:
    """Gitea's answer to a PATCH: the issue with the fields sent applied, as a writer's edit is."""
    sent = json.loads(request.body)
    after = {**before, **{key: sent[key] for key in ("title", "body", "state", "assignees") if key in sent}}
    if "milestone" in sent:
        after["milestone_"] = next((m for m in MILESTONES if m["id"] == sent["milestone"]), None)
    if "due_date" in sent:
        after["due_date"] = sent["due_date"][:10] + "T23:59:59Z"
    if sent.get("unset_due_date"):
        after["due_date"] = None
    return 201, {}, json.dumps(issue(7, **after))


@pytest.mark.parametrize(
    ("args", "before"),
    [
        pytest.param({"milestone": ""}, {}, id="clear-a-milestone-there-is-none-of"),
        pytest.param({"due_date": ""}, {}, id="clear-a-due-date-there-is-none-of"),
        pytest.param({"state": "open"}, {}, id="open-an-open-issue"),
        pytest.param({"title": "Crash on login "}, {}, id="same-title"),
        # Gitea keeps what an edit sends, spaces at either end included: the exact title copied back is no change.
        pytest.param({"title": " Double  spaced "}, {"title": " Double  spaced "}, id="same-title-with-spaces"),
        pytest.param({"due_date": "2026-12-24"}, {"due_date": "2026-12-24T23:59:59Z"}, id="same-due-day"),
        pytest.param(
            {"milestone": "5", "state": "closed"}, {"milestone_": MILESTONES[0], "state": "closed"}, id="both"
        ),
        pytest.param({"assignees": ["bob"]}, {"assignees": ["bob"]}, id="same-assignee"),
        pytest.param({"assignees": ["Bob"], "state": "open"}, {"assignees": ["bob"]}, id="same-assignee-open"),
        pytest.param({"assignees": ["carol", "bob"]}, {"assignees": ["bob", "carol"]}, id="same-assignees"),
        pytest.param({"assignees": []}, {}, id="clear-assignees-there-are-none-of"),
    ],
)
def test_what_is_already_as_asked_is_reported_unchanged_and_not_sent(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], before: dict[str, Any]
) -> None:
    gitea.upsert(responses.GET, ISSUE, json=issue(7, **before))
    text, data = ok(run(deps, **args))
    assert writes_sent(gitea) == []
    assert data["outcome"] == "unchanged" and text.startswith("acme/widgets#7 unchanged (it already was as asked)")


@pytest.mark.parametrize(
    ("args", "before", "payload", "changed"),
    [
        pytest.param(
            {"assignees": ["bob"], "title": "New title"},
            {"assignees": ["bob"]},
            {"title": "New title"},
            "title",
            id="assignee-as-is",
        ),
        pytest.param(
            {"assignees": ["carol"], "state": "open"},
            {"assignees": ["bob"]},
            {"assignees": ["carol"]},
            "assignees",
            id="state-as-is",
        ),
    ],
)
def test_a_partly_unchanged_call_sends_and_reports_only_what_changes(
    gitea: responses.RequestsMock,
    deps: Deps,
    args: dict[str, Any],
    before: dict[str, Any],
    payload: dict[str, Any],
    changed: str,
) -> None:
    gitea.upsert(responses.GET, ISSUE, json=issue(7, **before))
    after = {**before, **{k: v for k, v in args.items() if k in ("title", "assignees")}}
    gitea.patch(ISSUE, status=201, json=issue(7, **after))
    text, data = ok(run(deps, **args))
    assert writes_sent(gitea) == [("PATCH", "/repos/acme/widgets/issues/7", payload)]
    assert data["outcome"] == "updated" and text.startswith(f"acme/widgets#7 updated ({changed}): ")


def label_calls(rsps: responses.RequestsMock) -> list[tuple[str, str, Any]]:
    return [
        (method, path.removeprefix("/repos/acme/widgets/issues/7"), body) for method, path, body in writes_sent(rsps)
    ]


@pytest.mark.parametrize(
    ("args", "calls", "after"),
    [
        pytest.param({"add_labels": ["ui"]}, [("POST", "/labels", {"labels": [2]})], [1, 2], id="add"),
        pytest.param({"remove_labels": ["bug"]}, [("DELETE", "/labels/1", None)], [], id="remove"),
        pytest.param(
            {"labels": ["ui", "good first issue"]}, [("PUT", "/labels", {"labels": [2, 3]})], [2, 3], id="replace"
        ),
        pytest.param(
            {"add_labels": ["ui"], "remove_labels": ["bug"]},
            [("DELETE", "/labels/1", None), ("POST", "/labels", {"labels": [2]})],
            [2],
            id="add-and-remove",
        ),
        pytest.param({"remove_labels": ["ui"]}, [], [1], id="remove-absent"),
    ],
)
def test_labels(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], calls: list[Any], after: list[int]
) -> None:
    """Adding through POST and removing through DELETE: the endpoints whose semantics hold for exclusive scopes."""
    now = [lab for lab in LABELS if lab["id"] in after]
    for method, path, _ in calls:  # exactly the endpoints this case must use: an unused mock fails the test
        if method == "DELETE":
            gitea.delete(f"{ISSUE}{path}", status=204)  # Gitea's 204 has no body
        else:
            gitea.add(method, f"{ISSUE}{path}", json=now)
    _, data = ok(run(deps, **args))
    assert label_calls(gitea) == calls
    assert data["labels"] == [lab["name"] for lab in now]


@pytest.fixture
def scoped(mocked: responses.RequestsMock) -> responses.RequestsMock:
    mocked.get(ISSUE, json=issue(7, labels=[LABELS[0], LOW]))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[*LABELS, HIGH, LOW], headers={"X-Total-Count": "5"})
    mocked.get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    return mocked


def test_adding_an_exclusive_label_reports_the_one_it_replaced(scoped: responses.RequestsMock, deps: Deps) -> None:
    scoped.post(f"{ISSUE}/labels", json=[LABELS[0], HIGH])  # Gitea drops priority/low itself
    text, data = ok(run(deps, add_labels=["priority/high"]))
    assert label_calls(scoped) == [("POST", "/labels", {"labels": [8]})]
    assert data["labels"] == ["bug", "priority/high"]
    assert data["warnings"] == ["Gitea removed priority/low: an added label of the same exclusive scope replaces it."]
    assert "acme/widgets#7 updated (labels)" in text


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"labels": ["priority/high", "priority/low"]}, id="replace"),
        pytest.param({"add_labels": ["priority/high", "priority/low"]}, id="add"),
    ],
)
def test_two_labels_of_one_exclusive_scope_are_refused(
    scoped: responses.RequestsMock, deps: Deps, args: dict[str, Any]
) -> None:
    text = failed(run(deps, **args))
    assert text == (
        "labels 'priority/high' and 'priority/low' are exclusive (scope 'priority'): an issue carries at most one of "
        "them. Choose one."
    )
    assert writes_sent(scoped) == []


SCOPE_403 = (
    "token does not have at least one of required scope(s), required=[read:organization], token scope=write:issue"
)


@pytest.fixture
def documented(mocked: responses.RequestsMock) -> responses.RequestsMock:
    """A token of the documented scopes: the organisation's labels cannot be listed (no read:organization)."""
    mocked.get(ISSUE, json=issue(7, labels=[LABELS[0]]))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(f"{API}/orgs/acme/labels", status=403, json=api_error(SCOPE_403))
    return mocked


TRIAGE = org_label("triage", 40)


@pytest.mark.parametrize(
    ("version", "add", "sent", "outcome"),
    [
        pytest.param("1.25.4", ["ui", "triage"], {"labels": ["ui", "triage"]}, None, id="names-resolved-by-gitea"),
        pytest.param("1.25.4", ["triage"], {"labels": ["triage"]}, None, id="an-organisation-label-alone"),
        pytest.param("11.0.3+gitea-1.22.0", ["ui", "triage"], {"labels": ["ui", "triage"]}, None, id="forgejo"),
        pytest.param("1.22.6", ["ui", "triage"], None, "finds them by name only from 1.23", id="gitea-1.22-refuses"),
    ],
)
def test_organisation_labels_no_issue_shows(
    documented: responses.RequestsMock, deps: Deps, version: str, add: list[str], sent: Any, outcome: str | None
) -> None:
    documented.get(f"{API}/version", json={"version": version})
    documented.get(f"{API}/repos/issues/search", json=[])
    if sent:
        documented.post(f"{ISSUE}/labels", json=[LABELS[0], *([LABELS[1]] if "ui" in add else []), TRIAGE])
    result = run(deps, add_labels=add)
    if outcome is None:
        _, data = ok(result)
        assert data["labels"] == ["bug", *add] and data["warnings"] == []
    else:
        assert outcome in failed(result)
    assert label_calls(documented) == ([("POST", "/labels", sent)] if sent else [])


@pytest.mark.parametrize("version", ["1.25.4", "1.22.6"])
def test_an_organisation_label_an_issue_shows_is_added_by_id(
    documented: responses.RequestsMock, deps: Deps, version: str
) -> None:
    optional(documented).get(f"{API}/version", json={"version": version})
    documented.get(f"{API}/repos/issues/search", json=[issue(9, repo="gadgets", labels=[TRIAGE])])
    documented.post(f"{ISSUE}/labels", json=[LABELS[0], TRIAGE])
    _, data = ok(run(deps, add_labels="triage"))
    assert label_calls(documented) == [("POST", "/labels", {"labels": [40]})]
    assert data["labels"] == ["bug", "triage"] and data["outcome"] == "updated"


def test_a_milestone_made_within_the_caches_life_is_found(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.patch(ISSUE, json=issue(7, labels=[LABELS[0]], milestone_=MILESTONES[1]))
    ok(run(deps, milestone="v1.1"))  # the milestones are cached now, without v2
    v2 = milestone("v2", 12)
    now = [*MILESTONES, v2]
    gitea.replace(responses.GET, f"{API}/repos/acme/widgets/milestones", json=now, headers={"X-Total-Count": "3"})
    gitea.replace(responses.PATCH, ISSUE, json=issue(7, labels=[LABELS[0]], milestone_=v2))
    _, data = ok(run(deps, milestone="v2"))
    assert writes_sent(gitea)[-1] == ("PATCH", "/repos/acme/widgets/issues/7", {"milestone": 12})
    assert data["milestone"] == "v2"


def test_a_label_made_within_the_caches_life_is_found(gitea: responses.RequestsMock, deps: Deps) -> None:
    ok(run(deps, add_labels=["bug"]))  # the catalogue is cached now, without 'fresh'
    fresh = label("fresh", 30)
    now = [*LABELS, fresh]
    gitea.replace(responses.GET, f"{API}/repos/acme/widgets/labels", json=now, headers={"X-Total-Count": "4"})
    gitea.post(f"{ISSUE}/labels", json=[LABELS[0], fresh])
    _, data = ok(run(deps, add_labels=["fresh"]))
    assert label_calls(gitea) == [("POST", "/labels", {"labels": [30]})] and data["labels"] == ["bug", "fresh"]


def test_an_unknown_name_left_to_gitea_is_reported(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUE, json=issue(7, labels=[LABELS[0]]))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(f"{API}/orgs/acme/labels", status=403, json=api_error(SCOPE_403))
    mocked.get(f"{API}/version", json={"version": "1.25.4"})
    mocked.get(f"{API}/repos/issues/search", json=[])
    mocked.post(f"{ISSUE}/labels", json=[LABELS[0], LABELS[1]])
    _, data = ok(run(deps, add_labels=["ui", "triaje"]))
    assert data["warnings"][-1] == "Gitea did not add triaje: no such label in the repository or its organisation."


def test_no_change_sends_nothing(gitea: responses.RequestsMock, deps: Deps) -> None:
    _, data = ok(run(deps, add_labels=["bug"]))
    assert writes_sent(gitea) == [] and data["outcome"] == "unchanged"


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ({}, "nothing to change"),
        ({"state": "done"}, "state='done' is not valid; use one of: open, closed"),
        ({"title": "  "}, "title cannot be empty"),
        ({"title": TITLE_MARK}, "title cannot be empty; leave it out to keep the current title."),
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
    assert "lacks write:issue, which issue_update needs (403; it has read:issue)" in failed(run(deps, state="closed"))


@pytest.mark.parametrize(
    ("args", "method", "url", "answer", "needs"),
    [  # Gitea 1.22.6 and 1.25.4's answers to a read collaborator (docs/server-behaviour.md)
        pytest.param({"add_labels": ["ui"]}, responses.POST, f"{ISSUE}/labels",
                     {"json": api_error("write permission is required")},
                     "changing an issue's labels, milestone or assignees needs write access", id="add-a-label"),
        pytest.param({"remove_labels": ["bug"]}, responses.DELETE, f"{ISSUE}/labels/1", {"body": ""},
                     "changing an issue's labels, milestone or assignees needs write access", id="remove-a-label"),
        pytest.param({"title": "Edited"}, responses.PATCH, ISSUE, {"body": ""},
                     "changing another's issue (or the labels, milestone or assignees of any) needs write access",
                     id="edit-anothers-issue"),
        pytest.param({"assignees": ["bob"]}, responses.PATCH, ISSUE, {"body": ""},
                     "changing another's issue (or the labels, milestone or assignees of any) needs write access",
                     id="assign"),
    ],
)  # fmt: skip
def test_a_user_who_may_only_read_is_told_it_needs_write_access(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], method: str, url: str, answer: Any, needs: str
) -> None:
    gitea.add(method, url, status=403, **answer)
    text = failed(run(deps, **args))
    assert "the token's user may only read acme/widgets" in text and needs in text, text
    assert "collaborator with Write" in text and "lack access" not in text and len(text.splitlines()) == 1, text
    assert len(writes_sent(gitea)) == 1, "refused at the first write, nothing after it"


def test_a_label_gitea_cannot_find_is_refused_before_the_assignees_are_written(
    documented: responses.RequestsMock, deps: Deps
) -> None:
    """Gitea 1.22 finds no organisation label by name: found out before anything is sent, not after the assignees
    (which go first, alone) have changed."""
    documented.get(f"{API}/version", json={"version": "1.22.6"})
    documented.get(f"{API}/repos/issues/search", json=[])
    optional(documented).patch(ISSUE, json=issue(7, labels=[LABELS[0]], assignees=["bob"]))
    text = failed(run(deps, assignees=["bob"], add_labels=["ui", "triage"], title="New title"))
    assert "label 'triage' does not exist" in text and "finds them by name only from 1.23" in text, text
    assert writes_sent(documented) == []


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"labels": ["priority/high", "priority/low"]}, id="replace"),
        pytest.param({"add_labels": ["priority/high", "priority/low"]}, id="add"),
    ],
)
def test_two_labels_of_one_scope_are_refused_before_the_assignees_are_written(
    scoped: responses.RequestsMock, deps: Deps, args: dict[str, Any]
) -> None:
    optional(scoped).patch(ISSUE, json=issue(7, assignees=["bob"]))
    assert "are exclusive" in failed(run(deps, assignees=["bob"], **args))
    assert writes_sent(scoped) == []


def test_missing_issue(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUE, status=404, json=api_error("not found"))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[])
    assert "has no issue or pull request #7" in failed(run(deps, state="closed"))


def test_missing_repository(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUE, status=404, json=api_error("not found"))
    mocked.get(f"{API}/repos/acme/widgets/labels", status=404, json=api_error("not found"))
    assert "repository acme/widgets not found" in failed(run(deps, state="closed"))


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        pytest.param(
            {"status": 422, "json": api_error("[State]: invalid")},
            "The labels changed already, but the rest did not: Gitea rejected the request (422).",
            id="refused-so-not-applied",
        ),
        pytest.param(
            {"body": requests.ConnectionError()},
            "The labels changed already; the change of state is not applied: Gitea's answer was lost (The "
            "connection to Gitea at https://gitea.test broke off during PATCH /repos/acme/widgets/issues/7), and the "
            "issue read again does not show it.",
            id="lost-and-not-shown",
        ),
    ],
)
def test_partial_failure_says_what_changed(
    gitea: responses.RequestsMock, deps: Deps, answer: dict[str, Any], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)
    gitea.post(f"{ISSUE}/labels", json=LABELS[:2])
    gitea.patch(ISSUE, **answer)
    assert failed(run(deps, add_labels=["ui"], state="closed")).startswith(said)


@pytest.mark.parametrize(
    ("assignees", "hint"),
    [
        pytest.param(
            {"status": 403, "json": api_error("token does not have at least one of required scope(s)")},
            "Check the usernames: assignee_list names who can be assigned (with read:repository).",
            id="without-read-repository",
        ),
        pytest.param(
            {"json": [user("bob", 2), user("nobodi", 3)]},
            "Not assignable in acme/widgets: 'nobody', nearest @nobodi. assignee_list names all 2.",
            id="the-nearest",
        ),
    ],
)
def test_unknown_assignee_changes_nothing_else(
    gitea: responses.RequestsMock, deps: Deps, assignees: dict[str, Any], hint: str
) -> None:
    """Gitea saves title and body, then fails with 500 on an unknown assignee: assignees go first, alone."""
    gitea.patch(ISSUE, status=500, json=api_error(""))
    gitea.get(f"{API}/repos/acme/widgets/assignees", **assignees)
    text = failed(run(deps, assignees=["nobody"], title="New title"))
    assert text == (
        "Gitea could not assign 'nobody' (HTTP 500): no such user, or one who cannot be assigned in this "
        f"repository; nothing else was changed. {hint}"
    )
    assert writes_sent(gitea) == [("PATCH", "/repos/acme/widgets/issues/7", {"assignees": ["nobody"]})]


def test_fields_a_non_writer_cannot_change_are_reported(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.patch(ISSUE, status=201, json=issue(7, title="New title"))
    text, data = ok(run(deps, title="New title", assignees=["bob"], milestone="v1.1", due_date="2026-12-24"))
    assert data["warnings"] == [
        "Gitea did not apply assignees, milestone, due date: the token's user may change only title, body and state "
        "here."
    ]
    assert "warning: Gitea did not apply assignees" in text
    assert text.startswith("acme/widgets#7 updated (title): New title")


def test_the_written_issue_is_the_exact_text(gitea: responses.RequestsMock, deps: Deps) -> None:
    title = "Double  spaced   title"
    gitea.patch(ISSUE, status=201, json=issue(7, title, labels=[label("needs  triage ", 9)]))
    text, data = ok(run(deps, title=title))
    assert writes_sent(gitea) == [("PATCH", "/repos/acme/widgets/issues/7", {"title": title})]
    assert data["title"] == title and data["labels"] == ["needs  triage "]
    lines = text.splitlines()
    assert lines[0] == f'acme/widgets#7 updated (title): "{title}"'
    assert 'labels "needs  triage "' in lines[2]


def test_what_gitea_ignored_is_not_reported_as_changed(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.patch(ISSUE, status=201, json=issue(7, labels=[LABELS[0]]))  # a non-writer's assignees, ignored
    text, data = ok(run(deps, assignees=["bob"]))
    assert data["outcome"] == "unchanged"
    assert text.startswith("acme/widgets#7 unchanged (Gitea did not apply what was asked): Crash on login")


LONG = "Crash " + "a" * 300  # Gitea keeps "Crash " + 246 × "a" + "…"
KEPT = "Crash " + "a" * 246 + "…"
SHORTENED = (
    "Gitea shortened the title to 253 of its 306 characters (it cuts titles longer than 255 bytes); the title above "
    "is what it kept."
)


def test_a_long_title_whose_cut_is_the_title_changes_nothing(gitea: responses.RequestsMock, deps: Deps) -> None:
    """Gitea would record "changed the title" from the cut to the same cut: nothing is sent."""
    gitea.get(f"{API}/version", json={"version": "1.25.4"})
    gitea.upsert(responses.GET, ISSUE, json=issue(7, KEPT))
    text, data = ok(run(deps, title=LONG))
    assert writes_sent(gitea) == []
    assert data["outcome"] == "unchanged" and data["warnings"] == [SHORTENED]
    assert text.startswith(f"acme/widgets#7 unchanged (it already was as asked): {KEPT}")


def test_a_long_title_is_sent_whole_and_reported_cut(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(f"{API}/version", json={"version": "1.25.4"})
    gitea.patch(ISSUE, status=201, json=issue(7, KEPT, labels=[LABELS[0]]))
    text, data = ok(run(deps, title=LONG))
    assert writes_sent(gitea) == [("PATCH", "/repos/acme/widgets/issues/7", {"title": LONG})]
    assert data["outcome"] == "updated" and data["warnings"] == [SHORTENED]
    assert text.startswith(f"acme/widgets#7 updated (title): {KEPT}")


# -- close or reopen with a comment -------------------------------------------------------------------------------

COMMENTS = f"{ISSUE}/comments"
CLOSING = "Fixed in v1.1."
COMMENT_URL = f"{ROOT}/acme/widgets/issues/7#issuecomment-55"
BLOCKED = "cannot close this issue or pull request because it still has open dependencies"  # Gitea 1.25.4's 412


@pytest.fixture
def commenting(gitea: responses.RequestsMock) -> responses.RequestsMock:
    """The reads a call with a comment makes besides the issue: our login, and the comments of the window."""
    gitea.get(f"{API}/user", json=user("demo", 5))
    return gitea


def closed(request: Any) -> tuple[int, dict[str, str], str]:
    return edited({"labels": [LABELS[0]]}, request)


def applying() -> Any:
    """Gitea's answers to PATCHes one after another: each applies to the issue as the ones before left it."""
    now: dict[str, Any] = {"labels": [LABELS[0]]}

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        now.update({key: value for key, value in json.loads(request.body).items() if key in ("title", "state")})
        return edited(now, request)

    return answer


def test_a_close_with_a_comment_posts_it_then_closes(commenting: responses.RequestsMock, deps: Deps) -> None:
    commenting.get(COMMENTS, json=[comment(54, "earlier", "bob", 7)])
    commenting.post(COMMENTS, status=201, json=comment(55, CLOSING, "demo", 7))
    commenting.add_callback(responses.PATCH, ISSUE, callback=closed)
    text, data = ok(run(deps, state="closed", comment=CLOSING))
    assert writes_sent(commenting) == [
        ("POST", "/repos/acme/widgets/issues/7/comments", {"body": CLOSING}),
        ("PATCH", "/repos/acme/widgets/issues/7", {"state": "closed"}),
    ]
    assert data["outcome"] == "updated" and data["state"] == "closed" and data["comment_url"] == COMMENT_URL
    assert text.startswith("acme/widgets#7 updated (comment, state): ")
    assert text.splitlines()[-1] == f"comment {COMMENT_URL} posted"


def test_other_fields_go_first_then_the_comment_then_the_state(commenting: responses.RequestsMock, deps: Deps) -> None:
    commenting.get(COMMENTS, json=[])
    commenting.post(COMMENTS, status=201, json=comment(55, CLOSING, "demo", 7))
    commenting.add_callback(responses.PATCH, ISSUE, callback=applying())
    text, _ = ok(run(deps, state="closed", comment=CLOSING, title="Renamed"))
    assert [(method, payload) for method, _, payload in writes_sent(commenting)] == [
        ("PATCH", {"title": "Renamed"}),
        ("POST", {"body": CLOSING}),
        ("PATCH", {"state": "closed"}),
    ]
    assert text.startswith("acme/widgets#7 updated (title, comment, state): Renamed")


@pytest.mark.parametrize(
    ("state_now", "writes", "first_line"),
    [  # a retry after the first call's answer was lost: the comment is found, never posted twice
        pytest.param("closed", [], "acme/widgets#7 unchanged (it already was as asked)", id="both-landed"),
        pytest.param("open", [("PATCH", {"state": "closed"})], "acme/widgets#7 updated (state)", id="state-left"),
    ],
)
def test_a_retry_finds_its_comment_and_does_not_post_it_again(
    commenting: responses.RequestsMock, deps: Deps, state_now: str, writes: list[Any], first_line: str
) -> None:
    commenting.upsert(responses.GET, ISSUE, json=issue(7, labels=[LABELS[0]], state=state_now))
    commenting.get(COMMENTS, json=[comment(55, CLOSING + "\n", "demo", 7)])
    commenting.add_callback(responses.PATCH, ISSUE, callback=closed)
    text, data = ok(run(deps, state="closed", comment=CLOSING))
    assert [(method, payload) for method, _, payload in writes_sent(commenting)] == writes
    if not writes:
        commenting.remove(responses.PATCH, ISSUE)
    assert text.startswith(first_line) and data["comment_url"] == COMMENT_URL
    assert text.splitlines()[-1] == (
        f"comment {COMMENT_URL} was already there: you posted the same text minutes ago, so it was not posted again"
    )


def test_the_same_text_by_someone_else_is_posted(commenting: responses.RequestsMock, deps: Deps) -> None:
    commenting.get(COMMENTS, json=[comment(54, CLOSING, "bob", 7)])
    commenting.post(COMMENTS, status=201, json=comment(55, CLOSING, "demo", 7))
    commenting.add_callback(responses.PATCH, ISSUE, callback=closed)
    assert ok(run(deps, state="closed", comment=CLOSING))[1]["comment_url"] == COMMENT_URL


def test_a_comment_whose_answer_was_lost_is_found_and_the_state_still_changes(
    commenting: responses.RequestsMock, deps: Deps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)
    commenting.get(COMMENTS, json=[])
    commenting.post(COMMENTS, body=requests.ReadTimeout())
    commenting.get(COMMENTS, json=[comment(55, CLOSING, "demo", 7)])
    commenting.add_callback(responses.PATCH, ISSUE, callback=closed)
    text, data = ok(run(deps, state="closed", comment=CLOSING))
    assert [method for method, _, _ in writes_sent(commenting)] == ["POST", "PATCH"]
    assert data["state"] == "closed"
    assert text.splitlines()[-1] == f"comment {COMMENT_URL} posted (Gitea's answer was lost; found it by looking it up)"


def test_a_comment_refused_changes_no_state(commenting: responses.RequestsMock, deps: Deps) -> None:
    commenting.get(COMMENTS, json=[])
    commenting.post(COMMENTS, status=403, json=api_error("You cannot comment on a locked issue."))
    failed(run(deps, state="closed", comment=CLOSING))
    assert [method for method, _, _ in writes_sent(commenting)] == ["POST"]


@pytest.mark.parametrize(
    ("answer", "told"),
    [
        pytest.param(
            {"status": 412, "json": api_error(BLOCKED)},
            f"The comment was posted ({COMMENT_URL}), but the state did not change: Gitea refuses to close this "
            "issue: it is blocked by issues still open (HTTP 412, open dependencies). Close those first, or remove "
            "them as its blockers.",
            id="open-blockers",
        ),
        pytest.param(
            {"status": 403, "json": api_error("")},
            f"The comment was posted ({COMMENT_URL}), but the state did not change: ",
            id="refused",
        ),
        pytest.param(
            {"body": requests.ReadTimeout()},
            f"The comment was posted ({COMMENT_URL}), but the change of state is not applied: Gitea's answer was lost",
            id="lost-and-not-applied",
        ),
    ],
)
def test_a_state_change_failing_after_the_comment_says_the_comment_landed(
    commenting: responses.RequestsMock,
    deps: Deps,
    monkeypatch: pytest.MonkeyPatch,
    answer: dict[str, Any],
    told: str,
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)
    commenting.get(COMMENTS, json=[])
    commenting.post(COMMENTS, status=201, json=comment(55, CLOSING, "demo", 7))
    commenting.patch(ISSUE, **answer)
    text = failed(run(deps, state="closed", comment=CLOSING))
    assert text.startswith(told), text


def test_a_close_refused_for_open_blockers_is_said_plainly(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.patch(ISSUE, status=412, json=api_error(BLOCKED))
    assert failed(run(deps, state="closed")) == (
        "Gitea refuses to close this issue: it is blocked by issues still open (HTTP 412, open dependencies). "
        "Close those first, or remove them as its blockers."
    )


def test_a_close_with_other_fields_goes_alone_so_a_refusal_tells_what_changed(
    gitea: responses.RequestsMock, deps: Deps
) -> None:
    """Gitea saves a PATCH's title before it refuses the close (verified on 1.25.4 and Forgejo 12.0.4)."""
    gitea.add_callback(responses.PATCH, ISSUE, callback=closed)
    gitea.patch(ISSUE, status=412, json=api_error(BLOCKED))
    text = failed(run(deps, state="closed", title="Renamed"))
    assert [payload for _, _, payload in writes_sent(gitea)] == [{"title": "Renamed"}, {"state": "closed"}]
    assert text.startswith("The title changed, but the state did not change: Gitea refuses to close this issue")


@pytest.mark.parametrize(
    ("args", "told"),
    [
        pytest.param(
            {"comment": CLOSING},
            "comment goes with state (close or reopen with a comment); to comment without changing the state, "
            "call issue_comment.",
            id="without-state",
        ),
        pytest.param({"comment": CLOSING, "title": "x"}, "call issue_comment", id="with-a-title-but-no-state"),
        pytest.param({"comment": " ", "state": "closed"}, "comment is empty", id="empty"),
    ],
)
def test_a_comment_needs_a_state_and_text(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], told: str
) -> None:
    assert told in failed(run(deps, **args))
    assert writes_sent(gitea) == []


# -- the write guard covers the comment and the state: calls in flight at once, on one replica or two ---------------


@dataclass
class SlowComment:
    """The comment's POST waits for `release`; from then on the comments and the issue show what was written."""

    release: threading.Event = field(default_factory=threading.Event)
    entered: int = 0  # POSTs that have arrived


def slow_comment(gitea: responses.RequestsMock) -> SlowComment:
    slow = SlowComment()
    gitea.get(COMMENTS, json=[])
    posted = comment(55, CLOSING, "demo", 7)

    def post(request: Any) -> tuple[int, dict[str, str], str]:
        slow.entered += 1
        slow.release.wait(3)
        optional(gitea).upsert(responses.GET, COMMENTS, json=[posted])  # read only by a call that runs after
        return 201, {}, json.dumps(posted)

    def patch(request: Any) -> tuple[int, dict[str, str], str]:
        answer = closed(request)
        optional(gitea).upsert(responses.GET, ISSUE, body=answer[2])
        return answer

    gitea.add_callback(responses.POST, COMMENTS, callback=post)
    gitea.add_callback(responses.PATCH, ISSUE, callback=patch)
    return slow


def sent(gitea: responses.RequestsMock) -> list[str]:
    return [method for method, _, _ in writes_sent(gitea)]


def both(first: Callable[[], Any], second: Callable[[], Any], slow: SlowComment, met: Callable[[], bool]) -> Any:
    """The first call is posting its comment when the second arrives; the first goes on once the second met it."""
    with ThreadPoolExecutor(2) as pool:
        one = pool.submit(first)
        wait_until(lambda: slow.entered >= 1, 3, "the first call posting its comment", poll=0.005)
        two = pool.submit(second)
        wait_until(lambda: met() or slow.entered >= 2, 3, "the second call meeting the first", poll=0.005)
        slow.release.set()
        return one.result(), two.result()


def test_identical_calls_in_flight_post_once_and_answer_alike(commenting: responses.RequestsMock, deps: Deps) -> None:
    slow = slow_comment(commenting)
    call = partial(run, deps, state="closed", comment=CLOSING)
    one, two = both(call, call, slow, lambda: in_flight.waiting() >= 1)
    assert sent(commenting) == ["POST", "PATCH"] and ok(one) == ok(two)


@pytest.mark.usefixtures("replicas")
def test_identical_calls_on_two_replicas_post_once_and_answer_alike(
    commenting: responses.RequestsMock, deps: Deps, fake: FakeRedis
) -> None:
    guard = SharedFlights(fake, WHERE, lease=deps.client.call_budget + shared_flight.LEASE_MARGIN)
    a, b = replace(deps, flights=guard), replace(deps, flights=replace(guard))
    slow = slow_comment(commenting)
    one, two = both(
        partial(run, a, state="closed", comment=CLOSING),
        partial(run, b, state="closed", comment=CLOSING),
        slow,
        lambda: fake.refused_sets >= 1,  # the second found the lock held
    )
    assert sent(commenting) == ["POST", "PATCH"] and ok(one) == ok(two)


@pytest.mark.usefixtures("replicas")
def test_a_call_asking_more_on_another_replica_runs_after_and_finds_the_comment(
    commenting: responses.RequestsMock, deps: Deps, fake: FakeRedis
) -> None:
    """Same comment, another title: not handed the first's answer; it runs once the first let go, and its duplicate
    check finds the comment the first posted."""
    guard = SharedFlights(fake, WHERE, lease=deps.client.call_budget + shared_flight.LEASE_MARGIN)
    a, b = replace(deps, flights=guard), replace(deps, flights=replace(guard))
    slow = slow_comment(commenting)
    _, (text, data) = (
        ok(result)
        for result in both(
            partial(run, a, state="closed", comment=CLOSING),
            partial(run, b, state="closed", comment=CLOSING, title="Renamed"),
            slow,
            lambda: fake.refused_sets >= 1,
        )
    )
    assert sent(commenting) == ["POST", "PATCH", "PATCH"]  # the comment once; the second call's title
    assert text.startswith("acme/widgets#7 updated (title): Renamed") and data["comment_url"] == COMMENT_URL
    assert "was already there" in text.splitlines()[-1]


@pytest.mark.usefixtures("replicas")
def test_the_shared_guard_down_sends_nothing(commenting: responses.RequestsMock, deps: Deps, fake: FakeRedis) -> None:
    commenting.remove(responses.GET, f"{API}/user")
    optional(commenting).get(f"{API}/user", json=user("demo", 5))  # whose write, when not yet known
    fake.down = True
    guard = SharedFlights(fake, WHERE, lease=deps.client.call_budget + shared_flight.LEASE_MARGIN)
    text = failed(run(replace(deps, flights=guard), state="closed", comment=CLOSING))
    assert text.startswith(f"The shared write guard at {WHERE} cannot be reached")
    assert sent(commenting) == []


def test_a_comment_on_an_issue_already_in_that_state_is_posted_alone(
    commenting: responses.RequestsMock, deps: Deps
) -> None:
    """Closed by someone else meanwhile: the comment still says why; no state change is sent or claimed."""
    commenting.upsert(responses.GET, ISSUE, json=issue(7, labels=[LABELS[0]], state="closed"))
    commenting.get(COMMENTS, json=[])
    commenting.post(COMMENTS, status=201, json=comment(55, CLOSING, "demo", 7))
    text, data = ok(run(deps, state="closed", comment=CLOSING))
    assert sent(commenting) == ["POST"] and data["state"] == "closed"
    assert text.startswith("acme/widgets#7 updated (comment): ")


def test_a_comment_failing_after_other_changes_says_what_changed(
    commenting: responses.RequestsMock, deps: Deps
) -> None:
    commenting.get(COMMENTS, json=[])
    commenting.add_callback(responses.PATCH, ISSUE, callback=applying())
    commenting.post(COMMENTS, status=403, json=api_error("You cannot comment on a locked issue."))
    text = failed(run(deps, state="closed", comment=CLOSING, title="Renamed"))
    assert sent(commenting) == ["PATCH", "POST"]
    assert text.startswith("The title changed already; the state was left as it is, since the comment failed: ")


# -- blockers (issue dependencies) -------------------------------------------------------------------------------

DEPENDENCIES = re.compile(rf"{re.escape(API)}/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<n>\d+)/dependencies")
Key = tuple[str, str, int]


@dataclass
class Blockers:
    """A Gitea's dependency routes over a table of blockers, as Gitea 1.25.4 answers them: the list (each with its
    repository), POST and DELETE of `{owner, repo, index}` answering 201 with the blocked issue; `off` repositories
    answer 404."""

    table: dict[Key, list[Key]]
    off: set[str] = field(default_factory=set)
    unclear: tuple[bool, ...] = ()  # per write, in order: True applies it, False not; either answers a blank 500

    def install(self, rsps: responses.RequestsMock) -> None:
        for method in (responses.GET, responses.POST, responses.DELETE):
            optional(rsps).add_callback(method, DEPENDENCIES, callback=self.answer, content_type="application/json")

    def answer(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        found = DEPENDENCIES.match((request.url or "").split("?")[0])
        assert found is not None
        here = (found["owner"], found["repo"], int(found["n"]))
        if found["repo"] in self.off:
            return 404, {}, json.dumps(api_error("not found"))
        rows = self.table.setdefault(here, [])
        if request.method == "GET":
            return 200, {}, json.dumps([issue(n, f"Issue {n}", owner=o, repo=r) for o, r, n in rows])
        meta = json.loads(request.body or b"{}")
        other = (meta["owner"], meta["repo"], meta["index"])
        blank = bool(self.unclear)
        applied, self.unclear = (self.unclear[0], self.unclear[1:]) if blank else (True, ())
        if applied and request.method == "POST":
            rows.append(other)
        elif applied:
            rows.remove(other)
        return (500, {}, json.dumps(api_error(""))) if blank else (201, {}, json.dumps(issue(here[2])))


def test_blockers_added_and_removed_across_repositories(gitea: responses.RequestsMock, deps: Deps) -> None:
    """Numbers, `#N` and `owner/name#N` (inside the allowlist) alike; each sent as Gitea's IssueMeta; the answer
    lists the blockers as they now are."""
    Blockers({("acme", "widgets", 7): [("acme", "widgets", 3)]}).install(gitea)
    text, data = ok(run(deps, blocked_by_add=[5, "acme/lib#2"], blocked_by_remove=["#3"]))
    route = "/repos/acme/widgets/issues/7/dependencies"
    assert writes_sent(gitea) == [
        ("POST", route, {"owner": "acme", "repo": "widgets", "index": 5}),
        ("POST", route, {"owner": "acme", "repo": "lib", "index": 2}),
        ("DELETE", route, {"owner": "acme", "repo": "widgets", "index": 3}),
    ]
    assert text.splitlines()[0].startswith("acme/widgets#7 updated (blocked_by): ")
    assert text.splitlines()[-1] == "blocked by: #5 (open) Issue 5; acme/lib#2 (open) Issue 2"
    assert [b["shown"] for b in data["blocked_by"]] == ["#5", "acme/lib#2"] and data["outcome"] == "updated"


@pytest.mark.parametrize(
    ("args", "note"),
    [
        pytest.param({"blocked_by_add": ["3"]}, "#3 already blocked it: not added again.", id="already-there"),
        pytest.param({"blocked_by_remove": [4]}, "#4 did not block it: nothing to remove.", id="not-there"),
    ],
)
def test_what_is_already_as_asked_is_said_and_not_sent(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], note: str
) -> None:
    """Gitea answers a duplicate, and the removal of one that is not there, with a blank 500."""
    Blockers({("acme", "widgets", 7): [("acme", "widgets", 3)]}).install(gitea)
    text, data = ok(run(deps, **args))
    assert writes_sent(gitea) == [] and data["outcome"] == "unchanged"
    assert f"warning: {note}" in text and text.endswith("blocked by: #3 (open) Issue 3")


@pytest.mark.parametrize(
    ("table", "chain"),
    [
        pytest.param({("acme", "widgets", 5): [("acme", "widgets", 7)]}, "#5 → #7", id="two-issues"),
        pytest.param(
            {("acme", "widgets", 5): [("acme", "lib", 6)], ("acme", "lib", 6): [("acme", "widgets", 7)]},
            "#5 → acme/lib#6 → #7",
            id="three-issues-across-repositories",
        ),
    ],
)
def test_a_blocker_that_would_close_a_cycle_is_refused_before_sending(
    gitea: responses.RequestsMock, deps: Deps, table: dict[Key, list[Key]], chain: str
) -> None:
    Blockers(table).install(gitea)
    said = failed(run(deps, blocked_by_add=[5], title="Also a new title"))
    assert said == (
        f"#5 cannot block #7: that would close a cycle ({chain}, each blocked by the next), and no issue in it "
        "could ever be closed. Nothing was changed."
    )
    assert writes_sent(gitea) == []


def test_a_long_chain_is_walked_only_so_far_and_that_is_said(gitea: responses.RequestsMock, deps: Deps) -> None:
    """Each issue of the chain is one request: the walk stops at 50 and says it found no cycle among them."""
    chain = {("acme", "widgets", n): [("acme", "widgets", n + 1)] for n in range(100, 200)}
    Blockers(chain).install(gitea)
    text, _ = ok(run(deps, blocked_by_add=[100]))
    walked = [c for c in gitea.calls if c.request.method == "GET" and "/issues/1" in (c.request.url or "")]
    assert len(walked) == dependencies.WALK_LIMIT
    assert "the check for a cycle through #100 stopped after 50 issues and found none among them." in text.lower()
    assert writes_sent(gitea) == [("POST", "/repos/acme/widgets/issues/7/dependencies",
                                   {"owner": "acme", "repo": "widgets", "index": 100})]  # fmt: skip


def test_where_dependencies_are_off_the_call_is_refused_in_words(gitea: responses.RequestsMock, deps: Deps) -> None:
    Blockers({}, off={"widgets"}).install(gitea)
    assert failed(run(deps, blocked_by_add=[5], title="New")) == (
        "Issue dependencies are turned off in acme/widgets: nothing was changed. A repository admin can turn them on."
    )
    assert writes_sent(gitea) == []


@pytest.mark.parametrize(
    ("given", "refusal"),
    [
        pytest.param("other/secret#1", "not allowed", id="outside-the-allowlist"),
        pytest.param("7", "an issue cannot block itself (#7).", id="itself"),
        pytest.param("acme/widgets#x", "is not an issue: give its number, or owner/name#N", id="not-a-reference"),
    ],
)
def test_references_are_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps, given: str, refusal: str
) -> None:
    assert refusal in failed(run(deps, blocked_by_add=[given]))
    assert len(mocked.calls) == 0


@pytest.mark.parametrize("applied", [True, False], ids=["applied", "not-applied"])
def test_a_blank_500_is_looked_up_in_the_blockers(gitea: responses.RequestsMock, deps: Deps, applied: bool) -> None:
    """A 5xx says nothing of the outcome (a proxy's page, or Gitea's blank 500 for a duplicate a concurrent call
    added): the blockers read again tell, and only what they show is reported."""
    Blockers({}, unclear=(applied,)).install(gitea)
    result = run(deps, blocked_by_add=[5])
    if applied:
        text, data = ok(result)
        assert data["outcome"] == "updated" and [b["shown"] for b in data["blocked_by"]] == ["#5"], text
    else:
        said = failed(result)
        assert said.startswith("The change of blocker #5 is not applied: "), said
