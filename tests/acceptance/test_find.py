"""Find, page through and filter, as an agent does: each answer against the administrator's own read of the server.

A task follows the tool's `next page` hints to the end; the union of the rows must be exactly the issues the server
holds for that filter (no row twice, none missing), and every page's text must state the server's count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.acceptance.agent import Agent, Answer
from tests.acceptance.oracle import Oracle, Row, label_names, link_means, logins
from tests.acceptance.world import World
from tests.contract.target import Target


def numbers_of(answers: list[Answer]) -> list[int]:
    return [row["number"] for answer in answers for row in answer.rows]


def assert_pages_state_the_count(answers: list[Answer], total: int) -> None:
    """Every page's header says the server's count, and the span of the rows it shows."""
    first = 1
    for answer in answers:
        header = answer.header()
        assert header is not None, f"no count in the header: {answer}"
        assert answer.data["total"] == total, answer
        count = len(answer.rows)
        if count:
            assert header == (total, first, first + count - 1), answer
        else:
            assert header[0] == total, answer
        first += count


def assert_found_exactly(answers: list[Answer], expected: set[int]) -> None:
    found = numbers_of(answers)
    assert len(found) == len(set(found)), f"rows shown twice: {sorted(n for n in found if found.count(n) > 1)}"
    missing, extra = sorted(expected - set(found)), sorted(set(found) - expected)
    assert not missing and not extra, f"missing {missing}, not on the server {extra}\nfirst page: {answers[0]}"
    assert_pages_state_the_count(answers, len(expected))


# -- page through ---------------------------------------------------------------------------------------------


def test_paging_through_every_open_bug_by_the_hints(writer: Agent, oracle: Oracle, world: World) -> None:
    answers = writer.follow("issue_list", owner=world.org, name=world.repo, labels=["bug"], limit=10)
    direct = oracle.issues(labels="bug", state="open", type="issues")
    expected = {row["number"] for row in direct.rows}
    assert len(answers) == -(-len(expected) // 10) and len(expected) > 30, "several pages of open bugs"
    assert_found_exactly(answers, expected)
    assert set(direct.totals) == {len(expected)}, "the server's own count agrees with its rows"
    assert expected == oracle.numbers(lambda row: row["state"] == "open" and "bug" in label_names(row))


@pytest.mark.parametrize("tool", ["issue_list", "issue_search"])
@pytest.mark.parametrize("limit", [50, 100])
def test_a_limit_above_a_page(writer: Agent, oracle: Oracle, world: World, tool: str, limit: int) -> None:
    """limit=50 on a server that may serve fewer per page, limit=100 above the most a page holds: the pages the hints
    lead to still hold every issue once, and each page's header counts what it shows."""
    args = {"state": "all"} if tool == "issue_list" else {"query": "is:issue"}
    answers = writer.follow(tool, owner=world.org, name=world.repo, limit=limit, **args)
    assert_found_exactly(answers, {row["number"] for row in oracle.every()})


def test_paging_a_search_across_the_organisation(writer: Agent, oracle: Oracle, world: World) -> None:
    answers = writer.follow("issue_search", query="label:bug is:open", owner=world.org, limit=15)
    direct = oracle.search(owner=world.org, labels="bug", state="open", type="issues")
    assert_found_exactly(answers, {row["number"] for row in direct.rows})


# -- filter ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """A list filter as an agent asks for it, and which of the server's issues (any kind, any state) it means."""

    args: dict[str, Any]
    means: Callable[[Row, World], bool]
    kind: str = "issues"


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _has(*names: str) -> Callable[[Row, World], bool]:
    return lambda row, _: set(names) <= label_names(row)


def _open(row: Row) -> bool:
    state: str = row["state"]
    return state == "open"


