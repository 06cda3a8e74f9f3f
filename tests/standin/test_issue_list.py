"""GET /repos/{owner}/{repo}/issues: its rules (docs/server-behaviour.md), checked against the seed data itself."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from gitea_mcp.standin import PULL_EVERY, WIDGETS_COUNT, Profile, StandIn
from gitea_mcp.standin.store import Issue, Store
from tests.standin.conftest import Client

ISSUES = "/repos/acme/widgets/issues"


def _widgets(store: Store) -> list[Issue]:
    repo = store.find_repo("acme", "widgets")
    assert repo is not None
    return store.issues_of(repo)


def _label_names(store: Store, issue: Issue) -> set[str]:
    return {store.labels[x].name for x in issue.label_ids}


def _links(header: str) -> dict[str, str]:
    links = {}
    for part in header.split(","):
        url, rel = part.split(";")
        links[rel.strip().removeprefix('rel="').removesuffix('"')] = url.strip()[1:-1]
    return links


# -- kinds and states --------------------------------------------------------------------------------


def test_without_type_issues_and_pull_requests_come_mixed(reader: Client) -> None:
    page = reader.json(ISSUES, state="all", limit=50)
    pulls = [i for i in page if i["pull_request"] is not None]
    assert pulls and len(pulls) < len(page)
    assert all(i["number"] % PULL_EVERY == 0 for i in pulls)
    assert all(i["html_url"].endswith(f"/pulls/{i['number']}") for i in pulls)
    assert set(pulls[0]["pull_request"]) == {"merged", "merged_at", "draft", "html_url"}
    assert reader.total(ISSUES, state="all") == WIDGETS_COUNT


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"type": "pulls", "state": "all"}, lambda i: i.is_pull),
        ({"type": "issues", "state": "all"}, lambda i: not i.is_pull),
        ({"type": "bogus", "state": "all"}, lambda i: True),
        ({}, lambda i: i.state == "open"),
        ({"state": "open"}, lambda i: i.state == "open"),
        ({"state": "closed"}, lambda i: i.state == "closed"),
        ({"state": "all"}, lambda i: True),
        ({"state": "bogus"}, lambda i: i.state == "open"),  # anything else is open
        ({"state": "CLOSED"}, lambda i: i.state == "open"),
    ],
)
def test_state_and_type(reader: Client, params: dict[str, str], expected: object) -> None:
    assert callable(expected)
    want = sum(1 for i in _widgets(reader.standin.store) if expected(i))
    assert reader.total(ISSUES, **params) == want


# -- labels and milestones ---------------------------------------------------------------------------------


def _count_with_labels(store: Store, names: set[str]) -> int:
    return sum(1 for i in _widgets(store) if names <= _label_names(store, i))


@pytest.mark.parametrize(
    ("labels", "required"),
    [
        ("bug", {"bug"}),
        ("bug,ui", {"bug", "ui"}),  # all of them, not any
        ("good first issue", {"good first issue"}),
        ("bug,nosuch", {"bug"}),  # unknown names are dropped
        ("nosuch", set()),  # no known name left: the filter vanishes
        ("triage", set()),  # an organisation label is not resolved by the repository list
        ("bug,triage", {"bug"}),
        ("Bug", set()),  # names match exactly
        ("bug, ui", {"bug"}),  # " ui" is not a label name
        ("", set()),
    ],
)
def test_labels_are_all_of_and_unknown_names_drop_out(reader: Client, labels: str, required: set[str]) -> None:
    store = reader.standin.store
    assert reader.total(ISSUES, state="all", labels=labels) == _count_with_labels(store, required)
    for issue in reader.json(ISSUES, state="all", labels=labels, limit=50):
        assert required <= {x["name"] for x in issue["labels"]}


def test_org_label_is_on_issues_but_not_filterable(reader: Client) -> None:
    store = reader.standin.store
    tagged = [i for i in _widgets(store) if "triage" in _label_names(store, i)]
    assert tagged
    issue = reader.json(f"{ISSUES}/{tagged[0].number}")
    triage = next(x for x in issue["labels"] if x["name"] == "triage")
    assert triage["url"].endswith(f"/api/v1/orgs/acme/labels/{triage['id']}")


def _milestone_count(store: Store, *titles: str) -> int:
    ids = {m.id for m in store.milestones.values() if m.title in titles}
    return sum(1 for i in _widgets(store) if i.milestone_id in ids)


def test_milestones_by_name_then_id_unknown_dropped(reader: Client) -> None:
    store = reader.standin.store
    v11 = next(m for m in store.milestones.values() if m.title == "v1.1")
    assert reader.total(ISSUES, state="all", milestones="v1.1") == _milestone_count(store, "v1.1")
    assert reader.total(ISSUES, state="all", milestones=str(v11.id)) == _milestone_count(store, "v1.1")
    assert reader.total(ISSUES, state="all", milestones="v1.0,v2.0") == _milestone_count(store, "v1.0", "v2.0")
    assert reader.total(ISSUES, state="all", milestones="v1.1,nosuch") == _milestone_count(store, "v1.1")
    assert reader.total(ISSUES, state="all", milestones="nosuch") == WIDGETS_COUNT


# -- keyword, time and people filters -------------------------------------------------------------------


def _texts(store: Store, issue: Issue) -> list[str]:
    return [issue.title, issue.body, *(c.body for c in store.comments_of(issue))]


@pytest.mark.parametrize("q", ["dark mode", "DARK MODE", "Größenangaben", '"dark mode"', "| character"])
def test_q_is_a_phrase_of_whole_words(reader: Client, q: str) -> None:
    """Gitea's bleve (the default): the words of q in order, whole and case-insensitive; quotes are ignored."""
    store = reader.standin.store

    def spaced(text: str) -> str:
        return " " + " ".join(re.findall(r"\w+", text.lower())) + " "

    want = [i for i in _widgets(store) if any(spaced(q) in spaced(text) for text in _texts(store, i))]
    assert want
    assert reader.total(ISSUES, state="all", q=q) == len(want)


