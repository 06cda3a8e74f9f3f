"""A write's outcome told true, on real sockets: the stand-in commits the write, then a misbehaving answer replaces
its result (a proxy's 502 or 504 page, JSON cut short under a matching Content-Length, HTML under 200).

Any answer to a write that is not its result nor a clear refusal is an unknown outcome: it is looked up like a lost
answer, and what the tool says changed is what Gitea shows. A write that was never sent (no connection) says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
import responses

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import NoAnswer, NotSent
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.standin.http import Fault
from gitea_mcp.toolkit import writes
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_comment, issue_create, issue_update
from tests.support.gitea_json import API, LABELS, ROOT, issue, user
from tests.support.ports import refusing_url
from tests.support.results import failed, ok


@pytest.fixture(autouse=True)
def no_recheck_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0)


@pytest.fixture
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


def deps_for(url: str, token: str = DEMO_TOKEN) -> Deps:
    client = GiteaClient(url, token, timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())


# What a proxy in front of Gitea sends back after Gitea committed the write.
UNCLEAR = [
    pytest.param(Fault("html_error", status=502, committed=True), "a server error (HTTP 502)", id="proxy-502-page"),
    pytest.param(Fault("html_error", status=504, committed=True), "a server error (HTTP 504)", id="proxy-504-page"),
    pytest.param(Fault("status", status=502, committed=True), "a server error (HTTP 502)", id="gitea-style-502"),
    pytest.param(Fault("malformed_json", committed=True), "malformed JSON", id="json-cut-short"),
    pytest.param(
        Fault("html_error", status=200, committed=True), "an HTML page instead of JSON (HTTP 200)", id="html-under-200"
    ),
]


def _titles(forge: StandIn) -> list[str]:
    repo = forge.store.find_repo("acme", "widgets")
    assert repo is not None
    return [issue.title for issue in forge.store.issues_of(repo)]


def _posts(forge: StandIn, end: str) -> int:
    return len([r for r in forge.requests if r.method == "POST" and r.path.endswith(end)])


@pytest.mark.parametrize(("fault", "seen"), UNCLEAR)
def test_a_create_answered_unclearly_is_found_not_reported_failed(forge: StandIn, fault: Fault, seen: str) -> None:
    forge.inject(Fault(**{**fault.__dict__, "method": "POST", "path_contains": "/issues"}))
    args = {"owner": "acme", "name": "widgets", "title": "Committed behind a proxy", "body": "once"}
    text, data = ok(issue_create.TOOL.call(deps_for(forge.url), args))
    assert data["outcome"] == "created_after_lost_answer", text
    assert "found it by looking it up" in text.splitlines()[0]
    assert _titles(forge).count("Committed behind a proxy") == 1 and _posts(forge, "/issues") == 1


@pytest.mark.parametrize(("fault", "seen"), UNCLEAR)
def test_a_comment_answered_unclearly_is_found_not_reported_failed(forge: StandIn, fault: Fault, seen: str) -> None:
    forge.inject(Fault(**{**fault.__dict__, "method": "POST", "path_contains": "/comments"}))
    args = {"owner": "acme", "name": "widgets", "number": 3, "body": "said once behind a proxy"}
    text, data = ok(issue_comment.TOOL.call(deps_for(forge.url), args))
    assert data["outcome"] == "created_after_lost_answer", text
    commented = forge.store.get_issue("acme", "widgets", 3)
    assert commented is not None
    assert [c.body for c in forge.store.comments_of(commented)].count("said once behind a proxy") == 1


@pytest.mark.parametrize(("fault", "seen"), UNCLEAR)
def test_an_unclear_answer_to_a_write_not_applied_is_an_unknown_outcome(
    forge: StandIn, fault: Fault, seen: str
) -> None:
    """The proxy failed before Gitea saw the request: nothing there, and never "Gitea failed, try again"."""
    forge.inject(Fault(**{**fault.__dict__, "committed": False, "method": "POST", "path_contains": "/issues"}))
    args = {"owner": "acme", "name": "widgets", "title": "Lost before Gitea", "body": "never"}
    text = failed(issue_create.TOOL.call(deps_for(forge.url), args))
    assert text.startswith(
        "The outcome of the issue is unknown: Gitea's answer did not come through: POST /repos/acme/widgets/issues "
        f"was answered with {seen}"
    ), text
    assert text.endswith("before retrying, or the issue may be filed twice.")
    assert "Lost before Gitea" not in _titles(forge)


def _update(forge: StandIn, **args: Any) -> Any:
    return issue_update.TOOL.call(deps_for(forge.url), {"owner": "acme", "name": "widgets", "number": 3, **args})


def _issue3(forge: StandIn) -> tuple[str, list[str]]:
    found = forge.store.get_issue("acme", "widgets", 3)
    assert found is not None
    names = [forge.store.label(label_id) for label_id in found.label_ids]
    return found.title, sorted(label.name for label in names if label is not None)


def test_an_update_whose_title_answer_is_a_502_after_applying_says_the_title_changed(forge: StandIn) -> None:
    """Labels go first, then the title's PATCH, whose answer is a proxy's page after Gitea applied it."""
    _, before = _issue3(forge)
    added = next(name for name in ("ui", "docs", "enhancement") if name not in before)
    forge.inject(Fault("html_error", status=502, committed=True, method="PATCH", path_contains="/issues/3"))
    text, data = ok(_update(forge, add_labels=[added], title="Renamed behind a proxy"))
    assert text.splitlines()[0] == "acme/widgets#3 updated (labels, title): Renamed behind a proxy"
    assert data["warnings"] == [
        "Gitea's answer to the change of title did not come through; the issue read again shows it applied."
    ]
    assert _issue3(forge) == ("Renamed behind a proxy", sorted([*before, added]))


def test_an_update_whose_title_was_not_applied_says_exactly_what_changed(forge: StandIn) -> None:
    title, before = _issue3(forge)
    added = next(name for name in ("ui", "docs", "enhancement") if name not in before)
    forge.inject(Fault("html_error", status=502, method="PATCH", path_contains="/issues/3"))
    text = failed(_update(forge, add_labels=[added], title="Never renamed"))
    assert text == (
        "The labels changed already; the change of title is not applied: Gitea's answer did not come through: "
        "PATCH /repos/acme/widgets/issues/3 was answered with a server error (HTTP 502), and the issue read again "
        "does not show it. Calling issue_update again is safe: it sends only what is not yet as asked."
    )
    assert _issue3(forge) == (title, sorted([*before, added]))


def test_a_label_change_answered_unclearly_after_applying_counts(forge: StandIn) -> None:
    _, before = _issue3(forge)
    added = next(name for name in ("ui", "docs", "enhancement") if name not in before)
    forge.inject(Fault("malformed_json", committed=True, method="POST", path_contains="/issues/3/labels"))
    text, data = ok(_update(forge, add_labels=[added], state="closed"))
    assert text.splitlines()[0].startswith("acme/widgets#3 updated (labels, state)")
    assert set(data["labels"]) == {*before, added} and _issue3(forge)[1] == sorted([*before, added])
    assert data["warnings"] == [
        "Gitea's answer to the addition of labels did not come through; the issue read again shows it applied."
    ]


# -- not sent at all ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "PATCH", "DELETE"])
def test_a_write_to_a_refused_connection_is_not_sent_not_lost(method: str) -> None:
    with refusing_url() as url, pytest.raises(NotSent) as refused:
        client = GiteaClient(url, DEMO_TOKEN, timeout=2, retry=RetryPolicy(attempts=1))
        client.write(method, ["repos", "acme", "widgets", "issues"], {"title": "x"})
    assert not isinstance(refused.value, NoAnswer)
    assert "(connection refused). Nothing was sent, so nothing changed." in str(refused.value)
    assert "may or may not" not in str(refused.value)


def test_a_write_whose_connection_breaks_off_after_sending_is_no_answer(forge: StandIn) -> None:
    forge.inject(Fault("drop", method="POST"))
    client = GiteaClient(forge.url, DEMO_TOKEN, timeout=2, retry=RetryPolicy(attempts=1))
    with pytest.raises(NoAnswer, match=r"broke off during POST /repos/acme/widgets/issues\. The write may or may not"):
        client.write("POST", ["repos", "acme", "widgets", "issues"], {"title": "x"})


@pytest.fixture(scope="module")
def refused() -> requests.RequestException:
    """The exception requests raises for a refused connection, taken from a real one (before any mock is active)."""
    try:
        with refusing_url() as url:
            requests.post(f"{url}/api/v1/repos/acme/widgets/issues", timeout=2)
    except requests.RequestException as exc:
        return exc
    raise AssertionError("the closed port accepted a connection")


def test_a_create_gitea_is_down_for_says_nothing_was_sent(
    refused: requests.RequestException, mocked: responses.RequestsMock
) -> None:
    """Gitea went down between the reads and the POST: "not sent", never "sent but the answer was lost"."""
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(f"{API}/repos/acme/widgets/issues", json=[])
    mocked.post(f"{API}/repos/acme/widgets/issues", body=refused)
    deps = deps_for(ROOT)
    text = failed(issue_create.TOOL.call(deps, {"owner": "acme", "name": "widgets", "title": "t", "body": "b"}))
    assert text == (
        "Cannot reach Gitea at https://gitea.test (connection refused). Nothing was sent, so nothing changed. "
        "Nothing listens on port 443 of gitea.test: start Gitea, or correct the port in GITEA_URL."
    )
    assert len([c for c in mocked.calls if c.request.method == "GET" and "/issues" in (c.request.url or "")]) == 1


def test_an_unknown_assignee_is_told_without_a_second_look(mocked: responses.RequestsMock, monkeypatch: Any) -> None:
    """Gitea's own 500 (its error body) is settled: one read shows nothing changed, no wait for a late commit."""
    monkeypatch.setattr(writes, "RECHECK_AFTER", 30)  # a second look would hang the test
    mocked.get(f"{API}/repos/acme/widgets/issues/7", json=issue(7, labels=[LABELS[0]]))
    mocked.patch(f"{API}/repos/acme/widgets/issues/7", status=500, json={"message": "", "url": "http://x/api/swagger"})
    args = {"owner": "acme", "name": "widgets", "number": 7, "assignees": ["nobody"]}
    assert failed(issue_update.TOOL.call(deps_for(ROOT), args)).startswith("Gitea could not assign 'nobody' (HTTP 500)")


