"""Pasted links, end to end against the stand-in: an issue page, a pull request page, a comment anchor, and a list
page whose every parameter gives the rows its API equivalent gives — or a sentence saying what cannot be expressed,
with nothing requested from a server that is not ours."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import responses
from mcp_types import CallToolResult

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import DEMO_TOKEN, MANY_COMMENTS_ISSUE, StandIn
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_get, issue_list, issue_search
from tests.support.results import failed, ok, rows_of


@pytest.fixture(scope="module")
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


@pytest.fixture
def deps(forge: StandIn) -> Deps:
    client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme", "demo"})), catalog=Catalog())


def numbers(result: CallToolResult) -> list[int]:
    _, data = ok(result)
    return [row["number"] for row in rows_of(data)]


# -- issue pages -----------------------------------------------------------------------------------------------------


def test_an_issue_page_reads_that_issue(forge: StandIn, deps: Deps) -> None:
    text, data = ok(issue_get.TOOL.call(deps, {"url": f"{forge.url}/acme/widgets/issues/3"}))
    assert data["number"] == 3 and text.startswith("acme/widgets#3 ")


def test_a_pull_request_page_reads_that_pull_request(forge: StandIn, deps: Deps) -> None:
    _, data = ok(issue_get.TOOL.call(deps, {"url": f"{forge.url}/acme/widgets/pulls/{MANY_COMMENTS_ISSUE}"}))
    assert data["is_pull"] is True and data["number"] == MANY_COMMENTS_ISSUE


def test_a_comment_anchor_opens_the_page_holding_that_comment_and_marks_it(forge: StandIn, deps: Deps) -> None:
    issue = forge.store.get_issue("acme", "widgets", MANY_COMMENTS_ISSUE)
    assert issue is not None
    thread = forge.store.comments_of(issue)
    assert len(thread) > 20, "the seed's long thread spans pages"
    linked = thread[25]  # the 26th comment: page 2
    url = f"{forge.url}/acme/widgets/pulls/{MANY_COMMENTS_ISSUE}#issuecomment-{linked.id}"
    text, data = ok(issue_get.TOOL.call(deps, {"url": url}))
    assert data["comments_page"] == 2
    assert f'<untrusted source="comment {linked.id} (the linked comment) at ' in text
    assert text.count("(the linked comment)") == 1


def test_an_explicit_comments_page_wins_over_the_anchor(forge: StandIn, deps: Deps) -> None:
    issue = forge.store.get_issue("acme", "widgets", MANY_COMMENTS_ISSUE)
    assert issue is not None
    linked = forge.store.comments_of(issue)[25]
    url = f"{forge.url}/acme/widgets/issues/{MANY_COMMENTS_ISSUE}#issuecomment-{linked.id}"
    text, data = ok(issue_get.TOOL.call(deps, {"url": url, "comments_page": 1}))
    assert data["comments_page"] == 1
    assert f"note: the linked comment {linked.id} is not on this page of this issue" in text


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        ({"url": "https://elsewhere.example/acme/widgets/issues/3"}, "the link is not on this server"),
        ({"url": "{url}/other/secret/issues/1"}, "owner 'other' is not allowed"),
        ({"url": "{url}/acme/widgets/issues/3", "number": 4}, "owner/name/number disagree with the link"),
        ({"url": "{url}/acme/widgets/issues"}, "that link is a list page: run it with issue_search"),
        ({"owner": "acme", "number": 3}, "say which issue: give owner, name and number, or url"),
    ],
)
def test_issue_links_refused_before_any_request(
    forge: StandIn, mocked: responses.RequestsMock, args: dict[str, Any], sentence: str
) -> None:
    """`mocked` has no answers registered: a request would fail the call with another sentence."""
    client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
    deps = Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())
    given = {key: value.replace("{url}", forge.url) if isinstance(value, str) else value for key, value in args.items()}
    assert sentence in failed(issue_get.TOOL.call(deps, given))
    assert not mocked.calls


# -- list pages ------------------------------------------------------------------------------------------------------


def _ids(forge: StandIn) -> dict[str, int]:
    repo = forge.store.find_repo("acme", "widgets")
    assert repo is not None
    labels = {x.name: x.id for x in forge.store.repo_labels(repo)}
    milestones = {m.title: m.id for m in forge.store.repo_milestones(repo)}
    users = {u.login: u.id for u in forge.store.all_users()}
    org_label = next(x.id for x in forge.store.org_labels("acme"))
    return {"bug": labels["bug"], "ui": labels["ui"], "v2": milestones["v2.0"], "alice": users["alice"],
            "bob": users["bob"], "triage": org_label}  # fmt: skip


LIST = {"owner": "acme", "name": "widgets", "limit": 20}


@pytest.mark.parametrize(
    ("link", "same_as"),
    [
        pytest.param("issues", {}, id="plain"),
        pytest.param("issues?state=closed", {"state": "closed"}, id="state"),
        pytest.param("issues?state=all&page=2", {"state": "all", "page": 2}, id="page"),
        pytest.param("pulls?state=all", {"state": "all", "type": "pulls"}, id="pulls"),
        pytest.param("issues?labels={bug}", {"labels": "bug"}, id="label"),
        pytest.param("issues?labels={bug},{ui}&state=all", {"labels": "bug,ui", "state": "all"}, id="labels-all-of"),
        pytest.param("issues?milestone={v2}", {"milestones": "{v2}"}, id="milestone"),
        pytest.param("issues?poster={alice}&state=all", {"created_by": "alice", "state": "all"}, id="poster-id"),
        pytest.param("issues?poster=alice&state=all", {"created_by": "alice", "state": "all"}, id="poster-name"),
        pytest.param("issues?assignee={bob}", {"assigned_by": "bob"}, id="assignee"),
        pytest.param("issues?type=created_by&state=all", {"created_by": "demo", "state": "all"}, id="type-mine"),
        pytest.param("issues?type=your_repositories", {}, id="type-all"),
        pytest.param("issues?sort=newest&archived_labels=true", {}, id="default-sort-and-chrome"),
    ],
)
def test_a_list_page_gives_the_rows_of_its_api_equivalent(
    forge: StandIn, deps: Deps, link: str, same_as: dict[str, Any]
) -> None:
    ids = _ids(forge)
    url = f"{forge.url}/acme/widgets/{link.format(**ids)}"
    equivalent = {k: v.format(**ids) if isinstance(v, str) else v for k, v in same_as.items()}
    expected = numbers(issue_list.TOOL.call(deps, {**LIST, **equivalent}))
    assert expected, "pick a case that matches something"
    text, _ = ok(issue_search.TOOL.call(deps, {"query": url}))
    assert numbers(issue_search.TOOL.call(deps, {"query": url})) == expected
    assert "as its web page shows it: 20 per page, newest first" in text


def test_a_keyword_in_the_link_is_the_same_q(forge: StandIn, deps: Deps) -> None:
    url = f"{forge.url}/acme/widgets/issues?q=export&state=all"
    shown = forge_rows(forge, q="export", state="all")
    assert shown and numbers(issue_search.TOOL.call(deps, {"query": url})) == shown


def forge_rows(forge: StandIn, **params: str) -> list[int]:
    import requests

    answer = requests.get(
        f"{forge.url}/api/v1/repos/acme/widgets/issues",
        params={"type": "issues", "limit": "20", **params},
        headers={"Authorization": f"token {DEMO_TOKEN}"},
        timeout=10,
    )
    return [row["number"] for row in answer.json()]


def test_without_state_a_page_with_no_open_match_shows_every_state(forge: StandIn, deps: Deps) -> None:
    """The web's rule (both Gitea and Forgejo): no `state` and nothing open, but something closed → all states."""
    ids = _ids(forge)
    closed_only = f"{forge.url}/acme/widgets/issues?milestone=1"  # v1.0: a closed milestone, its issues closed
    assert not numbers(issue_list.TOOL.call(deps, {**LIST, "milestones": "1"}))
    everything = numbers(issue_list.TOOL.call(deps, {**LIST, "milestones": "1", "state": "all"}))
    assert everything and numbers(issue_search.TOOL.call(deps, {"query": closed_only})) == everything
    assert ids  # the ids fixture data is there


