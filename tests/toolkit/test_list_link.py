"""A pasted list page as the filter its web page applies (toolkit/list_link.py): each parameter read as the web reads
it, ids looked up as names, and what the API cannot say refused before any issue is asked for. Pasted links end to
end, against the stand-in, are in tests/agent/test_links.py."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.issue_filter import IssueFilter
from gitea_mcp.domain.links import ListLink
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import Forbidden
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.list_link import WebList, web_list
from tests.support.gitea_json import API, LABELS, ROOT, api_error, label, user
from tests.support.mocks import sent_params

LABELS_URL = f"{API}/repos/acme/widgets/labels"
USERS = f"{API}/users/search"
ISSUES = IssueFilter()  # the web list's own defaults: open issues, any label, anyone's


def link(params: dict[str, str], pulls: bool = False) -> ListLink:
    return ListLink("acme", "widgets", pulls, params)


def found(*users: dict[str, Any]) -> dict[str, Any]:
    """`GET /users/search` as Gitea answers it: the list wrapped, `ok` set."""
    return {"ok": True, "data": list(users)}


@pytest.mark.parametrize(
    ("given", "pulls", "read"),
    [
        pytest.param({}, False, WebList(ISSUES, 1, False), id="bare"),
        pytest.param({}, True, WebList(IssueFilter(type="pulls"), 1, False), id="pulls"),
        pytest.param({"state": "closed"}, False, WebList(IssueFilter(state="closed"), 1, True), id="closed"),
        pytest.param({"state": "all"}, False, WebList(IssueFilter(state="all"), 1, True), id="all"),
        pytest.param({"state": "opened"}, False, WebList(ISSUES, 1, True), id="any-other-state-is-open"),
        pytest.param({"state": ""}, False, WebList(ISSUES, 1, False), id="empty-state-is-none-given"),
        pytest.param({"page": "3"}, False, WebList(ISSUES, 3, False), id="page"),
        pytest.param({"page": ""}, False, WebList(ISSUES, 1, False), id="empty-page-is-the-first"),
        pytest.param({"milestone": "7"}, False, WebList(IssueFilter(milestones=("7",)), 1, False), id="milestone"),
        pytest.param({"milestone": "0"}, False, WebList(ISSUES, 1, False), id="milestone-0-is-any"),
        pytest.param({"milestone": "v1.0"}, False, WebList(ISSUES, 1, False), id="milestone-not-an-id-is-any"),
        pytest.param({"poster": "alice"}, False, WebList(IssueFilter(created_by="alice"), 1, False), id="poster-name"),
        pytest.param({"poster": "0", "assignee": "0"}, False, WebList(ISSUES, 1, False), id="user-0-is-anyone"),
        pytest.param({"q": "  export  "}, False, WebList(IssueFilter(keywords="export"), 1, False), id="q-trimmed"),
        pytest.param({"q": "\texport"}, False, WebList(IssueFilter(keywords="\texport"), 1, False), id="q-spaces-only"),
        pytest.param({"q": "ex\x00port"}, False, WebList(ISSUES, 1, False), id="q-with-nul-dropped"),
        pytest.param({"sort": "newest", "archived_labels": "true"}, False, WebList(ISSUES, 1, False), id="chrome"),
        pytest.param({"type": "your_repositories"}, False, WebList(ISSUES, 1, False), id="type-all"),
    ],
)
def test_each_parameter_is_read_as_the_web_reads_it(
    mocked: responses.RequestsMock, deps: Deps, given: dict[str, str], pulls: bool, read: WebList
) -> None:
    assert web_list(deps, link(given, pulls)) == read
    assert not mocked.calls, "nothing to look up"


@pytest.mark.parametrize(
    ("kind", "read"),
    [
        ("created_by", IssueFilter(created_by="demo")),
        ("assigned", IssueFilter(assigned_by="demo")),
        ("mentioned", IssueFilter(mentioned_by="demo")),
    ],
)
def test_the_signed_in_users_own_lists(
    mocked: responses.RequestsMock, deps: Deps, kind: str, read: IssueFilter
) -> None:
    mocked.get(f"{API}/user", json=user("demo", 5))
    assert web_list(deps, link({"type": kind})).query == read


def test_without_a_token_the_users_own_lists_are_everyones(mocked: responses.RequestsMock) -> None:
    """As the web shows them to a visitor not signed in."""
    client = GiteaClient(ROOT, None, timeout=5, retry=RetryPolicy(attempts=1))
    anonymous = Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())
    assert web_list(anonymous, link({"type": "created_by"})).query == ISSUES
    assert not mocked.calls


@pytest.mark.parametrize(
    ("labels", "names"),
    [("1", ("bug",)), ("2,1", ("ui", "bug")), ("1,1,3", ("bug", "good first issue"))],
    ids=["one", "in-the-links-order", "once-each"],
)
def test_label_ids_become_the_repositorys_label_names(
    mocked: responses.RequestsMock, deps: Deps, labels: str, names: tuple[str, ...]
) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    assert web_list(deps, link({"labels": labels})).query.labels == names
    assert len(mocked.calls) == 1


def test_a_label_id_the_cached_labels_lack_is_read_afresh(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(LABELS_URL, json=[*LABELS, label("made-just-now", 4)], headers={"X-Total-Count": "4"})
    deps.catalog.labels(deps.client, "acme", "widgets")  # cached before the link came
    assert web_list(deps, link({"labels": "4"})).query.labels == ("made-just-now",)
    assert len(mocked.calls) == 2


def test_a_label_id_not_of_the_repository_points_to_listing_by_name(mocked: responses.RequestsMock, deps: Deps) -> None:
    """An organisation's label is one the web page filters by, and the API by its name only."""
    mocked.get(LABELS_URL, json=LABELS, headers={"X-Total-Count": "3"})
    with pytest.raises(ToolFailure) as refused:
        web_list(deps, link({"labels": "1,40"}))
    assert str(refused.value) == (
        "label id 40 is not a label of the repository acme/widgets; if it is an organisation label, list by its name: "
        "issue_list owner=acme name=widgets labels=NAME."
    )


