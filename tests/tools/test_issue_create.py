"""issue_create: names resolved to ids, one POST, duplicates from retries caught, lost answers resolved."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
import responses

from gitea_mcp.toolkit import in_flight, writes
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.lockdown import TITLE_MARK
from gitea_mcp.tools import issue_create
from tests.support.gitea_json import API, HIGH, LABELS, LOW, MILESTONES, api_error, issue, label, org_label, user
from tests.support.mocks import optional
from tests.support.results import failed, ok
from tests.support.waiting import wait_until

ISSUES = f"{API}/repos/acme/widgets/issues"


def now(minutes_ago: int = 0) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def gitea(mocked: responses.RequestsMock) -> responses.RequestsMock:
    optional(mocked).get(f"{API}/user", json=user("demo", 5))
    optional(mocked).get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    optional(mocked).get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    optional(mocked).get(f"{API}/repos/acme/widgets/milestones", json=MILESTONES, headers={"X-Total-Count": "2"})
    return mocked


def run(deps: Deps, **kw: Any) -> Any:
    return issue_create.TOOL.call(deps, {"owner": "acme", "name": "widgets", "title": kw.pop("title", "New bug"), **kw})


def until_waiting(calls: int, seconds: float = 3.0) -> None:
    """Until `calls` calls wait on one in flight (in_flight.waiting), so the first is let go only after they arrived."""
    wait_until(lambda: in_flight.waiting() >= calls, seconds, f"{calls} call(s) coming to wait", poll=0.005)


def posts(rsps: responses.RequestsMock) -> list[dict[str, Any]]:
    return [json.loads(c.request.body or b"{}") for c in rsps.calls if c.request.method == "POST"]


def test_creates_with_ids(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[])
    created = issue(301, "New bug", author="demo", labels=LABELS[:2], milestone_=MILESTONES[1], created=now())
    gitea.post(ISSUES, status=201, json=created)
    text, data = ok(run(deps, body="b", labels=["bug", "ui"], milestone="v1.1", due_date="2026-12-24"))
    assert posts(gitea) == [
        {"title": "New bug", "body": "b", "labels": [1, 2], "milestone": 6, "due_date": "2026-12-24T12:00:00Z"}
    ]
    assert text.splitlines()[0] == "acme/widgets#301 created: New bug"
    assert data["number"] == 301 and data["outcome"] == "created"
    assert data["html_url"] == "https://gitea.test/acme/widgets/issues/301"


@pytest.mark.parametrize(
    ("refusal", "hint"),
    [
        (
            "Assignee does not exist: [name: user does not exist [uid: 0, name: alcie]]",
            " Not assignable in acme/widgets: 'alcie', nearest @alice. assignee_list names all 2.",
        ),
        (
            "user doesn't have access to repo [user_id: 4, repo_name: widgets]",
            " Not assignable in acme/widgets: 'alcie', nearest @alice. assignee_list names all 2.",
        ),
        ("[Title]: Required", ""),  # another refusal: Gitea's words alone, no list read
    ],
)
def test_a_refused_assignee_is_told_with_the_nearest_login(
    gitea: responses.RequestsMock, deps: Deps, refusal: str, hint: str
) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=422, json=api_error(refusal))
    if hint:
        gitea.get(f"{API}/repos/acme/widgets/assignees", json=[user("alice", 1), user("bob", 2)])
    said = failed(run(deps, assignees=["alcie"]))
    assert (
        said == f"Gitea rejected the request (422). Gitea said: {refusal}. Correct the arguments and try again.{hint}"
    )


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (
            {"labels": ["bugz"]},
            "label 'bugz' does not exist in acme/widgets. Labels there: 'bug', 'good first issue', 'ui'",
        ),
        ({"milestone": "v9"}, "milestone 'v9' does not exist in acme/widgets. Milestones there: 'v1.0', 'v1.1'"),
        ({"title": "   "}, "title is empty"),
        ({"title": TITLE_MARK}, "title is empty; give the issue a one-line title."),
        ({"due_date": "soon"}, "due_date='soon' is not a date"),
    ],
)
def test_bad_arguments_write_nothing(
    gitea: responses.RequestsMock, deps: Deps, args: dict[str, Any], phrase: str
) -> None:
    optional(gitea).get(ISSUES, json=[])  # an empty title is refused before anything is read
    assert phrase in failed(run(deps, **args))
    assert posts(gitea) == []


def test_milestone_by_id(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", author="demo", milestone_=MILESTONES[0]))
    ok(run(deps, milestone="5"))
    assert posts(gitea)[0]["milestone"] == 5


def test_duplicate_returns_existing(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[issue(300, "New bug", body="same", author="demo", created=now(2), updated=now(2))])
    text, data = ok(run(deps, body="same"))
    assert posts(gitea) == []
    assert data["number"] == 300 and data["outcome"] == "already_existed"
    assert "allow_duplicate=true" in text


@pytest.mark.parametrize(
    ("existing", "why"),
    [
        (issue(300, "New bug", body="same", author="alice", created=now(2)), "another author"),
        (issue(300, "New bug", body="other", author="demo", created=now(2)), "another body"),
        (issue(300, "New bug", body="same", author="demo", created=now(60), updated=now(1)), "filed long ago"),
    ],
)
def test_not_a_duplicate(gitea: responses.RequestsMock, deps: Deps, existing: dict[str, Any], why: str) -> None:
    gitea.get(ISSUES, json=[existing])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", body="same", author="demo", created=now()))
    _, data = ok(run(deps, body="same"))
    assert data["outcome"] == "created", why


def test_allow_duplicate_files_again(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[issue(300, "New bug", body="same", author="demo", created=now(2))])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", body="same", author="demo", created=now()))
    _, data = ok(run(deps, body="same", allow_duplicate=True))
    assert data["number"] == 301 and len(posts(gitea)) == 1


def test_lost_answer_found_by_lookup(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[])  # before the write: nothing
    gitea.post(ISSUES, body=requests.ReadTimeout())
    gitea.get(ISSUES, json=[issue(301, "New bug", body="b", author="demo", created=now())])  # after: there it is
    text, data = ok(run(deps, body="b"))
    assert len(posts(gitea)) == 1, "never retried"
    assert data["outcome"] == "created_after_lost_answer" and data["number"] == 301
    assert "answer was lost" in text


@pytest.fixture
def no_recheck_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)


@pytest.mark.usefixtures("no_recheck_wait")
def test_lost_answer_not_found_is_an_unknown_outcome(gitea: responses.RequestsMock, deps: Deps) -> None:
    """Nothing there may still mean "not yet": never "NOT written", which would invite a retry that doubles."""
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, body=requests.ConnectionError())
    text = failed(run(deps, body="b"))
    assert text.startswith("The outcome of the issue is unknown: Gitea's answer was lost (")
    assert text.endswith(
        "Look with issue_list owner=acme name=widgets state=all before retrying, or the issue may be filed twice."
    )
    assert len(posts(gitea)) == 1
    assert len([c for c in gitea.calls if c.request.method == "GET" and "/issues" in (c.request.url or "")]) == 3


@pytest.mark.usefixtures("no_recheck_wait")
def test_a_write_that_commits_late_is_found_on_the_second_look(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[])  # before
    gitea.post(ISSUES, body=requests.ReadTimeout())
    gitea.get(ISSUES, json=[])  # first look: still committing
    gitea.get(ISSUES, json=[issue(301, "New bug", body="b", author="demo", created=now())])  # second look
    _, data = ok(run(deps, body="b"))
    assert data["outcome"] == "created_after_lost_answer" and data["number"] == 301


@pytest.mark.usefixtures("no_recheck_wait")
def test_an_older_identical_issue_is_never_taken_for_the_lost_write(gitea: responses.RequestsMock, deps: Deps) -> None:
    """With allow_duplicate=true an identical issue filed minutes ago exists; it is not this call's issue."""
    older = issue(300, "New bug", body="b", author="demo", created=now(2))
    gitea.get(ISSUES, json=[older])
    gitea.post(ISSUES, body=requests.ReadTimeout())
    text = failed(run(deps, body="b", allow_duplicate=True))
    assert text.startswith("The outcome of the issue is unknown")


