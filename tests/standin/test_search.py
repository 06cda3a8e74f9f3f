"""GET /repos/issues/search: visibility, any-of labels, owner/team, the limit rules, the caller's booleans.

The default stand-in answers as Gitea 1.25; `newer` as Gitea 1.26 (created_by honoured, other limit rules),
as the stand-in modelled it before the contract suite, not verified against a live 1.26.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gitea_mcp.standin import ALICE_TOKEN, CAROL_TOKEN, DEMO_PUBLIC_TOKEN, DEMO_TOKEN, Profile, StandIn
from gitea_mcp.standin.store import Issue, Store
from tests.standin.conftest import Client

SEARCH = "/repos/issues/search"


@pytest.fixture(scope="module")
def newer() -> Iterator[Client]:
    with StandIn(profile=Profile("1.26.1")) as standin:
        yield Client(standin)


def _in(store: Store, *full_names: str) -> list[Issue]:
    ids = {r.id for r in store.repos.values() if r.full_name in full_names}
    return [i for i in store.issues.values() if i.repo_id in ids]


def _repos_seen(reader: Client, token: str | None) -> set[str]:
    found = reader.json(SEARCH, token, state="all", limit=-1)
    return {i["repository"]["full_name"] for i in found}


@pytest.mark.parametrize(
    ("token", "repos"),
    [
        (None, {"acme/widgets", "acme/gadgets"}),
        (DEMO_TOKEN, {"acme/widgets", "acme/gadgets", "demo/notes", "other/secret"}),
        (DEMO_PUBLIC_TOKEN, {"acme/widgets", "acme/gadgets"}),
        (ALICE_TOKEN, {"acme/widgets", "acme/gadgets"}),
    ],
)
def test_only_repositories_the_caller_can_see(reader: Client, token: str | None, repos: set[str]) -> None:
    assert _repos_seen(reader, token) == repos


def test_items_carry_their_repository(reader: Client) -> None:
    item = reader.json(SEARCH, state="all", limit=1)[0]
    repo = item["repository"]
    assert set(repo) == {"id", "name", "owner", "full_name"}
    assert repo["full_name"] == f"{repo['owner']}/{repo['name']}"


def test_labels_are_any_of_across_repositories_and_organisations(reader: Client) -> None:
    store = reader.standin.store
    visible = _in(store, "acme/widgets", "acme/gadgets", "demo/notes", "other/secret")

    def count(*names: str) -> int:
        return sum(1 for i in visible if {store.labels[x].name for x in i.label_ids} & set(names))

    assert reader.total(SEARCH, state="all", labels="docs,security") == count("docs", "security")
    assert reader.total(SEARCH, state="all", labels="triage") == count("triage")  # the org label counts here
    assert reader.total(SEARCH, state="all", labels="confidential") == count("confidential")
    assert reader.total(SEARCH, state="all", labels="nosuch") == len(visible)


def test_milestones_by_name(reader: Client) -> None:
    store = reader.standin.store
    ids = {m.id for m in store.milestones.values() if m.title == "v2.0"}
    want = sum(1 for i in store.issues.values() if i.milestone_id in ids)
    assert reader.total(SEARCH, state="all", milestones="v2.0") == want


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"owner": "nobody"}, 400, "user does not exist [uid: 0, name: nobody]"),
        ({"team": "core"}, 400, "Owner organisation is required for filtering on team"),
        ({"owner": "acme", "team": "nope"}, 400, "team does not exist [org_id 5, team_id 0, name: nope]"),
        ({"since": "soon"}, 422, 'parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"'),
    ],
)
def test_errors(reader: Client, params: dict[str, str], status: int, message: str) -> None:
    response = reader.get(SEARCH, **params)
    assert response.status_code == status
    assert response.json()["message"] == message


def test_owner_and_team_narrow_the_repositories(reader: Client) -> None:
    store = reader.standin.store
    assert reader.total(SEARCH, state="all", owner="other") == len(_in(store, "other/secret"))
    assert reader.total(SEARCH, state="all", owner="ACME") == len(_in(store, "acme/widgets", "acme/gadgets"))
    assert reader.total(SEARCH, state="all", owner="acme", team="core") == len(
        _in(store, "acme/widgets", "acme/gadgets")
    )
    assert reader.total(SEARCH, state="all", owner="other", token=ALICE_TOKEN) == 0


def _page_size(reader: Client, params: dict[str, Any]) -> tuple[int, int]:
    response = reader.get(SEARCH, state="all", **params)
    return len(response.json()), int(response.headers["X-Total-Count"])


@pytest.mark.parametrize(
    ("params", "size"),
    [
        ({}, 20),  # UI.IssuePagingNum, not the API's 30
        ({"limit": 0}, 20),
        ({"limit": 7}, 7),
        ({"limit": 120}, 50),  # clamped to MAX_RESPONSE_ITEMS
        ({"limit": 120, "q": "the"}, 50),
        ({"limit": -1}, None),  # a negative limit passes through: everything
    ],
)
def test_limit_rules(reader: Client, params: dict[str, Any], size: int | None) -> None:
    served, total = _page_size(reader, params)
    assert served == (total if size is None else min(size, total))


@pytest.mark.parametrize(
    ("params", "size"),
    [
        ({}, 30),
        ({"limit": 0}, 30),
        ({"limit": 120}, 120),  # without a keyword the limit is not clamped
        ({"limit": 120, "q": "the"}, 50),  # with one it is
        ({"limit": -1}, None),
    ],
)
def test_limit_rules_from_gitea_1_26(newer: Client, params: dict[str, Any], size: int | None) -> None:
    served, total = _page_size(newer, params)
    assert served == (total if size is None else min(size, total))


def test_paging_headers(reader: Client) -> None:
    response = reader.get(SEARCH, state="all", limit=10, page=2)
    assert 'rel="next"' in response.headers["Link"] and 'rel="prev"' in response.headers["Link"]
    assert int(response.headers["X-Total-Count"]) > 20


@pytest.mark.parametrize("flag", ["created", "assigned", "mentioned"])
def test_caller_booleans(reader: Client, flag: str) -> None:
    store = reader.standin.store
    visible = _in(store, "acme/widgets", "acme/gadgets", "demo/notes", "other/secret")

    def rule(issue: Issue) -> bool:
        if flag == "created":
            return issue.poster == "demo"
        if flag == "assigned":
            return "demo" in issue.assignees
        return store.mentions(issue, "demo")

    assert reader.total(SEARCH, state="all", **{flag: "true"}) == sum(1 for i in visible if rule(i))
    # Anonymously the booleans are ignored.
    assert reader.total(SEARCH, None, state="all", **{flag: "true"}) == reader.total(SEARCH, None, state="all")


def test_review_requested(reader: Client) -> None:
    store = reader.standin.store
    want = sum(1 for i in store.issues.values() if "alice" in i.requested_reviewers)
    assert want
    assert reader.total(SEARCH, ALICE_TOKEN, state="all", review_requested="1") == want


def test_type_and_keyword(reader: Client) -> None:
    public = _in(reader.standin.store, "acme/widgets", "acme/gadgets")
    assert reader.total(SEARCH, CAROL_TOKEN, state="all", type="pulls") == sum(1 for i in public if i.is_pull)
    found = reader.json(SEARCH, CAROL_TOKEN, state="all", q="Größenangaben")
    assert [i["number"] for i in found] == [13]


def test_created_by_is_ignored_before_gitea_1_26(reader: Client) -> None:
    everything = reader.total(SEARCH, CAROL_TOKEN, state="all")
    assert reader.total(SEARCH, CAROL_TOKEN, state="all", created_by="carol") == everything
    assert reader.total(SEARCH, CAROL_TOKEN, state="all", created_by="nobody") == everything  # not even looked up


def test_created_by_from_gitea_1_26(newer: Client) -> None:
    public = _in(newer.standin.store, "acme/widgets", "acme/gadgets")
    assert newer.total(SEARCH, CAROL_TOKEN, state="all", created_by="carol") == sum(
        1 for i in public if i.poster == "carol"
    )
    unknown = newer.get(SEARCH, created_by="nobody")
    assert unknown.status_code == 404 and unknown.json()["errors"] == ["user does not exist [uid: 0, name: nobody]"]
