"""An agent that follows the server's own words: each next-page hint, taken literally, reaches every row once.

The hint text is parsed the way `gitea-issues-mcp call` reads a command line (shell words, typed by the tool's
input schema), then called; the rows of all pages together must be exactly the rows of one big page, in order.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

import pytest
from mcp_types import CallToolResult, TextContent

from gitea_mcp.cli.call import parse_arguments
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit.arguments import input_schema
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.tools import issue_list, issue_search
from tests.support.results import rows_of

TOOLS = {"issue_list": issue_list.TOOL, "issue_search": issue_search.TOOL}


@pytest.fixture(scope="module")
def deps() -> Iterator[Deps]:
    with StandIn() as standin:
        client = GiteaClient(standin.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
        yield Deps(client=client, policy=Policy(frozenset({"acme", "demo"})), catalog=Catalog())


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    assert not result.is_error, block.text
    return block.text


def _next_call(text: str) -> tuple[ToolDefinition, dict[str, Any]] | None:
    """The call a `help: next page: TOOL k=v …` line names, typed by that tool's schema; None on the last page."""
    line = next((x for x in text.splitlines() if x.startswith("help: next page: ")), None)
    if line is None:
        return None
    tool, *pairs = shlex.split(line.removeprefix("help: next page: "))
    definition = TOOLS[tool]
    return definition, parse_arguments(pairs, input_schema(definition.args))


def _rows(result: CallToolResult) -> list[tuple[str, int]]:
    return [(row.get("repository", ""), row["number"]) for row in rows_of(result.structured_content or {})]


def _follow(deps: Deps, tool: ToolDefinition, args: dict[str, Any]) -> tuple[list[tuple[str, int]], int]:
    result = tool.call(deps, args)
    _text(result)
    rows, pages = _rows(result), 1
    while (step := _next_call(_text(result))) is not None:
        tool, args = step
        result = tool.call(deps, args)
        rows += _rows(result)
        pages += 1
        assert pages < 100, "the hints never end"
    return rows, pages


CASES = [
    pytest.param(issue_list.TOOL, {"owner": "acme", "name": "widgets", "limit": 5}, id="list-small-pages"),
    pytest.param(
        issue_list.TOOL,
        {"owner": "acme", "name": "widgets", "labels": ["bug"], "state": "all", "type": "all", "limit": 7},
        id="list-filters",
    ),
    pytest.param(
        issue_list.TOOL, {"owner": "acme", "name": "widgets", "since": "2020-01-01", "limit": 3}, id="list-since"
    ),
    pytest.param(
        issue_list.TOOL,
        {"owner": "acme", "name": "widgets", "since": "2020-01-01", "before": "2026-06-01", "limit": 9},
        id="list-since-before",
    ),
    pytest.param(issue_search.TOOL, {"query": "label:bug is:open", "owner": "acme", "limit": 4}, id="search-owner"),
    pytest.param(
        issue_search.TOOL,
        {"query": 'repo:acme/widgets "export" is:issue', "limit": 2},
        id="search-quoted-phrase",
    ),
    pytest.param(
        issue_search.TOOL, {"query": "author:alice", "owner": "acme", "name": "widgets", "limit": 6}, id="search-author"
    ),
]


@pytest.mark.parametrize(("tool", "args"), CASES)
def test_following_next_page_hints_reaches_each_row_once_in_order(
    deps: Deps, tool: ToolDefinition, args: dict[str, Any]
) -> None:
    rows, pages = _follow(deps, tool, args)
    assert pages > 1, "pick a case with more than one page"
    assert rows == _every_row(deps, tool, args)
    assert len(set(rows)) == len(rows)


def _every_row(deps: Deps, tool: ToolDefinition, args: dict[str, Any]) -> list[tuple[str, int]]:
    """The oracle: the same arguments in pages of 50, paged by the test itself, not by the hints."""
    rows: list[tuple[str, int]] = []
    for page in range(1, 100):
        result = tool.call(deps, {**args, "limit": 50, "page": page})
        rows += _rows(result)
        if not (result.structured_content or {})["has_more"]:
            return rows
    raise AssertionError("more than 100 pages")


def test_following_the_hints_of_a_list_link_without_state_reaches_each_row_once(deps: Deps) -> None:
    """No `state` in a link and nothing open that matches: the web page shows every state on every page (v1.0 is a
    closed milestone), so page 2 through the hint is page 2 of the same list, not of the open one."""
    link = f"{deps.client.url}/acme/widgets/issues?milestone=1"
    rows, pages = _follow(deps, issue_search.TOOL, {"query": link})
    assert pages > 2, "pick a link with more than two pages"
    assert rows == _every_row(deps, issue_search.TOOL, {"query": link})
    assert len(set(rows)) == len(rows)
    everything = _every_row(deps, issue_list.TOOL, {"owner": "acme", "name": "widgets", "milestones": ["1"],
                                                  "state": "all"})  # fmt: skip
    assert [number for _, number in rows] == [number for _, number in everything]
