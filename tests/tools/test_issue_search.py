"""issue_search: the exact Gitea request for a query, the locator output, the count-conditioned next step."""

from __future__ import annotations

from typing import Any

import pytest
import responses
from responses import matchers

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_search
from tests.support.gitea_json import API, LABELS, api_error, issue, milestone, org_label, user
from tests.support.mocks import optional, sent_params
from tests.support.results import failed, ok, rows_of

REPO_ISSUES = f"{API}/repos/acme/widgets/issues"
SEARCH = f"{API}/repos/issues/search"
NO_ORG_SCOPE = "token does not have at least one of required scope(s), required=[read:organization], token scope=x"


def run(deps: Deps, query: str, **kw: Any) -> Any:
    return issue_search.TOOL.call(deps, {"query": query, **kw})


@pytest.fixture(autouse=True)
def version(mocked: responses.RequestsMock) -> None:
    """Keyword searches read the server's release once (how words match depends on it): Gitea 1.26 by default."""
    optional(mocked).get(f"{API}/version", json={"version": "1.26.0"})


def gitea_calls(rsps: responses.RequestsMock) -> list[Any]:
    return [c for c in rsps.calls if not (c.request.url or "").endswith("/version")]


@pytest.mark.parametrize(
    ("query", "kw", "expected"),
    [
        pytest.param(
            "crash",
            {"owner": "acme", "name": "widgets"},
            {"state": "all", "type": "issues", "q": "crash"},
            id="words-all-states",
        ),
        pytest.param(
            "crash is:open", {"owner": "acme", "name": "widgets"}, {"state": "open", "q": "crash"}, id="is-open"
        ),
        pytest.param(
            "is:pr is:closed", {"owner": "acme", "name": "widgets"}, {"state": "closed", "type": "pulls"}, id="is-pr"
        ),
        pytest.param('"login fails" repo:acme/widgets', {}, {"q": "login fails"}, id="repo-qualifier-phrase"),
        pytest.param(
            "author:alice assignee:bob mentions:carol",
            {"owner": "acme", "name": "widgets"},
            {"created_by": "alice", "assigned_by": "bob", "mentioned_by": "carol"},
            id="users",
        ),
        pytest.param(
            "updated:>=2026-01-01 updated:<2026-02-01",
            {"owner": "acme", "name": "widgets"},
            {"since": "2026-01-01T00:00:00Z", "before": "2026-01-31T23:59:59Z"},
            id="updated-range",
        ),
    ],
)
def test_repo_request(
    mocked: responses.RequestsMock, deps: Deps, query: str, kw: dict[str, Any], expected: dict[str, str]
) -> None:
    mocked.get(REPO_ISSUES, json=[], headers={"X-Total-Count": "0"})
    _, data = ok(run(deps, query, **kw))
    # A phrase is sent both ways while the release is unknown (Forgejo reads quotes, Gitea does not), in one round.
    assert len(gitea_calls(mocked)) == (2 if '"' in query else 1)
    assert data["params"].items() >= expected.items()
    assert any(sent_params(mocked, i).items() >= expected.items() for i in range(len(mocked.calls)))


def test_labels_all_of_checked_in_repo(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(REPO_ISSUES, json=[], headers={"X-Total-Count": "0"})
    ok(run(deps, 'label:bug label:"good first issue"', owner="acme", name="widgets"))
    assert sent_params(mocked, path_end="/issues")["labels"] == "bug,good first issue"
    mocked.get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})  # no organisation label either
    mocked.get(SEARCH, json=[], headers={"X-Total-Count": "0"})
    assert "'nope' does not exist" in failed(run(deps, "label:nope", owner="acme", name="widgets"))


