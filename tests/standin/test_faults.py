"""Injected faults: each kind, and which requests a fault applies to."""

from __future__ import annotations

import time

import pytest
import requests

from gitea_mcp.standin import Fault
from tests.standin.conftest import Client

ISSUES = "/repos/acme/widgets/issues"
NEW_ISSUE = {"title": "Written while the forge misbehaves"}


def _issue_count(fresh: Client) -> int:
    return len(fresh.standin.store.issues)


@pytest.mark.parametrize(("status", "retry_after"), [(500, None), (502, None), (503, 7), (429, 30)])
def test_status_answers_gitea_json_without_performing(fresh: Client, status: int, retry_after: int | None) -> None:
    before = _issue_count(fresh)
    fresh.standin.inject(Fault("status", status=status, retry_after=retry_after))
    response = fresh.call("POST", ISSUES, json=NEW_ISSUE)
    assert response.status_code == status
    assert response.json() == {"message": "", "url": f"{fresh.standin.url}/api/swagger"}
    assert response.headers.get("Retry-After") == (str(retry_after) if retry_after else None)
    assert _issue_count(fresh) == before
    assert fresh.call("POST", ISSUES, json=NEW_ISSUE).status_code == 201  # times=1: the next one goes through


def test_delay_then_normal(fresh: Client) -> None:
    fresh.standin.inject(Fault("delay", seconds=0.3))
    started = time.perf_counter()
    response = fresh.get(ISSUES)
    assert time.perf_counter() - started >= 0.3
    assert response.status_code == 200 and "X-Total-Count" in response.headers


def test_drop_closes_without_answer_and_without_performing(fresh: Client) -> None:
    before = _issue_count(fresh)
    fresh.standin.inject(Fault("drop", method="POST"))
    with pytest.raises(requests.ConnectionError):
        fresh.call("POST", ISSUES, json=NEW_ISSUE)
    assert _issue_count(fresh) == before
    assert fresh.get(ISSUES).status_code == 200  # a new connection works


def test_commit_then_drop_performs_the_write(fresh: Client) -> None:
    before = _issue_count(fresh)
    fresh.standin.inject(Fault("commit_then_drop", method="POST", path_contains="/issues"))
    with pytest.raises(requests.ConnectionError):
        fresh.call("POST", ISSUES, json=NEW_ISSUE)
    assert _issue_count(fresh) == before + 1
    assert fresh.json(ISSUES, limit=1)[0]["title"] == NEW_ISSUE["title"]


def test_malformed_json(fresh: Client) -> None:
    fresh.standin.inject(Fault("malformed_json"))
    response = fresh.get(ISSUES)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("application/json")
    with pytest.raises(requests.JSONDecodeError):
        response.json()


@pytest.mark.parametrize(("status", "title"), [(502, "502 Bad Gateway"), (504, "504 Gateway Timeout")])
def test_html_error_page_from_a_proxy(fresh: Client, status: int, title: str) -> None:
    fresh.standin.inject(Fault("html_error", status=status))
    response = fresh.get(ISSUES)
    assert response.status_code == status
    assert response.headers["Content-Type"] == "text/html"
    assert f"<title>{title}</title>" in response.text and "nginx" in response.text


def test_strip_headers_keeps_the_body(fresh: Client) -> None:
    fresh.standin.inject(Fault("strip_headers"))
    stripped = fresh.get(ISSUES, limit=5)
    assert "X-Total-Count" not in stripped.headers and "Link" not in stripped.headers
    assert len(stripped.json()) == 5
    assert "X-Total-Count" in fresh.get(ISSUES, limit=5).headers


def test_a_fault_applies_only_to_matching_requests_and_only_times_times(fresh: Client) -> None:
    fresh.standin.inject(Fault("status", status=503, method="GET", path_contains="/comments", times=2))
    assert fresh.get(ISSUES).status_code == 200  # path does not match
    assert fresh.call("POST", f"{ISSUES}/1/comments", json={"body": "still fine"}).status_code == 201  # method
    assert fresh.get(f"{ISSUES}/1/comments").status_code == 503
    assert fresh.get(f"{ISSUES}/1/comments").status_code == 503
    assert fresh.get(f"{ISSUES}/1/comments").status_code == 200


def test_faults_queue_in_order_and_clear(fresh: Client) -> None:
    fresh.standin.inject(Fault("status", status=502))
    fresh.standin.inject(Fault("status", status=503))
    assert [fresh.get("/version").status_code for _ in range(3)] == [502, 503, 200]
    fresh.standin.inject(Fault("status", status=500, times=5))
    fresh.standin.clear_faults()
    assert fresh.get("/version").status_code == 200


def test_faulted_requests_are_recorded(fresh: Client) -> None:
    fresh.standin.inject(Fault("drop"))
    with pytest.raises(requests.ConnectionError):
        fresh.get(ISSUES)
    assert [r.path for r in fresh.standin.requests] == [f"/api/v1{ISSUES}"]


def test_the_callers_fault_object_is_not_consumed(fresh: Client) -> None:
    fault = Fault("status", status=503, times=1)
    fresh.standin.inject(fault)
    fresh.get("/version")
    assert fault.times == 1