@pytest.mark.parametrize(
    ("first_title", "second_title"),
    [
        pytest.param("New bug", "New bug", id="identical"),
        # The mark is taken off before the write guard's key is made: a retry that copied the title from a marked
        # answer is the same write as the call without it.
        pytest.param(TITLE_MARK + "New bug", "New bug", id="one-with-lockdowns-mark"),
    ],
)
def test_the_same_create_twice_in_flight_files_once(
    gitea: responses.RequestsMock, deps: Deps, first_title: str, second_title: str
) -> None:
    """Two calls for the same issue at the same moment both read "no duplicate" before either writes: one waits
    instead, and the forge gets one POST, with the title unmarked."""
    gitea.get(ISSUES, json=[])
    entered, release = threading.Event(), threading.Event()

    def slow_post(request: Any) -> tuple[int, dict[str, str], str]:
        entered.set()
        release.wait(3)
        return 201, {}, json.dumps(issue(301, "New bug", body="b", author="demo", created=now()))

    gitea.add_callback(responses.POST, ISSUES, callback=slow_post)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, deps, title=first_title, body="b")
        assert entered.wait(3), "the first call is writing"
        second = pool.submit(run, deps, title=second_title, body="b")
        until_waiting(1)  # the second call has arrived and waits for the first: one key
        release.set()
        results = [first.result(), second.result()]
    assert [ok(result)[1]["number"] for result in results] == [301, 301]
    assert [post["title"] for post in posts(gitea)] == ["New bug"]


