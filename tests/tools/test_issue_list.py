"""issue_list against a mocked Gitea: the seed's table (happy, empty, allowlist, state, label, since) and the traps."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
import responses

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_list
from tests.support.gitea_json import (
    API,
    LABELS,
    MILESTONES,
    api_error,
    issue,
    label,
    milestone,
    org_label,
    unknown_user_404,
)
from tests.support.mocks import optional, refused_connection, sent_params
from tests.support.results import failed, ok, rows_of

ISSUES = f"{API}/repos/acme/widgets/issues"
LABELS_URL = f"{API}/repos/acme/widgets/labels"
MILESTONES_URL = f"{API}/repos/acme/widgets/milestones"
SEARCH = f"{API}/repos/issues/search"
ORG_LABELS = f"{API}/orgs/acme/labels"
NO_ORG_SCOPE = "token does not have at least one of required scope(s), required=[read:organization], token scope=x"
HELP = label("help, wanted", 20)
TRIAGE = org_label("triage", 40)


def page_of(n: int, start: int = 100, **kw: Any) -> list[dict[str, Any]]:
    return [issue(start - i, f"Issue number {start - i}", **kw) for i in range(n)]


def run(deps: Deps, **kw: Any) -> Any:
    return issue_list.TOOL.call(deps, {"owner": kw.pop("owner", "acme"), "name": kw.pop("name", "widgets"), **kw})


@pytest.mark.parametrize(
    ("args", "expected_params"),
    [
        pytest.param({}, {"state": "open", "type": "issues", "page": "1", "limit": "30"}, id="defaults-exclude-prs"),
        pytest.param({"state": "closed"}, {"state": "closed", "type": "issues"}, id="state-closed"),
        pytest.param({"state": "all"}, {"state": "all"}, id="state-all"),
        pytest.param({"type": "pulls"}, {"type": "pulls"}, id="pulls"),
        pytest.param({"since": "2026-11-01"}, {"since": "2026-11-01T00:00:00Z"}, id="since-date"),
        pytest.param({"since": "2026-11-01T08:00:00+02:00"}, {"since": "2026-11-01T06:00:00Z"}, id="since-rfc3339"),
        pytest.param({"before": "2026-11-01T08:00:00Z"}, {"before": "2026-11-01T07:59:59Z"}, id="before"),
        pytest.param({"created_by": "alice"}, {"created_by": "alice"}, id="created-by"),
        pytest.param(
            {"assigned_by": "bob", "mentioned_by": "carol"}, {"assigned_by": "bob", "mentioned_by": "carol"}, id="users"
        ),
        pytest.param({"page": 3, "limit": 10}, {"page": "3", "limit": "10"}, id="paging"),
        pytest.param({"owner": "ACME"}, {"state": "open"}, id="owner-case-insensitive"),
    ],
)
def test_request_sent(
    mocked: responses.RequestsMock, deps: Deps, args: dict[str, Any], expected_params: dict[str, str]
) -> None:
    owner = args.get("owner", "acme")
    mocked.get(f"{API}/repos/{owner}/widgets/issues", json=page_of(2), headers={"X-Total-Count": "2"})
    ok(run(deps, **args))
    assert len(mocked.calls) == 1, "a plain listing is one request"
    params = sent_params(mocked)
    assert params.items() >= expected_params.items()


def test_type_all_sends_no_type(mocked: responses.RequestsMock, deps: Deps) -> None:
    # Gitea mixes issues and PRs exactly when `type` is omitted.
    mocked.get(ISSUES, json=[issue(2, pull=True), issue(1)], headers={"X-Total-Count": "2"})
    text, data = ok(run(deps, type="all"))
    assert "type" not in sent_params(mocked)
    assert [row["is_pull"] for row in rows_of(data)] == [True, False]
    assert "#2 (PR)" in text


def test_happy_path_text_and_structure(mocked: responses.RequestsMock, deps: Deps) -> None:
    rows = [
        issue(12, "Crash on login", labels=LABELS[:2], assignees=["bob"], comments=3),
        issue(11, "Title with\nnewline", created="2025-12-01T00:00:00Z", updated="2026-01-02T00:00:00Z"),
    ]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "42", "Link": f'<{ISSUES}?page=2>; rel="next"'})
    text, data = ok(run(deps, limit=2))
    lines = text.splitlines()
    assert lines[0] == "acme/widgets issues (state=open): 42 matches, showing 1–2"
    assert "#12 Crash on login [bug,ui] @bob 3c 2026-11-20/11-28" in lines
    assert '#11 "Title with\\nnewline" 2025-12-01/2026-01-02' in lines
    assert "help: web URL: https://gitea.test/acme/widgets/issues/<number>" in lines
    assert "help: next page: issue_list owner=acme name=widgets limit=2 page=2" in lines
    assert "https://gitea.test/acme/widgets/issues/12" not in text, "no per-row URL"
    assert "Steps to reproduce" not in text, "no bodies in lists"
    assert data["total"] == 42 and data["page"] == 1 and data["limit"] == 2 and data["has_more"] is True
    # The card's row, as sent: nine keys, the issue's own web page among them; no PR marker where no PR can be listed.
    assert data["issues"][0] == {
        "number": 12,
        "title": "Crash on login",
        "state": "open",
        "labels": ["bug", "ui"],
        "assignees": ["bob"],
        "created_at": "2026-11-20T09:00:00Z",
        "updated_at": "2026-11-28T09:00:00Z",
        "comments": 3,
        "html_url": "https://gitea.test/acme/widgets/issues/12",
    }
    assert list(data) == ["issues", "total", "page", "limit", "has_more"]


@pytest.mark.parametrize(
    ("kind", "marks"),
    [
        pytest.param("issues", [None, None], id="issues-no-marker"),
        pytest.param("pulls", [True, True], id="pulls-marked"),
        pytest.param("all", [True, False], id="all-marked-each"),
    ],
)
def test_a_pull_request_marker_only_where_type_lets_them_in(
    mocked: responses.RequestsMock, deps: Deps, kind: str, marks: list[bool | None]
) -> None:
    served = [issue(2, pull=kind != "issues"), issue(1, pull=kind == "pulls")]
    mocked.get(ISSUES, json=served, headers={"X-Total-Count": "2"})
    _, data = ok(run(deps, type=kind))
    assert [row.get("is_pull") for row in data["issues"]] == marks
    assert ["is_pull" in row for row in data["issues"]] == [mark is not None for mark in marks], "absent, never null"
    kinds = ["pulls" if mark else "issues" for mark in marks]
    urls = [f"https://gitea.test/acme/widgets/{kind}/{n}" for kind, n in zip(kinds, (2, 1), strict=True)]
    assert [row["html_url"] for row in data["issues"]] == urls


def test_empty_result_is_definitive(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, json=[], headers={"X-Total-Count": "0"})
    text, data = ok(run(deps))
    assert "0 matches" in text.splitlines()[0]
    assert "widen them" in text
    assert data == {"issues": [], "total": 0, "page": 1, "limit": 30, "has_more": False}


@pytest.mark.parametrize(
    ("headers", "total", "has_more", "phrase"),
    [
        pytest.param({"X-Total-Count": "2"}, 2, False, "2 matches, showing 1–2", id="total-present-last-page"),
        pytest.param({"X-Total-Count": "5"}, 5, True, "5 matches, showing 1–2", id="total-present-more"),
        pytest.param({}, None, True, "more may follow on the next page", id="no-total-no-link-full-page"),
        pytest.param({"Link": f'<{ISSUES}?page=2>; rel="next"'}, None, True, "more may follow", id="absent-link-next"),
        pytest.param({"Link": f'<{ISSUES}?page=1>; rel="first"'}, None, False, "no more pages", id="absent-link-last"),
        pytest.param({"X-Total-Count": "-7"}, None, True, "more may follow", id="negative-total-unknown"),
    ],
)
def test_total_header(
    mocked: responses.RequestsMock, deps: Deps, headers: dict[str, str], total: int | None, has_more: bool, phrase: str
) -> None:
    mocked.get(ISSUES, json=page_of(2), headers=headers)
    text, data = ok(run(deps, limit=2))
    assert data["total"] == total and data["has_more"] is has_more
    assert phrase in text and "-7" not in text


@pytest.mark.parametrize("asked", [0, -5])
def test_limit_below_one_is_refused_before_a_request(deps: Deps, asked: int) -> None:
    assert failed(run(deps, limit=asked)) == f"limit={asked!r} is not valid; use a whole number from 1 to 50."


@pytest.mark.parametrize(
    ("asked", "served", "note", "next_limit"),
    [
        pytest.param(51, 50, "limit=51 is capped at 50, the most per page; pages are 50.", 50, id="just-over"),
        pytest.param(100, 50, "limit=100 is capped at 50, the most per page; pages are 50.", 50, id="hundred"),
        pytest.param(10**9, 50, "limit=1000000000 is capped at 50, the most per page; pages are 50.", 50, id="huge"),
        pytest.param(
            100,
            20,
            "limit=100 is capped at 50, and this server serves at most 20 per page (its MAX_RESPONSE_ITEMS); "
            "pages are 20.",
            20,
            id="server-serves-fewer",
        ),
    ],
)
def test_limit_above_the_cap_is_capped_and_said(
    mocked: responses.RequestsMock, deps: Deps, asked: int, served: int, note: str, next_limit: int
) -> None:
    """A larger limit costs no round trip: the page is served at the cap, the answer says so, and the next-page hint
    carries the limit really served."""
    mocked.get(ISSUES, json=page_of(served), headers={"X-Total-Count": "120"})
    text, data = ok(run(deps, limit=asked))
    assert sent_params(mocked)["limit"] == "50"
    assert data["limit"] == next_limit and len(rows_of(data)) == served
    assert f"note: {note}" in text.splitlines()
    assert f"help: next page: issue_list owner=acme name=widgets limit={next_limit} page=2" in text.splitlines()


def test_limit_at_the_bounds(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, json=page_of(1), headers={"X-Total-Count": "1"})
    text, data = ok(run(deps, limit=50))
    assert sent_params(mocked)["limit"] == "50" and data["limit"] == 50
    assert "capped" not in text


def test_label_filter_checked_then_sent(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(ISSUES, json=page_of(1, labels=LABELS), headers={"X-Total-Count": "1"})
    text, _ = ok(run(deps, labels="bug, good first issue"))
    list_call = next(c for c in mocked.calls if "/issues" in (c.request.url or ""))
    assert "labels=bug%2Cgood+first+issue" in (list_call.request.url or "")
    assert "labels=bug,good first issue" in text.splitlines()[0]
    # A second filtered listing uses the cached labels: one request.
    before = len(mocked.calls)
    ok(run(deps, labels="bug"))
    assert len(mocked.calls) == before + 1


def test_unknown_label_is_refused_with_the_valid_names(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(ISSUES, json=page_of(30), headers={"X-Total-Count": "300"})  # what Gitea would wrongly return
    mocked.get(ORG_LABELS, json=[], headers={"X-Total-Count": "0"})  # nor is it the organisation's
    optional(mocked).get(SEARCH, json=[], headers={"X-Total-Count": "0"})
    text = failed(run(deps, labels="bug,bugz"))
    assert "'bugz' does not exist in acme/widgets" in text
    assert "'bug', 'good first issue', 'ui'" in text


def test_labels_fetched_across_pages(mocked: responses.RequestsMock, deps: Deps) -> None:
    many = [label(f"l{i}", i) for i in range(60)]
    mocked.get(
        LABELS_URL,
        json=many[:50],
        headers={"X-Total-Count": "60"},
        match=[responses.matchers.query_param_matcher({"page": "1", "limit": "50"})],
    )
    mocked.get(
        LABELS_URL,
        json=many[50:],
        headers={"X-Total-Count": "60"},
        match=[responses.matchers.query_param_matcher({"page": "2", "limit": "50"})],
    )
    mocked.get(ISSUES, json=[], headers={"X-Total-Count": "0"})
    ok(run(deps, labels="l55"))


@pytest.mark.parametrize(("wanted", "good"), [("v1.1", True), ("6", True), ("v9", False)])
def test_milestone_filter(mocked: responses.RequestsMock, deps: Deps, wanted: str, good: bool) -> None:
    mocked.get(MILESTONES_URL, json=MILESTONES, headers={"X-Total-Count": "2"})
    mocked.get(ISSUES, json=[], headers={"X-Total-Count": "0"})
    result = run(deps, milestones=wanted)
    if good:
        ok(result)
        assert len(list_requests(mocked)) == 1, "a title or an id goes as given, in the same round as the check"
    else:
        assert "'v9' does not exist" in failed(result) and "'v1.0', 'v1.1'" in failed(result)


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        pytest.param({"state": "opened"}, "state='opened' is not valid; use one of: open, closed, all", id="state"),
        pytest.param({"type": "prs"}, "type='prs' is not valid; use one of: issues, pulls, all", id="type"),
        pytest.param({"since": "last week"}, "since='last week' is not a valid date or time", id="since"),
        pytest.param({"before": "2026-13-45"}, "before='2026-13-45' is not a valid date or time", id="before"),
        pytest.param({"owner": "other"}, "owner 'other' is not allowed (GITEA_ALLOWED_OWNERS=acme)", id="allowlist"),
        pytest.param({"name": "../../other/secret"}, "is not a valid Gitea name", id="traversal"),
        pytest.param({"owner": ".."}, "is not a valid Gitea name", id="dotdot-owner"),
        pytest.param({"name": "a/b"}, "is not a valid Gitea name", id="slash"),
        pytest.param({"name": "%2e%2e"}, "is not a valid Gitea name", id="percent"),
        pytest.param({"created_by": "../admin"}, "created_by '../admin' is not a valid Gitea name", id="user-dots"),
        pytest.param({"assigned_by": "a%2Fb"}, "assigned_by 'a%2Fb' is not a valid Gitea name", id="user-encoded"),
        pytest.param({"mentioned_by": "x" * 500}, "mentioned_by 'xxxxxxxx", id="user-long"),
        pytest.param(
            {"state": "o" * 5000}, "state='oooooooooooooooooooooooooooooooooooooooo…' is not valid", id="echo-cut"
        ),
    ],
)
def test_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps, args: dict[str, Any], phrase: str
) -> None:
    assert phrase in failed(run(deps, **args))
    assert len(mocked.calls) == 0, "nothing may reach Gitea"


@pytest.mark.parametrize("message", ["not found", "The target couldn't be found."])
@pytest.mark.parametrize("key", ["created_by", "assigned_by", "mentioned_by"])
def test_unknown_user_is_not_reported_as_missing_repo(
    mocked: responses.RequestsMock, deps: Deps, key: str, message: str
) -> None:
    # Told apart from the 404's own text: no request needing read:user or read:repository.
    mocked.get(ISSUES, status=404, json=unknown_user_404("Nobody", message))
    text = failed(run(deps, **{key: "nobody", "created_by": "alice"} if key != "created_by" else {key: "nobody"}))
    assert text == f"{key}='Nobody': no Gitea user by that name; check the username."
    assert len(mocked.calls) == 1


def test_missing_repo(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, status=404, json=api_error("The target couldn't be found."))
    assert "repository acme/widgets not found" in failed(run(deps))


def test_missing_repo_with_a_user_filter(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, status=404, json=api_error("The target couldn't be found."))
    mocked.get(f"{API}/repos/acme/widgets/labels", status=404, json=api_error("The target couldn't be found."))
    assert "repository acme/widgets not found" in failed(run(deps, created_by="alice"))


@pytest.mark.parametrize(
    ("status", "body", "phrase"),
    [
        (401, api_error("token is required"), "Set GITEA_TOKEN"),
        (
            403,
            api_error(
                "token does not have at least one of required scope(s), required=[read:issue], token scope=read:user"
            ),
            "The token lacks read:issue, which issue_list needs (403; it has read:user)",
        ),
        (422, api_error("invalid since"), "Gitea said: invalid since"),
        (500, api_error(""), "server error (500)"),
        (502, None, "server error (502)"),
    ],
)
def test_gitea_errors(mocked: responses.RequestsMock, deps: Deps, status: int, body: Any, phrase: str) -> None:
    mocked.get(ISSUES, status=status, json=body)
    text = failed(run(deps))
    assert phrase in text
    assert not text.startswith("HTTP"), "never a bare status line"


@pytest.mark.parametrize(
    ("exc", "phrase"),
    [
        (requests.ConnectTimeout(), "Cannot reach Gitea at https://gitea.test (no connection within 5s"),
        (refused_connection(), "Cannot reach Gitea at https://gitea.test (connection refused)."),
        (requests.ReadTimeout(), "Gitea did not answer GET /repos/acme/widgets/issues within 5s"),
        (requests.ConnectionError(), "The connection to Gitea at https://gitea.test broke off during GET"),
    ],
)
def test_transport_errors(mocked: responses.RequestsMock, deps: Deps, exc: Exception, phrase: str) -> None:
    mocked.get(ISSUES, body=exc)
    assert phrase in failed(run(deps))


def test_redirect_is_not_followed(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, status=301, headers={"Location": f"{API}/repos/acme/gizmos/issues?state=open"})
    text = failed(run(deps))
    assert "owner=acme name=gizmos" in text
    assert len(mocked.calls) == 1


def test_html_instead_of_json(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, body="<html><body>Login</body></html>", content_type="text/html")
    assert "an HTML page instead of JSON" in failed(run(deps))


def test_instance_with_a_smaller_page_size(mocked: responses.RequestsMock, deps: Deps) -> None:
    """MAX_RESPONSE_ITEMS=20 on the instance: Gitea silently serves 20 of the 30 asked; pages count in 20s."""
    mocked.get(ISSUES, json=page_of(20), headers={"X-Total-Count": "95", "Link": f'<{ISSUES}?page=2>; rel="next"'})
    text, data = ok(run(deps))
    assert data["limit"] == 20 and data["has_more"] is True
    assert "95 matches, showing 1–20" in text and "limit=30, but this server serves at most 20 per page" in text


def test_rows_of_another_repository_are_never_shown(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(ISSUES, json=[issue(1), issue(2, repo="gadgets")], headers={"X-Total-Count": "2"})
    assert "issues of 'acme/gadgets', which is not where this call asked (acme/widgets)" in failed(run(deps))


def test_never_more_rows_than_asked(mocked: responses.RequestsMock, deps: Deps) -> None:
    """A server or proxy that ignores `limit` cannot flood the agent's context."""
    mocked.get(ISSUES, json=[issue(n) for n in range(500, 0, -1)], headers={"X-Total-Count": "500"})
    _, data = ok(run(deps, limit=5))
    assert [row["number"] for row in rows_of(data)] == [500, 499, 498, 497, 496]