@pytest.mark.parametrize(("q", "found"), [("dark mod", False), ("mode dark", False), ("DARK mode", True)])
def test_q_as_a_phrase_needs_whole_words_in_order(reader: Client, q: str, found: bool) -> None:
    assert (reader.total(ISSUES, state="all", q=q) > 0) == found


@pytest.mark.parametrize("q", ["dark mode", "DARK MODE", "dark mod", "Größenangaben", "| character"])
def test_q_on_the_database_indexer_is_a_case_insensitive_substring(q: str) -> None:
    with StandIn(profile=Profile(indexer="db")) as standin:
        reader = Client(standin)
        needle = q.lower()
        store = standin.store
        want = [i for i in _widgets(store) if any(needle in text.lower() for text in _texts(store, i))]
        assert want
        assert reader.total(ISSUES, state="all", q=q) == len(want)
        assert reader.total(ISSUES, state="all", q=f'"{q}"') == 0  # quotes are literal characters here


def test_q_with_a_number_also_matches_the_index(reader: Client) -> None:
    numbers = [i["number"] for i in reader.json(ISSUES, state="all", q="42", limit=50)]
    assert 42 in numbers


def test_since_and_before_compare_the_updated_time(reader: Client) -> None:
    store = reader.standin.store
    since, before = "2026-01-01T00:00:00Z", "2026-03-01T00:00:00+01:00"
    lo, hi = 1767225600, 1772319600
    want = sum(1 for i in _widgets(store) if lo <= int(i.updated_at.timestamp()) <= hi)
    assert reader.total(ISSUES, state="all", since=since, before=before) == want
    created_in = sum(1 for i in _widgets(store) if lo <= int(i.created_at.timestamp()) <= hi)
    assert want != created_in  # proves the filter is not on the created time


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"since": "yesterday"},
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
        ),
        (
            {"before": "2026-01-01"},
            'parsing time "2026-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
        ),
        ({"since": "2026-13-01T00:00:00Z"}, 'parsing time "2026-13-01T00:00:00Z": month out of range'),
        ({"since": "2026-02-30T00:00:00Z"}, 'parsing time "2026-02-30T00:00:00Z": day out of range'),
    ],
)
def test_unparsable_times_are_422_with_gos_message(reader: Client, params: dict[str, str], message: str) -> None:
    response = reader.get(ISSUES, **params)
    assert response.status_code == 422
    assert response.json()["message"] == message


@pytest.mark.parametrize("who", ["demo", "alice", "carol"])
def test_created_assigned_and_mentioned_by(reader: Client, who: str) -> None:
    store = reader.standin.store
    issues = _widgets(store)
    assert reader.total(ISSUES, state="all", created_by=who) == sum(1 for i in issues if i.poster == who)
    assert reader.total(ISSUES, state="all", assigned_by=who) == sum(1 for i in issues if who in i.assignees)
    mentioned = sum(1 for i in issues if store.mentions(i, who))
    assert reader.total(ISSUES, state="all", mentioned_by=who) == mentioned


@pytest.mark.parametrize("param", ["created_by", "assigned_by", "mentioned_by"])
def test_an_unknown_user_filter_is_404_naming_the_user_in_errors(reader: Client, param: str) -> None:
    response = reader.get(ISSUES, **{param: "nobody"})
    assert response.status_code == 404
    assert response.json() == {
        "errors": ["user does not exist [uid: 0, name: nobody]"],
        "message": "not found",
        "url": f"{reader.standin.url}/api/swagger",
    }


# -- paging ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "size"), [(None, 30), (0, 30), (-5, 30), ("x", 30), (1, 1), (10, 10), (50, 50), (51, 50), (1000, 50)]
)
def test_limit_default_and_silent_clamp(reader: Client, limit: object, size: int) -> None:
    params = {"state": "all"} if limit is None else {"state": "all", "limit": limit}
    assert len(reader.json(ISSUES, **params)) == size