@pytest.mark.parametrize(
    ("status", "message", "phrase"),
    [
        (
            403,
            "token does not have at least one of required scope(s), required=[write:issue], token scope=read:issue",
            "The token lacks write:issue and read:user, which issue_create needs (403; it has read:issue)",
        ),
        (422, "[Title]: Required", "Gitea said: [Title]: Required"),
        (423, "repo is archived", "archived"),
        (429, "", "rate-limiting"),
    ],
)
def test_refused_write_is_never_retried(
    gitea: responses.RequestsMock, deps: Deps, status: int, message: str, phrase: str
) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=status, json=api_error(message))
    assert phrase in failed(run(deps))
    assert len(posts(gitea)) == 1


def test_stale_label_id_is_refreshed_and_added(gitea: responses.RequestsMock, deps: Deps) -> None:
    """Gitea drops an unknown label id without an error: the catalogue is reloaded and the label added by its new id."""
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", author="demo", created=now()))
    renewed = label("bug", 11)
    gitea.get(f"{API}/repos/acme/widgets/labels", json=[renewed, *LABELS[1:]], headers={"X-Total-Count": "3"})
    gitea.post(f"{ISSUES}/301/labels", json=[renewed])
    _, data = ok(run(deps, labels=["bug"]))
    assert posts(gitea)[1:] == [{"labels": [11]}]
    assert data["labels"] == ["bug"] and data["warnings"] == []


