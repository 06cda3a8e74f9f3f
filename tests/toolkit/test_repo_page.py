"""A repository's issue list, its filters sent only in forms Gitea cannot drop silently (toolkit/repo_page.py): every
row checked to come from where it was asked, the names Gitea was sent found on every row, labels it cannot take
filtered here and paged here, the list asked in the names' round when they go as given. The filters' traps as an
agent meets them (renamed names, organisation labels, bounds) are in tests/tools/test_issue_list.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import responses

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.issue_filter import IssueFilter
from gitea_mcp.gitea.models import Issue, Label
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.repo_page import SCAN_ROWS, Sent, check_places, repo_page
from tests.support.gitea_json import API, LABELS, MILESTONES, issue, label, milestone
from tests.support.mocks import optional

ISSUES = f"{API}/repos/acme/widgets/issues"
LABELS_URL = f"{API}/repos/acme/widgets/labels"
MILESTONES_URL = f"{API}/repos/acme/widgets/milestones"
HELP = label("help, wanted", 20)  # a repository label Gitea's list cannot take: it splits `labels` on commas
BUG, UI = LABELS[0], LABELS[1]
V1_1 = MILESTONES[1]  # id 6


def row(number: int, **fields: Any) -> Issue:
    return Issue.model_validate(issue(number, **fields))


def list_requests(mocked: responses.RequestsMock) -> list[dict[str, str]]:
    """The query of each request for the list itself, in order."""
    urls = [urlsplit(c.request.url or "") for c in mocked.calls]
    return [dict(parse_qsl(url.query)) for url in urls if url.path.endswith("/widgets/issues")]


# -- check_places ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "name", "refused"),
    [
        pytest.param([row(2), row(1)], "widgets", "", id="all-from-there"),
        pytest.param([row(2), row(1, repo="gadgets")], None, "", id="any-repository-of-the-owner"),
        pytest.param(
            [row(2), row(1, repo="gadgets")],
            "widgets",
            "issues of 'acme/gadgets', which is not where this call asked (acme/widgets)",
            id="another-repository",
        ),
        pytest.param(
            [row(1, owner="other")],
            None,
            "issues of 'other/widgets', which is not where this call asked (acme/*)",
            id="another-owner",
        ),
        pytest.param(
            [Issue.model_validate({**issue(n), "repository": None}) for n in range(7, 0, -1)],
            "widgets",
            "Gitea answered with rows naming no repository (#7, #6, #5, #4, #3), so where they come from cannot be "
            "checked against acme/widgets; nothing is shown. A proxy in front of Gitea may be dropping fields.",
            id="placeless-rows-first-five-named",
        ),
        pytest.param(
            [Issue.model_validate({**issue(1), "repository": None})],
            None,
            "cannot be checked against acme/*;",
            id="placeless-across-the-owner",
        ),
    ],
)
def test_every_row_comes_from_where_the_call_asked(
    deps: Deps, rows: list[Issue], name: str | None, refused: str
) -> None:
    if not refused:
        check_places(deps, rows, "acme", name)
        return
    with pytest.raises(ToolFailure) as raised:
        check_places(deps, rows, "acme", name)
    assert refused in str(raised.value)


# -- Sent: what goes to Gitea, and what a row must carry -------------------------------------------------------------

ASKED = {"state": "open", "type": "issues", "labels": "Bug", "milestones": "v1.1"}


@pytest.mark.parametrize(
    ("sent", "params"),
    [
        pytest.param(Sent(), {"state": "open", "type": "issues"}, id="nothing-to-send"),
        pytest.param(Sent(labels=("bug", "ui")), {"state": "open", "type": "issues", "labels": "bug,ui"}, id="labels"),
        pytest.param(Sent(here=(Label.model_validate(HELP),)), {"state": "open", "type": "issues"}, id="here-unsent"),
        pytest.param(
            Sent(titles=("v1.1",), ids=(7,)),
            {"state": "open", "type": "issues", "milestones": "v1.1,7"},
            id="milestones-titles-then-ids",
        ),
    ],
)
def test_the_names_go_as_resolved(sent: Sent, params: dict[str, str]) -> None:
    assert sent.params(ASKED) == params


@pytest.mark.parametrize(
    ("sent", "carried", "kept"),
    [
        pytest.param(Sent(), row(1), True, id="no-filter"),
        pytest.param(Sent(labels=("bug",)), row(1, labels=[BUG, UI]), True, id="label-carried"),
        pytest.param(Sent(labels=("bug", "ui")), row(1, labels=[BUG]), False, id="a-label-missing"),
        pytest.param(Sent(titles=("v1.1",)), row(1, milestone_=V1_1), True, id="milestone-by-title"),
        pytest.param(Sent(ids=(6,)), row(1, milestone_=V1_1), True, id="milestone-by-id"),
        pytest.param(Sent(titles=("v1.0",), ids=(5,)), row(1, milestone_=V1_1), False, id="another-milestone"),
        pytest.param(Sent(titles=("v1.1",)), row(1), False, id="no-milestone"),
    ],
)
def test_a_row_without_what_gitea_was_sent_shows_it_dropped_a_name(sent: Sent, carried: Issue, kept: bool) -> None:
    assert sent.kept_by_gitea(carried) is kept


@pytest.mark.parametrize(
    ("labels", "kept"),
    [([HELP, BUG], True), ([label("help, wanted", 21)], False), ([], False)],
    ids=["carries-it", "same-name-another-id", "none"],
)
def test_a_label_filtered_here_is_matched_by_id(labels: list[dict[str, Any]], kept: bool) -> None:
    assert Sent(here=(Label.model_validate(HELP),)).kept_here(row(1, labels=labels)) is kept


# -- repo_page: the rounds -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "catalogues", "sent"),
    [
        pytest.param(IssueFilter(), {}, [{}], id="no-names-one-request"),
        pytest.param(
            IssueFilter(labels=("bug",)), {LABELS_URL: LABELS}, [{"labels": "bug"}], id="a-label-as-given-same-round"
        ),
        pytest.param(
            IssueFilter(milestones=("6",)), {MILESTONES_URL: MILESTONES}, [{"milestones": "6"}], id="a-milestone-id"
        ),
        pytest.param(
            IssueFilter(labels=("bug",), milestones=("v1.1",)),
            {LABELS_URL: LABELS, MILESTONES_URL: MILESTONES},
            [{"labels": "bug", "milestones": "v1.1"}],
            id="both-one-round",
        ),
        pytest.param(
            IssueFilter(labels=("bug\u200b",)),
            {LABELS_URL: [label("bug", 31)]},
            [{"labels": "bug\u200b"}, {"labels": "bug"}],
            id="a-name-the-server-spells-otherwise-asked-again",
        ),
    ],
)
def test_the_list_is_asked_in_the_names_round_and_again_only_when_they_change(
    mocked: responses.RequestsMock,
    deps: Deps,
    query: IssueFilter,
    catalogues: dict[str, list[dict[str, Any]]],
    sent: list[dict[str, str]],
) -> None:
    for url, rows in catalogues.items():
        mocked.get(url, json=rows, headers={"X-Total-Count": str(len(rows))})
    carried = issue(3, labels=[BUG, label("bug", 31)], milestone_=V1_1)
    mocked.get(ISSUES, json=[carried], headers={"X-Total-Count": "1"})
    page = repo_page(deps, "acme", "widgets", query, 2, 10)
    assert [r.number for r in page.rows] == [3] and page.total == 1 and page.number == 2
    base = {"state": "open", "type": "issues", "page": "2", "limit": "10"}
    assert list_requests(mocked) == [{**base, **names} for names in sent]


# -- repo_page: labels filtered here ---------------------------------------------------------------------------------

FIVE = [issue(5, labels=[HELP]), issue(4), issue(3, labels=[HELP, BUG]), issue(2), issue(1, labels=[HELP])]


@pytest.mark.parametrize(
    ("page", "limit", "numbers", "more"),
    [
        (1, 10, [5, 3, 1], False),
        (1, 3, [5, 3, 1], False),
        (1, 2, [5, 3], True),
        (2, 2, [1], False),
        (2, 1, [3], True),
        (3, 1, [1], False),
        (4, 1, [], False),
    ],
)
def test_rows_filtered_here_are_paged_here(
    mocked: responses.RequestsMock, deps: Deps, page: int, limit: int, numbers: list[int], more: bool
) -> None:
    """Gitea's list cannot take the name: every issue the other filters leave is read, and the matches paged."""
    mocked.get(LABELS_URL, json=[*LABELS, HELP], headers={"X-Total-Count": "4"})
    mocked.get(ISSUES, json=FIVE, headers={"X-Total-Count": "5"})
    served = repo_page(deps, "acme", "widgets", IssueFilter(labels=("help, wanted",)), page, limit)
    assert [r.number for r in served.rows] == numbers
    assert (served.total, served.has_more, served.number) == (3, more, page)
    assert all("labels" not in sent for sent in list_requests(mocked)), "the name never goes to Gitea"