def test_whitespace_in_titles_and_label_names_is_kept_exactly(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Gitea keeps runs of spaces (and a label name's trailing space): the structured face holds the exact text, the
    text face quotes it where showing it bare would not be exact, so a copied title rewrites nothing."""
    rows = [issue(5, "Double  spaced   title", labels=[label("needs  triage ", 9), label("bug", 1)])]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "1"})
    text, data = ok(run(deps))
    assert rows_of(data)[0]["title"] == "Double  spaced   title"
    assert rows_of(data)[0]["labels"] == ["needs  triage ", "bug"]
    assert '#5 "Double  spaced   title" ["needs  triage ",bug] 2026-11-20/11-28' in text.splitlines()


# -- names Gitea's list cannot take: a comma inside, an organisation's label, a stale cache (issue 19) ---------


def list_requests(rsps: responses.RequestsMock) -> list[dict[str, str]]:
    from urllib.parse import parse_qsl, urlsplit

    urls = [c.request.url or "" for c in rsps.calls]
    return [dict(parse_qsl(urlsplit(u).query)) for u in urls if urlsplit(u).path.endswith("/widgets/issues")]


def test_a_label_name_with_a_comma_is_filtered_here_by_id(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Gitea splits `labels` on commas: "help, wanted" would filter by 'help' or by nothing (verified, 1.25)."""
    mocked.get(LABELS_URL, json=[*LABELS, label("help", 21), HELP], headers={"X-Total-Count": "5"})
    rows = [issue(3, labels=[HELP]), issue(2, labels=[label("help", 21)]), issue(1)]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "3"})
    text, data = ok(run(deps, labels=["help, wanted"], state="all"))
    assert [row["number"] for row in rows_of(data)] == [3] and data["total"] == 1
    assert all("help" not in params.get("labels", "") for params in list_requests(mocked)[-1:])
    assert text.splitlines()[0].startswith('acme/widgets issues (state=all labels=["help, wanted"]): 1 match')