def test_a_label_deleted_meanwhile_is_reported(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", author="demo", labels=[LABELS[1]], created=now()))
    gitea.get(f"{API}/repos/acme/widgets/labels", json=LABELS[1:], headers={"X-Total-Count": "2"})
    text, data = ok(run(deps, labels=["bug", "ui"]))
    assert data["warnings"] == [
        "#301 was created, but its labels bug could not be added: label 'bug' does not exist in acme/widgets. "
        "Labels there: 'good first issue', 'ui'."
    ]
    assert "warning: #301 was created" in text


def test_everything_dropped_means_no_write_access(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", author="demo", created=now()))
    _, data = ok(run(deps, labels=["bug"], assignees=["bob"], milestone="v1.1", due_date="2026-12-24"))
    assert data["warnings"] == [
        "Gitea did not apply label 'bug', assignee 'bob', milestone, due date: the token's user cannot write to "
        "acme/widgets."
    ]
    assert len(posts(gitea)) == 1, "nothing is retried for a user who cannot write"


def test_two_labels_of_one_exclusive_scope_are_refused(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[HIGH, LOW], headers={"X-Total-Count": "2"})
    mocked.get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    mocked.get(ISSUES, json=[])
    assert "are exclusive (scope 'priority')" in failed(run(deps, labels=["priority/high", "priority/low"]))
    assert posts(mocked) == []


NO_ORG_SCOPE = "token does not have at least one of required scope(s), required=[read:organization], token scope=x"


@pytest.fixture
def documented(mocked: responses.RequestsMock) -> responses.RequestsMock:
    """A token of the documented scopes: the organisation's labels cannot be listed (no read:organization)."""
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(f"{API}/orgs/acme/labels", status=403, json=api_error(NO_ORG_SCOPE))
    optional(mocked).get(f"{API}/version", json={"version": "1.25.4"})
    mocked.get(ISSUES, json=[])
    return mocked


def test_an_organisation_label_an_issue_shows_is_filed_by_id(documented: responses.RequestsMock, deps: Deps) -> None:
    """Seen on an issue of the organisation, the label's id is known: one write, on every release (1.22 too)."""
    triage = org_label("triage", 40)
    documented.get(f"{API}/repos/issues/search", json=[issue(9, repo="gadgets", labels=[triage])])
    documented.post(ISSUES, status=201, json=issue(301, "New bug", author="demo", labels=[LABELS[0], triage]))
    _, data = ok(run(deps, labels=["bug", "triage"]))
    assert posts(documented) == [{"title": "New bug", "body": "", "labels": [1, 40]}]
    assert data["labels"] == ["bug", "triage"] and data["warnings"] == []


def test_a_repository_moved_outside_the_allowlist_is_never_named(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(ISSUES, status=301, headers={"Location": "/api/v1/repos/elsewhere/widgets/issues"})
    text = failed(run(deps))
    assert text == (
        "The repository acme/widgets has moved: Gitea redirected GET /repos/acme/widgets/issues (301) and nothing "
        "was done. Its new owner is outside GITEA_ALLOWED_OWNERS, so this server cannot work with it there; ask the "
        "operator to allow that owner if it should."
    )
    assert posts(gitea) == []


@pytest.mark.parametrize("name", ["triaje", "triage"])
def test_a_label_seen_nowhere_is_refused_before_filing(
    documented: responses.RequestsMock, deps: Deps, name: str
) -> None:
    """A misspelt name (or an organisation label no issue carries yet) never files an issue without it, and is
    never blamed on permissions."""
    documented.get(f"{API}/repos/issues/search", json=[issue(9, labels=[LABELS[0]])])
    text = failed(run(deps, labels=["bug", name]))
    assert text.startswith(f"label '{name}' does not exist in acme/widgets. Labels there: 'bug', 'good first issue'")
    assert "then issue_update add_labels=NAME" in text and "cannot write" not in text
    assert posts(documented) == []


@pytest.mark.parametrize("status", [307, 301])  # 307 up to Gitea 1.23.6 and Forgejo 11, 301 after
def test_redirect_on_write_names_new_location(gitea: responses.RequestsMock, deps: Deps, status: int) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=status, headers={"Location": "/api/v1/repos/acme/gizmos/issues"})
    assert "call again with owner=acme name=gizmos" in failed(run(deps))
    assert len(posts(gitea)) == 1


LONG = "Crash " + "a" * 300  # 306 bytes: Gitea keeps "Crash " + 246 × "a" + "…" (252 characters before the "…")
KEPT = {"1.25.4": "Crash " + "a" * 246 + "…", "12.0.4+gitea-1.22.0": "Crash " + "a" * 246 + "…"}
WIDE = "Absturz " + "漢" * 130  # Gitea from 1.24 counts 漢 as 2 wide, older Gitea and Forgejo as its 3 bytes
WIDE_KEPT = {"1.25.4": "Absturz " + "漢" * 122 + "…", "12.0.4+gitea-1.22.0": "Absturz " + "漢" * 81 + "…"}


@pytest.mark.parametrize("version", ["1.25.4", "12.0.4+gitea-1.22.0"])
@pytest.mark.parametrize(("sent", "kept"), [(LONG, KEPT), (WIDE, WIDE_KEPT)], ids=["ascii", "wide"])
def test_a_long_title_filed_again_is_the_issue_gitea_cut(
    gitea: responses.RequestsMock, deps: Deps, version: str, sent: str, kept: dict[str, str]
) -> None:
    """Gitea stores a cut title: the duplicate check compares what it kept with what it would keep of this one."""
    gitea.get(f"{API}/version", json={"version": version})
    gitea.get(ISSUES, json=[issue(300, kept[version], body="same", author="demo", created=now(2), updated=now(2))])
    _, data = ok(run(deps, title=sent, body="same"))
    assert posts(gitea) == []
    assert data["outcome"] == "already_existed" and data["number"] == 300
    assert data["warnings"] == [f"Gitea shortened the title to {len(kept[version])} of its {len(sent)} characters "
                                "(it cuts titles longer than 255 bytes); the title above is what it kept."]  # fmt: skip


def test_a_long_title_is_reported_cut(gitea: responses.RequestsMock, deps: Deps) -> None:
    gitea.get(f"{API}/version", json={"version": "1.25.4"})
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=201, json=issue(301, KEPT["1.25.4"], author="demo", created=now()))
    text, data = ok(run(deps, title=LONG))
    assert posts(gitea) == [{"title": LONG, "body": ""}]
    assert text.splitlines()[0] == f"acme/widgets#301 created: {KEPT['1.25.4']}"
    assert data["warnings"] == [
        "Gitea shortened the title to 253 of its 306 characters (it cuts titles longer than 255 bytes); the title "
        "above is what it kept."
    ]
    assert "warning: Gitea shortened the title to 253 of its 306 characters" in text


def test_a_retry_with_other_fields_says_what_differs_and_how_to_apply_it(
    gitea: responses.RequestsMock, deps: Deps
) -> None:
    """Same title and body, so the same issue; what this call asked for beyond them was not applied, and says so."""
    existing = issue(300, "New bug", body="same", author="demo", labels=[LABELS[0]], created=now(2), updated=now(2))
    gitea.get(ISSUES, json=[existing])
    text, data = ok(
        run(deps, body="same", labels=["bug", "ui"], assignees=["bob"], milestone="v1.1", due_date="2026-12-24")
    )
    assert posts(gitea) == []
    assert data["outcome"] == "already_existed" and data["labels"] == ["bug"]
    assert data["warnings"] == [
        "#300 already existed, but not as this call asked, and nothing was changed: labels bug (asked bug, ui); "
        "assignees none (asked bob); milestone none (asked v1.1); due date none (asked 2026-12-24)."
    ]
    assert text.splitlines()[-2:] == [
        "help: to make #300 as asked, call issue_update owner=acme name=widgets number=300 labels=bug,ui "
        "assignees=bob milestone=v1.1 due_date=2026-12-24.",
        "help: to file it again anyway, call issue_create with allow_duplicate=true.",
    ]


@pytest.mark.parametrize(
    ("existing", "asked"),
    [
        pytest.param({"labels": [LABELS[0]]}, {"labels": ["bug"]}, id="same-labels"),
        pytest.param({"assignees": ["bob"]}, {"assignees": ["Bob"]}, id="same-assignee"),
        pytest.param({"milestone_": MILESTONES[1]}, {"milestone": "v1.1"}, id="same-milestone"),
        pytest.param({"due_date": "2026-12-24T12:00:00Z"}, {"due_date": "2026-12-24"}, id="same-due-date"),
        pytest.param({"labels": [LABELS[0]], "assignees": ["bob"]}, {}, id="fields-not-asked-for"),
    ],
)
def test_a_retry_as_filed_has_no_warning(
    gitea: responses.RequestsMock, deps: Deps, existing: dict[str, Any], asked: dict[str, Any]
) -> None:
    gitea.get(ISSUES, json=[issue(300, "New bug", body="same", author="demo", created=now(2), **existing)])
    _, data = ok(run(deps, body="same", **asked))
    assert data["outcome"] == "already_existed" and data["warnings"] == []


def test_a_create_with_other_fields_in_flight_waits_and_says_what_differs(
    gitea: responses.RequestsMock, deps: Deps
) -> None:
    """A retry while the first call still runs, with another label: it is not handed the first's answer."""
    gitea.get(ISSUES, json=[])
    filed = issue(301, "New bug", body="b", author="demo", labels=[LABELS[0]], created=now())
    entered, release = threading.Event(), threading.Event()

    def slow_post(request: Any) -> tuple[int, dict[str, str], str]:
        entered.set()
        release.wait(3)
        gitea.upsert(responses.GET, ISSUES, json=[filed])  # from now on the list holds it
        return 201, {}, json.dumps(filed)

    gitea.add_callback(responses.POST, ISSUES, callback=slow_post)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, deps, body="b", labels=["bug"])
        assert entered.wait(3), "the first call is writing"
        second = pool.submit(run, deps, body="b", labels=["bug", "ui"])
        until_waiting(1)
        release.set()
        (_, one), (_, two) = ok(first.result()), ok(second.result())
    assert len(posts(gitea)) == 1
    assert (one["outcome"], two["outcome"]) == ("created", "already_existed") and two["number"] == 301
    assert two["warnings"] == [
        "#301 already existed, but not as this call asked, and nothing was changed: labels bug (asked bug, ui)."
    ]


def test_long_titles_gitea_keeps_alike_in_flight_file_once(gitea: responses.RequestsMock, deps: Deps) -> None:
    """Two titles that differ only past Gitea's cut are one issue to Gitea: the second waits and finds it."""
    gitea.get(f"{API}/version", json={"version": "1.25.4"})
    gitea.get(ISSUES, json=[])
    filed = issue(301, KEPT["1.25.4"], body="b", author="demo", created=now())
    entered, release = threading.Event(), threading.Event()

    def slow_post(request: Any) -> tuple[int, dict[str, str], str]:
        entered.set()
        release.wait(3)
        gitea.upsert(responses.GET, ISSUES, json=[filed])
        return 201, {}, json.dumps(filed)

    gitea.add_callback(responses.POST, ISSUES, callback=slow_post)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, deps, title=LONG, body="b")
        assert entered.wait(3), "the first call is writing"
        second = pool.submit(run, deps, title=LONG + " and more", body="b")
        until_waiting(1)
        release.set()
        (_, one), (_, two) = ok(first.result()), ok(second.result())
    assert len(posts(gitea)) == 1
    assert (one["outcome"], two["outcome"], two["number"]) == ("created", "already_existed", 301)