def test_across_repositories(mocked: responses.RequestsMock, deps: Deps) -> None:
    rows = [issue(4, "Crash on save", repo="gadgets"), issue(12, "Crash on login")]
    mocked.get(SEARCH, json=rows, headers={"X-Total-Count": "2"})
    text, data = ok(run(deps, "crash", owner="acme"))
    assert sent_params(mocked, path_end="/issues/search") == {
        "state": "all",
        "type": "issues",
        "q": "crash",
        "owner": "acme",
        "page": "1",
        "limit": "30",
    }
    assert "acme/gadgets#4 (open) Crash on save @alice 2026-11-20" in text
    assert data["scope"] == "acme/*" and [h["repository"] for h in rows_of(data)] == ["acme/gadgets", "acme/widgets"]
    # As sent: the card's row, and the repository, since the rows come from several; no PR marker (is:issue).
    assert data["results"][0] == {
        "number": 4,
        "title": "Crash on save",
        "state": "open",
        "labels": [],
        "assignees": [],
        "created_at": "2026-11-20T09:00:00Z",
        "updated_at": "2026-11-28T09:00:00Z",
        "comments": 0,
        "html_url": "https://gitea.test/acme/gadgets/issues/4",
        "repository": "acme/gadgets",
    }
    assert [h["html_url"] for h in rows_of(data)] == [
        "https://gitea.test/acme/gadgets/issues/4",
        "https://gitea.test/acme/widgets/issues/12",
    ]