def test_a_milestone_title_with_a_comma_is_sent_as_its_id(mocked: responses.RequestsMock, deps: Deps) -> None:
    final = milestone("v3, final", 7)
    mocked.get(MILESTONES_URL, json=[*MILESTONES, milestone("v3", 8), final], headers={"X-Total-Count": "4"})
    mocked.get(ISSUES, json=[issue(3, milestone_=final)], headers={"X-Total-Count": "1"})
    _, data = ok(run(deps, milestones=["v3, final"], state="all"))
    assert list_requests(mocked)[-1]["milestones"] == "7" and data["total"] == 1


def test_next_page_hints_read_back_to_the_same_filter(mocked: responses.RequestsMock, deps: Deps) -> None:
    import shlex

    final = milestone("v3, final", 7)
    mocked.get(LABELS_URL, json=[*LABELS, HELP], headers={"X-Total-Count": "4"})
    mocked.get(MILESTONES_URL, json=[final], headers={"X-Total-Count": "1"})
    rows = [issue(n, labels=[HELP], milestone_=final) for n in range(40, 0, -1)]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "40"})
    text, _ = ok(run(deps, labels=["help, wanted"], milestones=["v3, final"], limit=10))
    hint = next(line for line in text.splitlines() if "next page:" in line).split("issue_list ", 1)[1]
    args = dict(part.split("=", 1) for part in shlex.split(hint))
    parsed = issue_list.ListArgs.model_validate(args | {"page": int(args["page"]), "limit": int(args["limit"])})
    assert parsed.labels == ["help, wanted"] and parsed.milestones == ["v3, final"]