def test_newest_created_first_and_pages_do_not_overlap(reader: Client) -> None:
    first = reader.json(ISSUES, state="all", limit=50, page=1)
    second = reader.json(ISSUES, state="all", limit=50, page=2)
    numbers = [i["number"] for i in first + second]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == 100
    created = [i["created_at"] for i in first + second]
    assert created == sorted(created, reverse=True)
    assert numbers[0] == WIDGETS_COUNT
    assert reader.json(ISSUES, state="all", page=0, limit=3) == reader.json(ISSUES, state="all", page=1, limit=3)


def test_link_header_pages_with_absolute_urls_keeping_the_query(reader: Client) -> None:
    response = reader.get(ISSUES, state="all", labels="bug", limit=10, page=2)
    total = int(response.headers["X-Total-Count"])
    links = _links(response.headers["Link"])
    assert set(links) == {"next", "last", "first", "prev"}
    last = -(-total // 10)
    for rel, page in (("next", 3), ("last", last), ("first", 1), ("prev", 1)):
        url = urlsplit(links[rel])
        assert f"{url.scheme}://{url.netloc}{url.path}" == f"{reader.standin.url}/api/v1{ISSUES}"
        assert parse_qs(url.query) == {"state": ["all"], "labels": ["bug"], "limit": ["10"], "page": [str(page)]}
    # Keys come sorted, as Go's url.Values.Encode writes them.
    assert links["next"].endswith("?labels=bug&limit=10&page=3&state=all")
    assert "Link" in response.headers["Access-Control-Expose-Headers"]
    assert "X-Total-Count" in response.headers["Access-Control-Expose-Headers"]


def test_first_and_last_pages_have_only_their_links(reader: Client) -> None:
    first = _links(reader.get(ISSUES, state="all", limit=50).headers["Link"])
    assert set(first) == {"next", "last"}
    last_page = -(-WIDGETS_COUNT // 50)
    last = _links(reader.get(ISSUES, state="all", limit=50, page=last_page).headers["Link"])
    assert set(last) == {"first", "prev"}


def test_no_link_when_everything_fits_on_one_page(reader: Client) -> None:
    response = reader.get(ISSUES, state="all", limit=50, q="dark mode")
    assert int(response.headers["X-Total-Count"]) <= 50
    assert "Link" not in response.headers
    assert response.headers["Access-Control-Expose-Headers"] == "X-Total-Count"


def test_a_page_past_the_end_is_empty_with_total_and_links_back(reader: Client) -> None:
    response = reader.get(ISSUES, state="all", limit=50, page=99)
    assert response.json() == []
    assert response.headers["X-Total-Count"] == str(WIDGETS_COUNT)
    assert set(_links(response.headers["Link"])) == {"first", "prev"}


@pytest.mark.parametrize("path", ["/repos/acme/empty/issues", "/repos/acme/gadgets/issues?labels=nosuch&q=zzzz"])
def test_total_count_is_sent_even_for_nothing(reader: Client, path: str) -> None:
    response = reader.session.get(f"{reader.standin.url}/api/v1{path}", timeout=5)
    assert response.json() == []
    assert response.headers["X-Total-Count"] == "0"
    assert "Link" not in response.headers


def test_case_insensitive_owner_and_repo_in_the_list(reader: Client) -> None:
    assert reader.total("/repos/ACME/Widgets/issues", state="all") == WIDGETS_COUNT


# -- single issues -------------------------------------------------------------------------------------------


def test_a_pull_request_is_served_by_the_issue_endpoint(reader: Client) -> None:
    pull = reader.json(f"{ISSUES}/{PULL_EVERY}")
    assert pull["number"] == PULL_EVERY and pull["pull_request"]["html_url"].endswith(f"/pulls/{PULL_EVERY}")
    issue = reader.json(f"{ISSUES}/1")
    assert issue["pull_request"] is None and issue["labels"] is not None


@pytest.mark.parametrize("index", ["0", "9999", "abc"])
def test_a_missing_issue_is_404(reader: Client, index: str) -> None:
    response = reader.get(f"{ISSUES}/{index}")
    assert response.status_code == 404
    assert response.json()["message"] == "not found"


def test_go_zero_values(reader: Client) -> None:
    store = reader.standin.store
    bare = next(i for i in _widgets(store) if not i.assignees and not i.milestone_id and i.state == "open")
    issue = reader.json(f"{ISSUES}/{bare.number}")
    assert issue["assignees"] is None and issue["assignee"] is None
    assert issue["milestone"] is None and issue["closed_at"] is None and issue["due_date"] is None
    assert issue["assets"] == []
    unlabelled = next(i for i in _widgets(store) if not i.label_ids)
    assert reader.json(f"{ISSUES}/{unlabelled.number}")["labels"] == []
