"""milestone_list against a mocked Gitea: what is sent (state and page always), the rows, paging, the refusals."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import milestone_list
from tests.support.gitea_json import API, ROOT, api_error, milestone
from tests.support.mocks import sent_params
from tests.support.results import failed, ok

URL = f"{API}/repos/acme/widgets/milestones"
DUE = milestone("v1.1", 6, counts=(4, 12), due_on="2026-03-31T23:59:59+01:00")  # a day, in the server's zone
NO_DUE = milestone("v2.0", 7, counts=(0, 0))
CLOSED = milestone("v1.0", 5, "closed", counts=(0, 9), due_on="2025-12-31T23:59:59Z")


def run(deps: Deps, **kw: Any) -> Any:
    return milestone_list.TOOL.call(deps, {"owner": kw.pop("owner", "acme"), "name": kw.pop("name", "widgets"), **kw})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # Gitea lists every milestone without `state`, and all of them whatever `limit` says without `page`.
        pytest.param({}, {"state": "open", "page": "1", "limit": "30"}, id="defaults-sent"),
        pytest.param({"state": "closed"}, {"state": "closed", "page": "1", "limit": "30"}, id="closed"),
        pytest.param({"state": "all", "page": 2, "limit": 10}, {"state": "all", "page": "2", "limit": "10"}, id="all"),
        pytest.param({"limit": 80}, {"state": "open", "page": "1", "limit": "50"}, id="capped"),
    ],
)
def test_request_sent(
    mocked: responses.RequestsMock, deps: Deps, args: dict[str, Any], expected: dict[str, str]
) -> None:
    mocked.get(URL, json=[DUE], headers={"X-Total-Count": "1"})
    ok(run(deps, **args))
    assert sent_params(mocked) == expected


def test_rows_carry_due_day_counts_and_the_web_page(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, json=[DUE, NO_DUE], headers={"X-Total-Count": "2"})
    text, data = ok(run(deps))
    assert data["milestones"] == [
        {"id": 6, "title": "v1.1", "state": "open", "due_on": "2026-03-31", "open_issues": 4, "closed_issues": 12,
         "html_url": f"{ROOT}/acme/widgets/milestone/6"},
        {"id": 7, "title": "v2.0", "state": "open", "due_on": None, "open_issues": 0, "closed_issues": 0,
         "html_url": f"{ROOT}/acme/widgets/milestone/7"},
    ]  # fmt: skip
    assert (data["total"], data["page"], data["limit"], data["has_more"]) == (2, 1, 30, False)
    assert text.splitlines() == [
        "acme/widgets milestones (open): 2 matches, showing 1–2",
        "rows: id title due open/closed issues",
        "6 v1.1 due 2026-03-31 4 open/12 closed",
        "7 v2.0 no due day 0 open/0 closed",
        f"help: web URL: {ROOT}/acme/widgets/milestone/<id>",
        "help: its issues: issue_list owner=acme name=widgets milestones=<id> state=all",
    ]


def test_state_all_marks_each_row(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, json=[CLOSED, DUE], headers={"X-Total-Count": "2"})
    text, _ = ok(run(deps, state="all"))
    assert "5 v1.0 (closed) due 2025-12-31 0 open/9 closed" in text.splitlines()
    assert "6 v1.1 (open) due 2026-03-31 4 open/12 closed" in text.splitlines()


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("Q3", "Q3"),
        ("due soon", '"due soon"'),
        ("v2 (beta)", '"v2 (beta)"'),
        ("3 open", '"3 open"'),
        ("2026-01-01 cut", '"2026-01-01 cut"'),
        ('say "hi"', '"say \\"hi\\""'),
    ],
)
def test_a_title_that_could_pass_for_a_field_is_quoted(
    mocked: responses.RequestsMock, deps: Deps, title: str, shown: str
) -> None:
    mocked.get(URL, json=[milestone(title, 8)], headers={"X-Total-Count": "1"})
    text, _ = ok(run(deps))
    assert f"8 {shown} no due day 1 open/0 closed" in text.splitlines()


def test_more_pages_say_how_to_get_the_next(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, json=[DUE, NO_DUE], headers={"X-Total-Count": "5"})
    text, data = ok(run(deps, state="all", limit=2))
    assert data["has_more"] is True
    assert "acme/widgets milestones (all): 5 matches, showing 1–2" in text
    assert "help: next page: milestone_list owner=acme name=widgets state=all limit=2 page=2" in text


def test_a_server_serving_smaller_pages_is_noticed(mocked: responses.RequestsMock, deps: Deps) -> None:
    """MAX_RESPONSE_ITEMS below the ask: the page is shorter than asked though more follow."""
    mocked.get(URL, json=[DUE, NO_DUE], headers={"X-Total-Count": "5"})
    text, data = ok(run(deps, limit=10))
    assert data["limit"] == 2 and data["has_more"] is True
    assert "note: limit=10, but this server serves at most 2 per page" in text


@pytest.mark.parametrize(
    ("state", "hint"),
    [("open", "help: no open milestones; state=all lists every one."), ("all", None)],
)
def test_none(mocked: responses.RequestsMock, deps: Deps, state: str, hint: str | None) -> None:
    mocked.get(URL, json=[], headers={"X-Total-Count": "0"})
    text, data = ok(run(deps, state=state))
    assert data["milestones"] == [] and data["total"] == 0
    assert text.splitlines() == [f"acme/widgets milestones ({state}): 0 matches", *([hint] if hint else [])]


def test_a_missing_repository_is_named(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, status=404, json=api_error("not found"))
    assert (
        failed(run(deps)) == "repository acme/widgets not found, or this token cannot see it; check the owner and name."
    )


def test_an_owner_outside_the_allowlist_is_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    assert "allow" in failed(run(deps, owner="evil")).lower()
    assert not mocked.calls


def test_a_token_without_the_issue_scope_is_told_what_it_needs(mocked: responses.RequestsMock, deps: Deps) -> None:
    message = "token does not have at least one of required scope(s), required=[read:issue], token scope=read:user"
    mocked.get(URL, status=403, json=api_error(message))
    assert failed(run(deps)).startswith("The token lacks read:issue, which milestone_list needs")