FILTERS = {
    "two labels, both": Task({"labels": ["ui", "docs"], "state": "all"}, _has("ui", "docs")),
    "a label with a comma": Task({"labels": ["needs info, urgent"], "state": "all"}, _has("needs info, urgent")),
    "an organisation label": Task({"labels": ["triage"]}, lambda row, w: _open(row) and "triage" in label_names(row)),
    "an organisation label with a comma": Task({"labels": ["org, wide"], "state": "all"}, _has("org, wide")),
    "repository and organisation labels": Task({"labels": ["bug", "triage"], "state": "all"}, _has("bug", "triage")),
    "an exclusive scoped label": Task({"labels": ["priority/high"], "state": "all"}, _has("priority/high")),
    "a milestone with a comma": Task(
        {"milestones": ["Sprint, week 3"], "state": "all"},
        lambda row, _: (row.get("milestone") or {}).get("title") == "Sprint, week 3",
    ),
    "closed in a milestone": Task(
        {"milestones": ["v1.0"], "state": "closed"},
        lambda row, _: row["state"] == "closed" and (row.get("milestone") or {}).get("title") == "v1.0",
    ),
    "assigned to the writer": Task(
        {"assigned_by": "{writer}", "state": "all"}, lambda row, w: logins(row) == [w.writer]
    ),
    "filed by the reader": Task(
        {"created_by": "{reader}", "state": "all"}, lambda row, w: row["user"]["login"] == w.reader
    ),
    "closed only": Task({"labels": ["wontfix"], "state": "closed"}, _has("wontfix")),
    "pull requests": Task({"type": "pulls", "state": "all"}, lambda row, _: True, kind="pulls"),
    "updated since today (a bare date)": Task({"since": "{today}", "state": "all"}, lambda row, _: True),
}


@pytest.mark.parametrize("task", FILTERS.values(), ids=FILTERS.keys())
def test_a_filtered_list_is_what_the_server_holds(writer: Agent, oracle: Oracle, world: World, task: Task) -> None:
    names = {"writer": world.writer, "reader": world.reader, "today": _today()}
    args = {key: value.format(**names) if isinstance(value, str) else value for key, value in task.args.items()}
    answers = writer.follow("issue_list", owner=world.org, name=world.repo, limit=20, **args)
    expected = {row["number"] for row in oracle.every(task.kind) if task.means(row, world)}
    assert expected, "every task matches something on the server"
    assert_found_exactly(answers, expected)


def _updated(row: Row) -> datetime:
    return datetime.fromisoformat(row["updated_at"].replace("Z", "+00:00"))


# A bare date is a UTC day (README: since/>= include it, before/< do not, <= and a lone day include it).
DATES = {
    "list since=D": ("issue_list", {"since": "{D}"}, lambda t, d: t >= d),
    "list before=D": ("issue_list", {"before": "{D}"}, lambda t, d: t < d),
    "search updated:>=D": ("issue_search", {"query": "updated:>={D}"}, lambda t, d: t >= d),
    "search updated:<D": ("issue_search", {"query": "updated:<{D}"}, lambda t, d: t < d),
    "search updated:<=D": ("issue_search", {"query": "updated:<={D}"}, lambda t, d: t < d + timedelta(days=1)),
    "search updated:D": ("issue_search", {"query": "updated:{D}"}, lambda t, d: d <= t < d + timedelta(days=1)),
}


@pytest.mark.parametrize("days_ago", [0, 1])
@pytest.mark.parametrize(("tool", "args", "keeps"), DATES.values(), ids=DATES.keys())
def test_a_bare_date_is_a_utc_day(
    writer: Agent, oracle: Oracle, world: World, tool: str, args: dict[str, str], keeps: Any, days_ago: int
) -> None:
    """Today and yesterday against each issue's updated time as the server holds it."""
    day = datetime.now(UTC).date() - timedelta(days=days_ago)
    start = datetime.combine(day, datetime.min.time(), UTC)
    typed = {key: value.replace("{D}", day.isoformat()) for key, value in args.items()}
    extra = {"state": "all"} if tool == "issue_list" else {}
    answers = writer.follow(tool, owner=world.org, name=world.repo, limit=50, **extra, **typed)
    assert_found_exactly(answers, {row["number"] for row in oracle.every() if keeps(_updated(row), start)})