def org_scope_403(rsps: responses.RequestsMock) -> None:
    rsps.get(ORG_LABELS, status=403, json=api_error(NO_ORG_SCOPE))


def test_an_organisation_label_is_found_on_issues_and_filtered_here(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Gitea's repository list knows only the repository's labels (verified, 1.25): `labels=triage` lists all."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(SEARCH, json=[issue(9, repo="gadgets", labels=[TRIAGE])], headers={"X-Total-Count": "1"})
    rows = [issue(5, labels=[TRIAGE, LABELS[0]]), issue(4), issue(3, labels=[TRIAGE])]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "3"})
    text, data = ok(run(deps, labels="triage", state="all"))
    assert [row["number"] for row in rows_of(data)] == [5, 3] and data["total"] == 2
    assert "2 matches" in text.splitlines()[0]
    assert sent_params(mocked, path_end="/issues/search")["labels"] == "triage"
    # Read a moment ago, the repository's labels count as fresh: not read twice.
    assert sum((c.request.url or "").startswith(LABELS_URL) for c in mocked.calls) == 1


def test_an_organisation_label_and_a_repository_label(mocked: responses.RequestsMock, deps: Deps) -> None:
    """The repository's label still goes to Gitea; only the organisation's is filtered here."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(SEARCH, json=[issue(5, labels=[TRIAGE])], headers={"X-Total-Count": "1"})
    rows = [issue(5, labels=[TRIAGE, LABELS[0]]), issue(2, labels=[LABELS[0]])]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "2"})
    _, data = ok(run(deps, labels="bug,triage"))
    assert [row["number"] for row in rows_of(data)] == [5]
    assert list_requests(mocked)[-1]["labels"] == "bug"


def test_filtering_here_is_bounded(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(SEARCH, json=[issue(5, labels=[TRIAGE])], headers={"X-Total-Count": "1"})
    mocked.get(ISSUES, json=page_of(50), headers={"X-Total-Count": "5000"})
    text = failed(run(deps, labels="triage", state="all"))
    assert "'triage' is an organisation label, which Gitea's repository list cannot filter by" in text
    assert "5000" in text and "issue_search owner=acme query='label:triage'" in text


def test_a_label_no_issue_shows_is_refused(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(SEARCH, json=[], headers={"X-Total-Count": "0"})
    optional(mocked).get(ISSUES, json=page_of(30), headers={"X-Total-Count": "300"})
    text = failed(run(deps, labels="triaje"))
    assert "'triaje' does not exist in acme/widgets" in text and "'bug', 'good first issue', 'ui'" in text


WIDE = org_label("org, wide", 41)


def test_an_organisation_label_with_a_comma_is_found_on_the_repositorys_issues(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    """Gitea's search splits `labels` on commas and looks each part up among every label on the server: `org` finds
    another owner's label, `wide` none, so the filter is gone (verified, 1.25.4). No search is sent for it; the
    repository's own issues show the label, and it is filtered here by id."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    rows = [issue(5, labels=[WIDE]), issue(4, labels=[org_label("org", 42)]), issue(3, labels=[WIDE, LABELS[0]])]
    mocked.get(ISSUES, json=rows, headers={"X-Total-Count": "3"})
    text, data = ok(run(deps, labels=["org, wide"], state="all"))
    assert [row["number"] for row in rows_of(data)] == [5, 3] and data["total"] == 2
    assert not any((c.request.url or "").startswith(SEARCH) for c in mocked.calls)
    assert all("labels" not in params for params in list_requests(mocked))
    assert text.splitlines()[0].startswith('acme/widgets issues (state=all labels=["org, wide"]): 2 matches')