def test_filtering_here_reads_at_most_its_bound(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(LABELS_URL, json=[*LABELS, HELP], headers={"X-Total-Count": "4"})
    mocked.get(ISSUES, json=FIVE, headers={"X-Total-Count": str(SCAN_ROWS + 1)})
    with pytest.raises(ToolFailure) as refused:
        repo_page(deps, "acme", "widgets", IssueFilter(labels=("help, wanted",)), 1, 10)
    assert str(refused.value) == (
        f"label 'help, wanted' holds a comma, which Gitea's repository list cannot filter by (it would list "
        f"everything), so it is filtered here over at most {SCAN_ROWS} issues, and the other filters leave "
        f"{SCAN_ROWS + 1}. Narrow them (state, since, milestones, a repository label)."
    )
    assert len(list_requests(mocked)) == 1, "one page shows there are too many"


# -- repo_page: names that are not there -----------------------------------------------------------------------------


def test_an_unknown_label_names_forty_of_those_there(mocked: responses.RequestsMock, deps: Deps) -> None:
    many = [label(f"area/{i:02}", 100 + i) for i in range(45)]
    mocked.get(LABELS_URL, json=many, headers={"X-Total-Count": "45"})
    mocked.get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    mocked.get(f"{API}/repos/issues/search", json=[], headers={"X-Total-Count": "0"})  # seen on no issue either
    optional(mocked).get(ISSUES, json=[issue(1)], headers={"X-Total-Count": "1"})  # asked in the same round
    with pytest.raises(ToolFailure) as refused:
        repo_page(deps, "acme", "widgets", IssueFilter(labels=("area/99",)), 1, 10)
    listed = ", ".join(f"'area/{i:02}'" for i in range(40))
    assert str(refused.value) == (
        "label 'area/99' does not exist in acme/widgets (Gitea would ignore it and list everything). "
        f"Labels there: {listed} and 5 more."
    )


def test_a_milestone_title_with_a_comma_goes_as_its_id(mocked: responses.RequestsMock, deps: Deps) -> None:
    final = milestone("v3, final", 7)
    mocked.get(MILESTONES_URL, json=[*MILESTONES, final], headers={"X-Total-Count": "3"})
    mocked.get(ISSUES, json=[issue(3, milestone_=final)], headers={"X-Total-Count": "1"})
    served = repo_page(deps, "acme", "widgets", IssueFilter(milestones=("v3, final",)), 1, 10)
    assert [r.number for r in served.rows] == [3]
    assert [sent.get("milestones") for sent in list_requests(mocked)] == ["7"], "the list waits for the id"