# -- close with a comment: the comment and the state, each answered unclearly -------------------------------------


def _comments_on_3(forge: StandIn) -> list[str]:
    found = forge.store.get_issue("acme", "widgets", 3)
    assert found is not None
    return [c.body for c in forge.store.comments_of(found)]


def _state_of_3(forge: StandIn) -> str:
    found = forge.store.get_issue("acme", "widgets", 3)
    assert found is not None
    return found.state


@pytest.mark.parametrize(("fault", "seen"), UNCLEAR)
def test_a_closing_comment_answered_unclearly_is_found_and_the_issue_closed(
    forge: StandIn, fault: Fault, seen: str
) -> None:
    forge.inject(Fault(**{**fault.__dict__, "method": "POST", "path_contains": "/comments"}))
    text, data = ok(_update(forge, state="closed", comment="closed behind a proxy"))
    assert text.splitlines()[0].startswith("acme/widgets#3 updated (comment, state)")
    assert text.splitlines()[-1].endswith("posted (Gitea's answer was lost; found it by looking it up)")
    assert _comments_on_3(forge).count("closed behind a proxy") == 1 and _state_of_3(forge) == "closed"
    _, again = ok(_update(forge, state="closed", comment="closed behind a proxy"))  # the agent retries
    assert again["outcome"] == "unchanged" and again["comment_url"] == data["comment_url"]
    assert _comments_on_3(forge).count("closed behind a proxy") == 1