def test_page_2_of_a_link_without_state_is_page_2_of_what_page_1_shows(forge: StandIn, deps: Deps) -> None:
    """The web applies its no-state rule on every page (routers/web/repo/issue_list.go), not only the first."""
    link = f"{forge.url}/acme/widgets/issues?milestone=1"
    everything = numbers(issue_list.TOOL.call(deps, {**LIST, "milestones": "1", "state": "all", "limit": 50}))
    assert len(everything) > 40
    assert numbers(issue_search.TOOL.call(deps, {"query": link})) == everything[:20]
    assert numbers(issue_search.TOOL.call(deps, {"query": link + "&page=2"})) == everything[20:40]
    assert numbers(issue_search.TOOL.call(deps, {"query": link, "page": 2})) == everything[20:40]


def test_the_agents_own_page_and_limit_win(forge: StandIn, deps: Deps) -> None:
    url = f"{forge.url}/acme/widgets/issues?state=all&page=3"
    _, data = ok(issue_search.TOOL.call(deps, {"query": url, "page": 1, "limit": 5}))
    assert (data["page"], data["limit"]) == (1, 5)
    assert numbers(issue_search.TOOL.call(deps, {"query": url, "page": 1, "limit": 5})) == numbers(
        issue_list.TOOL.call(deps, {**LIST, "state": "all", "limit": 5})
    )