def test_zero_matches_suggests_listing_all_states(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(REPO_ISSUES, json=[], headers={"X-Total-Count": "0"})
    text, data = ok(run(deps, "nothing-like-this", owner="acme", name="widgets"))
    assert "0 matches" in text.splitlines()[0]
    assert "try issue_list owner=acme name=widgets state=all" in text
    assert rows_of(data) == [] and data["total"] == 0


def test_one_match_fills_the_number(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(SEARCH, json=[issue(12, "Crash on login")], headers={"X-Total-Count": "1"})
    text, _ = ok(run(deps, "crash", owner="acme"))
    assert "help: open it: issue_get owner=acme name=widgets number=12" in text
    assert "Steps to reproduce" not in text, "a locator never loads the detail"


def test_many_matches_use_a_placeholder_and_page(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(REPO_ISSUES, json=[issue(n) for n in (9, 8)], headers={"X-Total-Count": "5"})
    text, data = ok(run(deps, "crash", owner="acme", name="widgets", limit=2))
    assert "help: open one: issue_get owner=acme name=widgets number=<number>" in text
    assert "help: next page: issue_search query=crash owner=acme name=widgets limit=2 page=2" in text
    assert "5 matches, showing 1–2" in text and data["has_more"] is True


@pytest.mark.parametrize(
    ("query", "kw", "phrase"),
    [
        pytest.param("crash", {"owner": "other"}, "owner 'other' is not allowed", id="allowlist"),
        pytest.param("crash repo:other/secret", {}, "owner 'other' is not allowed", id="allowlist-in-query"),
        pytest.param("crash repo:acme/widgets", {"owner": "other"}, "owner is given twice", id="owner-conflict"),
        pytest.param("crash", {}, "say whose issues to search", id="no-owner"),
        pytest.param("crash", {"owner": "acme", "name": "../x"}, "not a valid Gitea name", id="traversal"),
        pytest.param("created:>2026-01-01", {"owner": "acme"}, "created:", id="created-refused"),
        pytest.param("sort:updated", {"owner": "acme"}, "sort:", id="sort-refused"),
        pytest.param("-label:bug", {"owner": "acme"}, "`-label:` (a negation) is not supported", id="negation-refused"),
        pytest.param('"unbalanced', {"owner": "acme"}, "quote", id="unbalanced"),
        pytest.param("   ", {"owner": "acme"}, "issue_list", id="empty"),
        pytest.param("label:a label:b", {"owner": "acme"}, "ANY of the labels", id="labels-across-repos"),
    ],
)
def test_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps, query: str, kw: dict[str, Any], phrase: str
) -> None:
    assert phrase in failed(run(deps, query, **kw))
    assert len(gitea_calls(mocked)) == 0


def test_label_gitea_ignored_across_repos_is_caught(mocked: responses.RequestsMock, deps: Deps) -> None:
    # Gitea drops an unknown label name from the search and returns everything.
    mocked.get(SEARCH, json=[issue(3), issue(2, labels=LABELS[:1])], headers={"X-Total-Count": "2"})
    assert "label 'bugg' exists in no repository" in failed(run(deps, "label:bugg", owner="acme"))


def test_author_ignored_by_the_server_is_caught(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Defence in depth: a server claiming 1.26 that still ignores created_by shows it in its rows."""
    mocked.get(SEARCH, json=[issue(3, author="bob")], headers={"X-Total-Count": "1"})
    assert "this server ignored author:alice across repositories" in failed(run(deps, "author:alice", owner="acme"))


@pytest.mark.parametrize("release", ["1.25.4", "1.22.6", "11.0.15+gitea-1.22.0", "12.0.4+gitea-1.22.0"])
def test_author_across_repositories_refused_where_the_search_ignores_it(
    mocked: responses.RequestsMock, deps: Deps, release: str
) -> None:
    serve_version(mocked, release)
    mocked.get(SEARCH, json=[issue(3, author="bob")], headers={"X-Total-Count": "1"})  # asked with the release
    text = failed(run(deps, "author:alice", owner="acme"))
    assert "cannot search author:alice across repositories (its search ignores the author)" in text
    asked = len(mocked.calls)
    assert failed(run(deps, "author:alice", owner="acme")) == text
    assert len(mocked.calls) == asked, "once the release is known, the refusal comes before any request"


def test_me_resolved_for_a_repository(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(REPO_ISSUES, json=[], headers={"X-Total-Count": "0"})
    ok(run(deps, "assignee:@me", owner="acme", name="widgets"))
    assert sent_params(mocked, path_end="/issues")["assigned_by"] == "demo"


def test_me_across_repositories_uses_flags(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/user", json=user("demo", 5))
    mocked.get(SEARCH, json=[], headers={"X-Total-Count": "0"})
    ok(run(deps, "assignee:@me", owner="acme"))
    assert sent_params(mocked, path_end="/search")["assigned"] == "true"


def test_unknown_owner_on_search(mocked: responses.RequestsMock, deps: Deps) -> None:
    # Gitea's Go error text, verified on 1.22 and 1.25: no "owner" in it.
    mocked.get(SEARCH, status=400, json=api_error("user does not exist [uid: 0, name: ghost]"))
    deps.policy = type(deps.policy)(frozenset({"*"}))
    assert "owner 'ghost' does not exist" in failed(run(deps, "x", owner="ghost"))


def serve_version(rsps: responses.RequestsMock, version: str) -> None:
    rsps.remove(responses.GET, f"{API}/version")
    rsps.get(f"{API}/version", json={"version": version})


@pytest.mark.parametrize(
    ("release", "q", "note"),
    [
        pytest.param("1.25.4", "login fails", "all the words, adjacent and whole, as one phrase", id="gitea"),
        pytest.param("11.0.15+gitea-1.22.0", '"login fails"', "any of the words (close spellings too)", id="forgejo"),
    ],
)
def test_phrases_kept_where_the_server_reads_quotes(
    mocked: responses.RequestsMock, deps: Deps, release: str, q: str, note: str
) -> None:
    serve_version(mocked, release)
    mocked.get(REPO_ISSUES, json=[], headers={"X-Total-Count": "0"})
    text, data = ok(run(deps, '"login fails"', owner="acme", name="widgets"))
    assert data["params"]["q"] == q
    ok(run(deps, '"login fails"', owner="acme", name="widgets"))  # the release known: only its request is sent
    assert sent_params(mocked, path_end="/issues")["q"] == q
    assert f"note: keywords on {'Gitea 1.25.4' if release == '1.25.4' else 'Forgejo 11.0.15'}: {note}" in text


@pytest.mark.parametrize(
    ("release", "query", "note"),
    [
        pytest.param("1.25.4", "4", "4 is a number, which Gitea matches in its database whatever its index: issue #4 "
                     "and every title, body or comment containing 4, inside longer numbers and words too",
                     id="gitea-1.25"),
        pytest.param("1.25.4", "+04", "issue #4 and every title, body or comment containing +04", id="gitea-signed"),
        pytest.param("1.22.6", "4", "as one phrase (a database indexer matches parts of words too); a number is "
                     "only a word here, not an issue number", id="gitea-1.22"),
        pytest.param("12.0.4+gitea-1.22.0", "4", "; a number also finds the issue of that number", id="forgejo-12"),
        pytest.param("11.0.15+gitea-1.22.0", "4", "a number is only a word here", id="forgejo-11"),
        pytest.param("1.25.4", "4 fails", "all the words, adjacent and whole, as one phrase (a database indexer "
                     "matches parts of words too)\n", id="not-a-number"),
    ],
)  # fmt: skip
def test_a_numeric_keyword_is_described_as_the_release_matches_it(
    mocked: responses.RequestsMock, deps: Deps, release: str, query: str, note: str
) -> None:
    serve_version(mocked, release)
    mocked.get(REPO_ISSUES, json=[], headers={"X-Total-Count": "0"})
    text = ok(run(deps, query, owner="acme", name="widgets"))[0]
    assert note in text


def assigned(number: int, *logins: str) -> dict[str, Any]:
    return issue(number, assignees=list(logins))


def test_keywords_with_assignee_are_filtered_here_where_the_index_ignores_assignees(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    """Gitea ≤ 1.25 answers keyword + assigned_by with nothing: the keyword matches are filtered here instead."""
    serve_version(mocked, "1.25.4")
    rows = [assigned(9, "bob"), assigned(8), assigned(7, "alice", "bob"), assigned(6, "carol")]
    mocked.get(REPO_ISSUES, json=rows, headers={"X-Total-Count": "4"})
    text, data = ok(run(deps, "crash assignee:bob", owner="acme", name="widgets"))
    assert data["params"]["q"] == "crash" and "assigned_by" not in data["params"]
    ok(run(deps, "crash assignee:bob", owner="acme", name="widgets"))  # the release known: only its request
    sent = sent_params(mocked, path_end="/issues")
    assert sent["q"] == "crash" and "assigned_by" not in sent
    assert [hit["number"] for hit in rows_of(data)] == [9, 7] and data["total"] == 2
    assert "note: assignee bob was filtered here: this server's keyword index ignores assignees." in text


def test_keywords_with_assignee_sent_to_servers_that_index_assignees(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    """Both plans are asked before the release is known; the answer is the one that sent assigned_by."""
    by_gitea = matchers.query_param_matcher({"assigned_by": "bob"}, strict_match=False)
    mocked.get(REPO_ISSUES, json=[assigned(9, "bob")], headers={"X-Total-Count": "1"}, match=[by_gitea])
    optional(mocked).get(REPO_ISSUES, json=[assigned(5), assigned(4)], headers={"X-Total-Count": "2"})
    _, data = ok(run(deps, "crash assignee:bob", owner="acme", name="widgets"))
    assert [hit["number"] for hit in rows_of(data)] == [9] and data["total"] == 1


def test_keywords_with_assignee_refused_when_too_many_to_filter(mocked: responses.RequestsMock, deps: Deps) -> None:
    serve_version(mocked, "11.0.15+gitea-1.22.0")
    page = [assigned(n) for n in range(200, 150, -1)]
    mocked.get(REPO_ISSUES, json=page, headers={"X-Total-Count": "640"})
    text = failed(run(deps, "crash assignee:bob", owner="acme", name="widgets"))
    assert text == (
        "Forgejo 11.0.15 cannot combine keywords with assignee: its search index stores no assignees. The keywords "
        "alone match 640 issues, more than the 100 that can be filtered here; use more specific words, or search "
        "assignee:bob without keywords."
    )


def test_rows_of_other_owners_are_never_shown(mocked: responses.RequestsMock, deps: Deps) -> None:
    """A proxy that drops `owner` from the search would show other owners' issues: nothing is shown instead."""
    rows = [issue(3), issue(4, owner="other", repo="secret")]
    mocked.get(SEARCH, json=rows, headers={"X-Total-Count": "2"})
    text = failed(run(deps, "is:open", owner="acme"))
    assert text == (
        "Gitea answered with issues of 'other/secret', which is not where this call asked (acme/*); nothing is "
        "shown. A proxy in front of Gitea may be dropping parameters."
    )
    assert "secret" not in text.split("'other/secret'")[1]


@pytest.mark.parametrize(
    ("url", "kw", "expected_call"),
    [
        pytest.param(REPO_ISSUES, {"owner": "acme", "name": "widgets"}, "owner=acme name=widgets", id="one-repository"),
        pytest.param(SEARCH, {"owner": "acme"}, "owner=acme", id="across-repositories"),
    ],
)
def test_a_limit_above_the_cap_is_capped_and_said(
    mocked: responses.RequestsMock, deps: Deps, url: str, kw: dict[str, Any], expected_call: str
) -> None:
    mocked.get(url, json=[issue(n) for n in range(100, 50, -1)], headers={"X-Total-Count": "75"})
    text, data = ok(run(deps, "crash", limit=100, **kw))
    assert sent_params(mocked, path_end=url.rsplit("/api/v1", 1)[1])["limit"] == "50"
    assert data["limit"] == 50 and len(rows_of(data)) == 50
    assert "note: limit=100 is capped at 50, the most per page; pages are 50." in text.splitlines()
    assert f"help: next page: issue_search query=crash {expected_call} limit=50 page=2" in text.splitlines()


def test_keywords_with_assignee_filtered_here_are_capped_too(mocked: responses.RequestsMock, deps: Deps) -> None:
    serve_version(mocked, "1.25.4")
    rows = [assigned(n, "bob") for n in range(100, 40, -1)]
    mocked.get(REPO_ISSUES, json=rows[:50], headers={"X-Total-Count": "60"})
    mocked.get(REPO_ISSUES, json=rows[50:], headers={"X-Total-Count": "60"})
    text, data = ok(run(deps, "crash assignee:bob", owner="acme", name="widgets", limit=80))
    assert data["limit"] == 50 and len(rows_of(data)) == 50 and data["has_more"] is True
    assert "note: limit=80 is capped at 50, the most per page; pages are 50." in text.splitlines()


def test_titles_are_exact_in_both_faces(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(SEARCH, json=[issue(4, "Double  spaced   title", repo="gadgets"), issue(3, "Zero\u200bwidth")],
               headers={"X-Total-Count": "2"})  # fmt: skip
    text, data = ok(run(deps, "title", owner="acme"))
    assert [hit["title"] for hit in rows_of(data)] == ["Double  spaced   title", "Zerowidth"]  # nothing hidden
    lines = text.splitlines()
    assert 'acme/gadgets#4 (open) "Double  spaced   title" @alice 2026-11-20' in lines
    assert "acme/widgets#3 (open) Zerowidth @alice 2026-11-20" in lines


# -- a quoted name holding a comma is one name --------------------------------------------------------------------


def test_a_quoted_organisation_label_with_a_comma_in_one_repository(mocked: responses.RequestsMock, deps: Deps) -> None:
    """The same path as issue_list: found on the repository's issues, filtered here by id (no search is sent)."""
    wide = org_label("org, wide", 41)
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(f"{API}/orgs/acme/labels", status=403, json=api_error(NO_ORG_SCOPE))
    rows = [issue(5, labels=[wide]), issue(4), issue(3, labels=[wide])]
    mocked.get(REPO_ISSUES, json=rows, headers={"X-Total-Count": "3"})
    _, data = ok(run(deps, 'label:"org, wide"', owner="acme", name="widgets"))
    assert [row["number"] for row in rows_of(data)] == [5, 3] and data["total"] == 2


def test_a_quoted_milestone_with_a_comma_in_one_repository(mocked: responses.RequestsMock, deps: Deps) -> None:
    sprint = milestone("Sprint, week 3", 7)
    mocked.get(f"{API}/repos/acme/widgets/milestones", json=[sprint], headers={"X-Total-Count": "1"})
    mocked.get(REPO_ISSUES, json=[issue(3, milestone_=sprint)], headers={"X-Total-Count": "1"})
    _, data = ok(run(deps, 'milestone:"Sprint, week 3"', owner="acme", name="widgets"))
    assert [row["number"] for row in rows_of(data)] == [3]
    assert sent_params(mocked, path_end="/widgets/issues")["milestones"] == "7"


@pytest.mark.parametrize("query", ['label:"org, wide"', 'milestone:"Sprint, week 3"'])
def test_a_quoted_name_with_a_comma_across_repositories_is_refused(
    mocked: responses.RequestsMock, deps: Deps, query: str
) -> None:
    text = failed(run(deps, query, owner="acme"))
    assert "comma" in text and "repo:OWNER/NAME" in text and gitea_calls(mocked) == []