def test_an_organisation_label_with_a_comma_no_issue_here_carries_is_refused(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(ISSUES, json=[issue(4, labels=[org_label("org", 42)])], headers={"X-Total-Count": "1"})
    text = failed(run(deps, labels=["org, wide"]))
    assert "'org, wide' does not exist in acme/widgets" in text
    assert "Nor is it an organisation label any issue of acme/widgets carries" in text


def test_looking_for_an_organisation_label_with_a_comma_is_bounded(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(ISSUES, json=page_of(50), headers={"X-Total-Count": "5000"})
    text = failed(run(deps, labels=["org, wide"]))
    assert "'org, wide'" in text and "5000" in text and "read:organization" in text
    assert len(list_requests(mocked)) == 1, "one page shows the repository is too large to look through"


def test_a_label_made_after_the_cache_was_filled_is_found(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(ISSUES, json=[], headers={"X-Total-Count": "0"})
    ok(run(deps, labels="bug"))  # the catalogue is cached now
    mocked.replace(responses.GET, LABELS_URL, json=[*LABELS, label("fresh", 30)], headers={"X-Total-Count": "4"})
    mocked.replace(responses.GET, ISSUES, json=[issue(8, labels=[label("fresh", 30)])], headers={"X-Total-Count": "1"})
    _, data = ok(run(deps, labels="fresh"))
    assert data["total"] == 1


def test_a_renamed_label_never_widens_the_filter(mocked: responses.RequestsMock, deps: Deps) -> None:
    """The cache still knows 'bug'; Gitea no longer does and lists everything: that answer must not be shown."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(ISSUES, json=[issue(2, labels=[LABELS[0]])], headers={"X-Total-Count": "1"})
    ok(run(deps, labels="bug"))
    defect = label("defect", 1)
    mocked.replace(responses.GET, LABELS_URL, json=[defect, *LABELS[1:]], headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(SEARCH, json=[], headers={"X-Total-Count": "0"})
    mocked.replace(responses.GET, ISSUES, json=page_of(30, labels=[defect]), headers={"X-Total-Count": "142"})
    text = failed(run(deps, labels="bug"))
    assert "'bug' does not exist in acme/widgets" in text and "'defect'" in text


def test_a_renamed_milestone_never_widens_the_filter(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(MILESTONES_URL, json=MILESTONES, headers={"X-Total-Count": "2"})
    mocked.get(ISSUES, json=[issue(2, milestone_=MILESTONES[1])], headers={"X-Total-Count": "1"})
    ok(run(deps, milestones="v1.1"))
    renamed = milestone("v1.1-final", 6)
    mocked.replace(responses.GET, MILESTONES_URL, json=[MILESTONES[0], renamed], headers={"X-Total-Count": "2"})
    mocked.replace(responses.GET, ISSUES, json=page_of(30, milestone_=renamed), headers={"X-Total-Count": "142"})
    text = failed(run(deps, milestones="v1.1"))
    assert "'v1.1' does not exist in acme/widgets" in text and "'v1.1-final'" in text


def test_a_filter_gitea_keeps_ignoring_is_refused(mocked: responses.RequestsMock, deps: Deps) -> None:
    """The names read afresh still match, yet the rows do not carry them: nothing is shown, after one more try."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(ISSUES, json=page_of(30), headers={"X-Total-Count": "142"})
    text = failed(run(deps, labels="bug"))
    assert text.startswith("Gitea ignored the label or milestone filter on acme/widgets twice")
    assert len(list_requests(mocked)) == 2


def test_a_comma_titled_milestone_whose_id_is_another_title_is_refused(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    """Gitea reads a title before an id: sending 7 would filter by the milestone titled '7'."""
    milestones = [milestone("v3, final", 7), milestone("7", 8)]
    mocked.get(MILESTONES_URL, json=milestones, headers={"X-Total-Count": "2"})
    text = failed(run(deps, milestones=["v3, final"]))
    assert "its id 7 is another milestone's title" in text and list_requests(mocked) == []


def every_page(rows: list[dict[str, Any]], headers: dict[str, str]) -> Any:
    """A callback answering every page alike: an upstream that ignores `page`."""
    return lambda request: (200, {"Content-Type": "application/json", **headers}, json.dumps(rows))


def test_a_catalogue_too_big_to_read_is_never_said_to_lack_a_name(mocked: responses.RequestsMock, deps: Deps) -> None:
    """100,000 labels: past the cap, so `label-99999` (which exists) cannot be checked; never "does not exist"."""

    def page(request: Any) -> tuple[int, dict[str, str], str]:
        number = int(dict(parse_qsl(urlsplit(request.url).query))["page"])
        rows = [label(f"label-{i}", i + 1) for i in range((number - 1) * 50, number * 50)]
        return 200, {"X-Total-Count": "100000"}, json.dumps(rows)

    mocked.add_callback(responses.GET, LABELS_URL, callback=page)
    optional(mocked).get(ISSUES, json=page_of(30), headers={"X-Total-Count": "300"})
    optional(mocked).get(ORG_LABELS, json=[], headers={"X-Total-Count": "0"})
    text = failed(run(deps, labels="label-99999"))
    assert "does not exist" not in text
    assert text.startswith("the labels of acme/widgets could not all be read: Gitea counts 100000, more than the 5000")
    assert sum((c.request.url or "").startswith(LABELS_URL) for c in mocked.calls) == 1


def test_a_link_looping_back_to_page_one_is_said_so(mocked: responses.RequestsMock, deps: Deps) -> None:
    """A proxy whose Link always points at page 1: the names are never listed twice, nor is a name refused."""
    headers = {"Link": f'<{LABELS_URL}?page=1>; rel="next"'}
    mocked.add_callback(responses.GET, LABELS_URL, callback=every_page(LABELS, headers))
    optional(mocked).get(ISSUES, json=page_of(30), headers={"X-Total-Count": "300"})
    optional(mocked).get(ORG_LABELS, json=[], headers={"X-Total-Count": "0"})
    text = failed(run(deps, labels="nope"))
    assert "does not exist" not in text and "Labels there" not in text
    assert "the labels of acme/widgets could not all be read" in text and "repeat" in text


def test_issues_filtered_here_are_read_by_the_bounded_pager(mocked: responses.RequestsMock, deps: Deps) -> None:
    """The scan for a label filtered here pages like a catalogue: an upstream that ignores `page` (120 issues
    claimed, the same 50 served each time) is refused, never counted as 150 matches."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    org_scope_403(mocked)
    mocked.get(SEARCH, json=[issue(5, labels=[TRIAGE])], headers={"X-Total-Count": "1"})
    mocked.add_callback(
        responses.GET, ISSUES, callback=every_page(page_of(50, labels=[TRIAGE]), {"X-Total-Count": "120"})
    )
    text = failed(run(deps, labels="triage", state="all"))
    assert "the issues of acme/widgets could not all be read" in text and "repeat" in text