def test_a_limit_above_the_cap_on_a_link_is_capped_and_said(forge: StandIn, deps: Deps) -> None:
    url = f"{forge.url}/acme/widgets/issues?state=all"
    text, data = ok(issue_search.TOOL.call(deps, {"query": url, "limit": 100}))
    assert data["limit"] == 50 and len(rows_of(data)) == 50 and data["has_more"] is True
    assert "note: limit=100 is capped at 50, the most per page; pages are 50." in text.splitlines()
    assert text.splitlines()[-1].endswith(" limit=50 page=2")


@pytest.mark.parametrize(
    ("link", "sentence"),
    [
        ("issues?labels=-{bug}", "the link excludes labels (-ID) or asks for issues without labels (0)"),
        ("issues?labels=0", "the link excludes labels (-ID) or asks for issues without labels (0)"),
        ("issues?labels=abc", "labels='abc' in the link is not a list of label ids."),
        ("issues?labels={triage}", "if it is an organisation label, list by its name: issue_list owner=acme name="),
        ("issues?labels=999999", "label id 999999 is not a label of the repository acme/widgets"),
        ("issues?milestone=-1", "the link asks for issues without a milestone"),
        ("issues?assignee=-1", "assignee=-1 in the link (no one, or anyone) cannot be filtered"),
        ("issues?assignee=(none)", "assignee='(none)' in the link is not a user id"),
        ("issues?poster=999999", "poster=999999 in the link is no user of this server."),
        ("issues?sort=oldest", "the link sorts by 'oldest', and Gitea's API lists newest first only"),
        ("issues?sort=scope-priority", "the link sorts by 'scope-priority'"),
        ("issues?type=review_requested", "the link's type=review_requested needs review data"),
        ("issues?project=3", "the link's project= has no equivalent in Gitea's API"),
        ("issues?fuzzy=true", "the link's fuzzy= has no equivalent in Gitea's API"),
        ("issues/3", "that link is one issue's page: read it with issue_get url=<the link>."),
    ],
)
def test_a_list_page_it_cannot_express_is_refused(forge: StandIn, deps: Deps, link: str, sentence: str) -> None:
    url = f"{forge.url}/acme/widgets/{link.format(**_ids(forge))}"
    assert sentence in failed(issue_search.TOOL.call(deps, {"query": url}))


def test_list_links_to_elsewhere_or_a_refused_owner_request_nothing(
    forge: StandIn, mocked: responses.RequestsMock
) -> None:
    client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
    deps = Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())
    elsewhere = failed(issue_search.TOOL.call(deps, {"query": "https://elsewhere.example/acme/widgets/issues"}))
    refused = failed(issue_search.TOOL.call(deps, {"query": f"{forge.url}/other/secret/issues?state=all"}))
    assert elsewhere.startswith("the link is not on this server") and "'other' is not allowed" in refused
    assert not mocked.calls