# -- search -----------------------------------------------------------------------------------------------------

SEARCHES = {
    "two words": ("Discussion thread", {"q": "Discussion thread"}),
    "a unicode word": ("Größenangaben", {"q": "Größenangaben"}),
    "a number that is also an issue's number": ("12", {"q": "12"}),
    "a number inside a title": ("404", {"q": "404"}),
    "a word and a label": ("crash label:bug", {"q": "crash", "labels": "bug"}),
    "closed, by keyword": ("Typo is:closed", {"q": "Typo", "state": "closed"}),
}


@pytest.mark.parametrize(("query", "params"), SEARCHES.values(), ids=SEARCHES.keys())
def test_a_search_in_the_tracker_is_what_the_server_finds(
    writer: Agent, oracle: Oracle, world: World, query: str, params: dict[str, str]
) -> None:
    answers = writer.follow("issue_search", query=query, owner=world.org, name=world.repo, limit=20)
    direct = oracle.issues(**{"state": "all", "type": "issues", **params})  # a search's default: every state
    assert direct.rows, "every search finds something on the server"
    assert_found_exactly(answers, {row["number"] for row in direct.rows})


QUALIFIED = {
    "a quoted label name with a comma": ('label:"needs info, urgent"', _has("needs info, urgent")),
    "a quoted organisation label with a comma": ('label:"org, wide"', _has("org, wide")),
    "a quoted milestone with a comma": (
        'milestone:"Sprint, week 3"',
        lambda row, _: (row.get("milestone") or {}).get("title") == "Sprint, week 3",
    ),
    "an organisation label and a repository label": ("label:triage label:bug", _has("triage", "bug")),
}


@pytest.mark.parametrize(("query", "means"), QUALIFIED.values(), ids=QUALIFIED.keys())
def test_a_search_by_qualifiers_is_what_the_server_holds(
    writer: Agent, oracle: Oracle, world: World, query: str, means: Callable[[Row, World], bool]
) -> None:
    """A quoted name is one name, commas and all; an organisation label is a label of the repository's issues."""
    answers = writer.follow("issue_search", query=query, owner=world.org, name=world.repo, limit=20)
    assert_found_exactly(answers, {row["number"] for row in oracle.every() if means(row, world)})


def test_a_search_by_organisation_label_across_the_owner(writer: Agent, oracle: Oracle, world: World) -> None:
    answers = writer.follow("issue_search", query="label:triage", owner=world.org, limit=20)
    assert_found_exactly(answers, oracle.numbers(lambda row: "triage" in label_names(row)))


# -- pasted links ---------------------------------------------------------------------------------------------

LINKS = {
    "only closed issues match, no state given": "issues?labels={wontfix}",
    "two labels, every state": "issues?labels={bug},{ui}&state=all",
    "a milestone": "issues?milestone={v1}&state=all",
    "open issues": "issues",
    "pull requests": "pulls?state=all",
}


@pytest.mark.parametrize("link", LINKS.values(), ids=LINKS.keys())
def test_a_pasted_list_link_pages_through_what_its_page_shows(
    writer: Agent, oracle: Oracle, world: World, target: Target, link: str
) -> None:
    ids = {"bug": world.labels["bug"], "ui": world.labels["ui"], "wontfix": world.labels["wontfix"]}
    path = f"{world.org}/{world.repo}/" + link.format(v1=world.milestones["v1.0"], **ids)
    answers = writer.follow("issue_search", query=f"{target.url.rstrip('/')}/{path}")
    if target.live:
        expected = oracle.web_rows(path)
        assert numbers_of(answers) == expected, "the same issues as the web pages, in their order"
    else:
        expected = link_means(world, oracle.every, path)
    assert_found_exactly(answers, set(expected))