@pytest.mark.parametrize(("key", "field"), [("poster", "created_by"), ("assignee", "assigned_by")])
def test_a_user_id_becomes_the_users_login(mocked: responses.RequestsMock, deps: Deps, key: str, field: str) -> None:
    mocked.get(USERS, json=found(user("alice", 3)))
    assert getattr(web_list(deps, link({key: "3"})).query, field) == "alice"
    assert sent_params(mocked) == {"uid": "3", "limit": "1"}


def test_a_user_id_of_no_one_is_refused(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(USERS, json=found())
    with pytest.raises(ToolFailure, match=r"^poster=404 in the link is no user of this server\.$"):
        web_list(deps, link({"poster": "404"}))


def test_a_token_that_may_not_look_users_up_is_told_so(mocked: responses.RequestsMock, deps: Deps) -> None:
    message = "token does not have at least one of required scope(s), required=[read:user], token scope=read:issue"
    mocked.get(USERS, status=403, json=api_error(message))
    with pytest.raises(Forbidden) as refused:
        web_list(deps, link({"assignee": "3"}))
    assert refused.value.missing_scope == "read:user"


ID_RANGE = "use a whole number from 1 to 9223372036854775807."


@pytest.mark.parametrize(
    ("given", "sentence"),
    [
        pytest.param(
            {"milestones": "3"},
            "the link's milestones= has no equivalent in Gitea's API; remove it from the link to run the rest.",
            id="a-parameter-the-web-does-not-read",
        ),
        pytest.param(
            {"labels": "1", "sort": "recentupdate"},
            "the link sorts by 'recentupdate', and Gitea's API lists newest first only; remove sort= from the link.",
            id="sort-before-any-lookup",
        ),
        pytest.param({"sort": "scope-kind"}, "the link sorts by 'scope-kind'", id="sort-by-scope"),
        pytest.param({"labels": "1,x"}, "labels='1,x' in the link is not a list of label ids.", id="labels-not-ids"),
        pytest.param(
            {"labels": "2,-1"},
            "the link excludes labels (-ID) or asks for issues without labels (0), which Gitea's API cannot filter; "
            "remove those from labels=.",
            id="labels-excluded",
        ),
        pytest.param(
            {"milestone": "-1"},
            "the link asks for issues without a milestone, which Gitea's API cannot filter.",
            id="no-milestone",
        ),
        pytest.param(
            {"poster": "-1"},
            "poster=-1 in the link (no one, or anyone) cannot be filtered through Gitea's API.",
            id="poster-none",
        ),
        pytest.param(
            {"assignee": "bob"},
            "assignee='bob' in the link is not a user id; Gitea's API cannot filter by it.",
            id="assignee-by-name",
        ),
        pytest.param(
            {"type": "reviewed_by"},
            "the link's type=reviewed_by needs review data Gitea's API list does not filter on.",
            id="reviews",
        ),
        pytest.param({"milestone": "１"}, f"milestone='１' in the link is not valid; {ID_RANGE}", id="wide-digit"),
        pytest.param({"assignee": "9" * 20}, f"assignee='{'9' * 20}' in the link is not valid; {ID_RANGE}", id="big"),
        pytest.param({"page": "0"}, "page='0' in the link is not valid; use a whole number from 1 to 10000.", id="p0"),
    ],
)
def test_what_the_api_cannot_say_is_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps, given: dict[str, str], sentence: str
) -> None:
    with pytest.raises(ToolFailure) as refused:
        web_list(deps, link(given))
    assert str(refused.value).startswith(sentence)
    assert not mocked.calls