def test_a_label_made_within_the_caches_life_is_found(forge: StandIn, deps: Deps) -> None:
    ok(issue_search.TOOL.call(deps, {"query": f"{forge.url}/acme/widgets/issues?labels={_ids(forge)['bug']}"}))
    repo = forge.store.find_repo("acme", "widgets")
    made = forge.store.add_label(repo, "made-just-now", "ee0701")
    _, data = ok(issue_search.TOOL.call(deps, {"query": f"{forge.url}/acme/widgets/issues?labels={made.id}"}))
    assert data["params"]["labels"] == "made-just-now" and data["total"] == 0


# -- numbers in links: the arguments' bounds, ASCII digits only --------------------------------------------------------

HUGE = "9" * 5000  # more digits than Python's int() reads (4,300): it raised ValueError inside the tool
ISSUE_RANGE = "use a whole number from 1 to 2147483647."
PAGE_RANGE = "use a whole number from 1 to 10000."
ID_RANGE = "use a whole number from 1 to 9223372036854775807."


@pytest.mark.parametrize(
    ("tool", "args", "sentence"),
    [
        pytest.param("get", {"url": "{url}/acme/widgets/issues/²"}, f"the issue number '²' in the link is not valid; "
                     f"{ISSUE_RANGE}", id="issue-superscript"),
        pytest.param("get", {"url": "{url}/acme/widgets/issues/١٢"}, f"the issue number '١٢' in the link is not "
                     f"valid; {ISSUE_RANGE}", id="issue-arabic-indic"),
        pytest.param("get", {"url": "{url}/acme/widgets/issues/" + HUGE}, ISSUE_RANGE, id="issue-5000-digits"),
        pytest.param("get", {"url": "{url}/acme/widgets/issues/2147483648"}, f"the issue number '2147483648' in the "
                     f"link is not valid; {ISSUE_RANGE}", id="issue-over-2-31"),
        pytest.param("get", {"url": "{url}/acme/widgets/issues/0"}, ISSUE_RANGE, id="issue-0"),
        pytest.param("get", {"url": "{url}/acme/widgets/issues/3#issuecomment-" + HUGE}, ID_RANGE,
                     id="comment-5000-digits"),
        pytest.param("get", {"url": "{url}/acme/widgets/issues/3#issuecomment-١٢"}, ID_RANGE,
                     id="comment-arabic-indic"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?milestone=²"}, f"milestone='²' in the link is not "
                     f"valid; {ID_RANGE}", id="milestone-superscript"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?milestone=" + HUGE}, ID_RANGE,
                     id="milestone-5000-digits"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?assignee=³"}, f"assignee='³' in the link is not "
                     f"valid; {ID_RANGE}", id="assignee-superscript"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?poster=" + HUGE}, ID_RANGE, id="poster-5000"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?poster=١٢"}, ID_RANGE, id="poster-arabic-indic"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?labels=١٢"}, ID_RANGE, id="label-arabic-indic"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?page=²"}, f"page='²' in the link is not valid; "
                     f"{PAGE_RANGE}", id="page-superscript"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?page=99999999999999999999999"},
                     f"page='99999999999999999999999' in the link is not valid; {PAGE_RANGE}", id="page-huge"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?page=10001"}, PAGE_RANGE, id="page-over-max"),
        pytest.param("search", {"query": "{url}/acme/widgets/issues?page=" + HUGE}, PAGE_RANGE, id="page-5000"),
    ],
)  # fmt: skip
def test_a_number_in_a_link_has_the_arguments_bounds(
    forge: StandIn,
    mocked: responses.RequestsMock,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    args: dict[str, str],
    sentence: str,
) -> None:
    """One plain sentence, nothing logged with a traceback, and (`mocked` has no answers) nothing requested."""
    client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
    deps = Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())
    given = {key: value.replace("{url}", forge.url) for key, value in args.items()}
    text = failed((issue_get if tool == "get" else issue_search).TOOL.call(deps, given))
    assert sentence in text and len(text.splitlines()) == 1 and len(text) < 200
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not mocked.calls
