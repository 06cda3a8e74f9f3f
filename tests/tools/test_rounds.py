"""Every read is one round trip to Gitea, the first call of a session included: the server's release (which decides
how a keyword search is sent) is asked at the same time as the search, never before it; an issue or pull request is
read with its comments, its reviews, its timeline and its dependencies at once, before anyone knows which it is."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_get, issue_search
from tests.support.gitea_json import API, LABELS, api_error, comment, issue, review, review_comment, timeline_entry
from tests.support.results import ok, rows_of
from tests.support.rounds import Rounds, Timed

REPO_ISSUES = f"{API}/repos/acme/widgets/issues"
SEARCH = f"{API}/repos/issues/search"


@pytest.fixture
def gitea(mocked: responses.RequestsMock) -> Rounds:
    return Rounds(mocked)


@pytest.mark.parametrize("release", ["1.25.4", "1.26.0", "12.0.4+gitea-1.22.0"])
@pytest.mark.parametrize(
    ("query", "kw", "url"),
    [
        pytest.param("crash", {"owner": "acme", "name": "widgets"}, REPO_ISSUES, id="keyword-repo"),
        pytest.param("crash", {"owner": "acme"}, SEARCH, id="keyword-owner"),
        pytest.param('"login fails" is:open', {"owner": "acme", "name": "widgets"}, REPO_ISSUES, id="phrase"),
        pytest.param("crash assignee:bob", {"owner": "acme", "name": "widgets"}, REPO_ISSUES, id="keyword-assignee"),
        pytest.param("author:@me crash", {"owner": "acme"}, SEARCH, id="keyword-me"),
    ],
)
def test_the_first_search_of_a_session_is_one_round(
    gitea: Rounds, deps: Deps, release: str, query: str, kw: dict[str, Any], url: str
) -> None:
    gitea.get(f"{API}/version", {"version": release})
    gitea.get(url, [issue(3, author="demo", assignees=["bob"])], total=1)
    if "@me" in query:  # the token's login is known already (a lookup of its own, cached like the release)
        gitea.rsps.get(f"{API}/user", json={"login": "demo", "id": 1})
        deps.catalog.me(deps.client)
    ok(issue_search.TOOL.call(deps, {"query": query, **kw}))
    assert gitea.count == 1, [t.path for t in gitea.seen]
    # The release is cached: the next search asks for it no more.
    seen = len(gitea.seen)
    ok(issue_search.TOOL.call(deps, {"query": query, **kw}))
    assert "/api/v1/version" not in [t.path for t in gitea.seen[seen:]]


def test_labels_checked_and_keywords_searched_in_one_round(gitea: Rounds, deps: Deps) -> None:
    gitea.get(f"{API}/version", {"version": "1.25.4"})
    gitea.get(f"{API}/repos/acme/widgets/labels", LABELS, total=len(LABELS))
    gitea.get(REPO_ISSUES, [issue(3, labels=[x for x in LABELS if x["name"] == "bug"])], total=1)
    ok(issue_search.TOOL.call(deps, {"query": "crash label:bug", "owner": "acme", "name": "widgets"}))
    assert gitea.count == 1, [t.path for t in gitea.seen]


def test_keyword_matches_filtered_here_come_in_at_most_two_rounds(mocked: responses.RequestsMock, deps: Deps) -> None:
    """A server serving 20 a page (MAX_RESPONSE_ITEMS) whose index ignores assignees: after the first round, the
    rest of the keyword matches come in one more, all pages at once, and every match is filtered."""
    from urllib.parse import parse_qsl, urlsplit

    matches = [issue(n, assignees=["bob"] if n % 3 == 0 else []) for n in range(45, 0, -1)]
    gitea = Rounds(mocked)
    gitea.get(f"{API}/version", {"version": "1.25.4"})

    def page(request: Any) -> tuple[int, dict[str, str], str]:
        import json
        import time

        start = time.monotonic()
        time.sleep(gitea.delay)
        asked = dict(parse_qsl(urlsplit(request.url).query))
        number = int(asked["page"])
        rows = [] if "assigned_by" in asked else matches[(number - 1) * 20 : number * 20]
        gitea.seen.append(Timed(urlsplit(request.url).path, start, time.monotonic()))
        return 200, {"X-Total-Count": "0" if "assigned_by" in asked else "45"}, json.dumps(rows)

    mocked.add_callback(responses.GET, REPO_ISSUES, callback=page, content_type="application/json")
    _, data = ok(issue_search.TOOL.call(deps, {"query": "crash assignee:bob", "owner": "acme", "name": "widgets"}))
    assert [hit["number"] for hit in rows_of(data)] == [n for n in range(45, 0, -1) if n % 3 == 0]
    assert gitea.count == 2, [t.path for t in gitea.seen]


ISSUE_7 = f"{REPO_ISSUES}/7"
REVIEWS_7 = f"{API}/repos/acme/widgets/pulls/7/reviews"
NOT_A_PULL = api_error("GetPullRequestByIndex")
NO_SCOPE = api_error("token does not have at least one of required scope(s), required=[read:repository], token scope=x")
COMMENTED = review(1, "COMMENT", "See inline", comments_count=1)
GET_7: list[Any] = [
    pytest.param({"owner": "acme", "name": "widgets", "number": 7}, id="number"),
    pytest.param({"url": "https://gitea.test/acme/widgets/issues/7#issuecomment-1"}, id="link"),
    pytest.param({"owner": "acme", "name": "widgets", "number": 7, "comments_page": 2}, id="comments_page"),
]


@pytest.mark.parametrize("call", GET_7)
@pytest.mark.parametrize(
    ("pull", "reviews", "status", "inline", "rounds"),
    [
        pytest.param(False, NOT_A_PULL, 404, None, 1, id="issue"),
        pytest.param(False, NO_SCOPE, 403, None, 1, id="issue-token-without-read-repository"),
        pytest.param(True, [], 200, None, 1, id="pull-without-reviews"),
        pytest.param(True, [review(1), review(2, "APPROVED", "")], 200, None, 1, id="pull-reviews-without-inline"),
        pytest.param(True, NO_SCOPE, 403, None, 1, id="pull-token-without-read-repository"),
        pytest.param(True, [review(2, "APPROVED", ""), COMMENTED], 200, [review_comment(9)], 2, id="pull-inline"),
    ],
)
def test_an_issue_or_pull_request_is_one_round_and_inline_review_comments_one_more(
    gitea: Rounds, deps: Deps, call: dict[str, Any], pull: bool, reviews: Any, status: int, inline: Any, rounds: int
) -> None:
    """The reviews and the timeline are asked with the issue and its comments, and their answers dropped when the
    number is an issue (404; 403 first for a token without read:repository, Gitea 1.25.4); the timeline's when the
    reviews route answers. Only a review with inline comments costs a second round, all such reviews at once."""
    gitea.get(ISSUE_7, issue(7, pull=pull))
    gitea.get(f"{ISSUE_7}/comments", [comment(1, "First")])
    gitea.get(REVIEWS_7, reviews, status=status)
    gitea.get(f"{ISSUE_7}/timeline", [timeline_entry(1, "comment", "First"), timeline_entry(2, "review", review_id=3)])
    gitea.get(f"{ISSUE_7}/dependencies", [issue(5)])
    gitea.get(f"{ISSUE_7}/blocks", [])
    if inline is not None:
        gitea.get(f"{REVIEWS_7}/1/comments", inline)
    text, data = ok(issue_get.TOOL.call(deps, call))
    assert gitea.count == rounds, [t.path for t in gitea.seen]
    assert len(gitea.seen) == 6 + (inline is not None)
    assert [d["number"] for d in data["blocked_by"]] == [5] and data["blocks"] == []
    assert data["is_pull"] is pull and (data["reviews"] is None) is (not pull)
    assert ("read from the timeline" in text) is (pull and status != 200), text
    assert ("review" in text) is pull, text


def test_a_busy_forge_asks_the_reviews_and_the_timeline_again_in_one_round(gitea: Rounds, deps: Deps) -> None:
    gitea.get(ISSUE_7, issue(7, pull=True))
    gitea.get(f"{ISSUE_7}/comments", [])
    for url in (REVIEWS_7, f"{ISSUE_7}/timeline"):
        gitea.get(url, api_error("busy"), status=503)
    gitea.get(REVIEWS_7, NO_SCOPE, status=403)
    gitea.get(f"{ISSUE_7}/timeline", [timeline_entry(2, "review", "Fine", review_id=3)])
    text, _ = ok(issue_get.TOOL.call(deps, {"owner": "acme", "name": "widgets", "number": 7}))
    assert gitea.count == 2 and len(gitea.seen) == 6, [t.path for t in gitea.seen]
    assert "review 3 at" in text