def test_a_close_answered_unclearly_after_applying_counts(forge: StandIn) -> None:
    forge.inject(Fault("html_error", status=502, committed=True, method="PATCH", path_contains="/issues/3"))
    text, data = ok(_update(forge, state="closed", comment="closing once"))
    assert text.splitlines()[0].startswith("acme/widgets#3 updated (comment, state)") and data["state"] == "closed"
    assert data["warnings"] == [
        "Gitea's answer to the change of state did not come through; the issue read again shows it applied."
    ]


def test_a_close_not_applied_after_the_comment_says_the_comment_landed(forge: StandIn) -> None:
    forge.inject(Fault("html_error", status=502, method="PATCH", path_contains="/issues/3"))
    text = failed(_update(forge, state="closed", comment="closing, the proxy says no"))
    issue3 = forge.store.get_issue("acme", "widgets", 3)
    assert issue3 is not None
    posted = forge.store.comments_of(issue3)[-1]
    assert text == (
        f"The comment was posted ({forge.url}/acme/widgets/issues/3#issuecomment-{posted.id}), but the change of "
        "state is not applied: Gitea's answer did not come through: PATCH /repos/acme/widgets/issues/3 was "
        "answered with a server error (HTTP 502), and the issue read again does not show it. Calling issue_update "
        "again is safe: it sends only what is not yet as asked."
    )
    assert _state_of_3(forge) == "open" and posted.body == "closing, the proxy says no"
    _, retried = ok(_update(forge, state="closed", comment="closing, the proxy says no"))
    assert retried["state"] == "closed" and _comments_on_3(forge).count("closing, the proxy says no") == 1
