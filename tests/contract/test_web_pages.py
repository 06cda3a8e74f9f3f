"""A live server's own web list pages against issue_search given their links: the same issues, in the same order.

Only a live server renders web pages, so this module is collected only with GITEA_LIVE_URL (see conftest.py).
The lab's main repository is public; the pages are read anonymously, as anyone who pasted the link would see them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from mcp_types import CallToolResult, TextContent

from gitea_mcp.tools import issue_search, milestone_list
from tests.contract.conftest import deps_for
from tests.contract.lab import MANY_CLOSED, Lab
from tests.contract.target import Http, Target
from tests.support.results import rows_of

ROW = re.compile(r'class="tw-no-underline issue-title" href="[^"]*/(\d+)"')


def web_rows(target: Target, lab: Lab, link: str, repo: str = "") -> list[int]:
    page = requests.get(f"{target.url.rstrip('/')}/{lab.org}/{repo or lab.repo}/{link}", timeout=60)
    assert page.status_code == 200, page.status_code
    return [int(number) for number in ROW.findall(page.text)]


LINKS = [
    "issues?state=all",
    "issues",
    "issues?state=closed",
    "pulls?state=all",
    "issues?labels={bug}&state=all",
    "issues?labels={bug},{ui}&state=all",
    "issues?milestone={v1}&state=all",
    "issues?poster={writer}&state=all",
    "issues?assignee={assignee}&state=all",
    "issues?q=Export&state=all",
]


@pytest.mark.parametrize("link", LINKS)
def test_a_web_list_page_and_its_link_in_issue_search_show_the_same_rows(
    target: Target, lab: Lab, http: Http, link: str
) -> None:
    ids = {
        "bug": lab.labels["bug"],
        "ui": lab.labels["ui"],
        "v1": lab.milestones["v1"],
        "writer": http.ok("GET", f"/users/{lab.writer}", lab.tokens["writer"])["id"],
        "assignee": http.ok("GET", f"/users/{lab.assignee}", lab.tokens["writer"])["id"],
    }
    path = link.format(**ids)
    shown = web_rows(target, lab, path)
    assert shown, "every case matches something on its web page"
    result = issue_search.TOOL.call(
        deps_for(target, lab), {"query": f"{target.url.rstrip('/')}/{lab.org}/{lab.repo}/{path}"}
    )
    data = result.structured_content or {}
    assert not result.is_error, result.content
    assert [row["number"] for row in rows_of(data)] == shown


def test_without_state_every_page_of_a_closed_only_list_shows_every_state(target: Target, lab: Lab) -> None:
    """No `state`, nothing open, something closed: the web shows every state on page 2 too, and so does the link in
    issue_search, whether page 2 is in the link, in the page argument, or reached through the hint."""
    link = f"issues?milestone={lab.milestones['archive']}"
    web = [web_rows(target, lab, f"{link}&page={page}", lab.many_repo) for page in (1, 2)]
    assert [len(rows) for rows in web] == [20, MANY_CLOSED - 20]
    url = f"{target.url.rstrip('/')}/{lab.org}/{lab.many_repo}/{link}"
    deps = deps_for(target, lab)
    for call in ({"query": f"{url}&page=2"}, {"query": url, "page": 2}):
        assert [row["number"] for row in _results(issue_search.TOOL.call(deps, call))] == web[1]
    first = issue_search.TOOL.call(deps, {"query": url})
    assert [row["number"] for row in _results(first)] == web[0]
    hint = next(line for line in _text(first).splitlines() if line.startswith("help: next page: "))
    assert "state=all" in hint and "page=2" in hint


def _results(result: CallToolResult) -> list[dict[str, Any]]:
    assert not result.is_error, result.content
    return rows_of(result.structured_content or {})


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_a_milestones_html_url_is_its_web_page(target: Target, lab: Lab) -> None:
    """Gitea's milestone JSON has no html_url: milestone_list builds it, and the web must serve that page."""
    result = milestone_list.TOOL.call(deps_for(target, lab), {"owner": lab.org, "name": lab.repo, "state": "all"})
    assert not result.is_error, result.content
    for row in (result.structured_content or {})["milestones"]:
        page = requests.get(row["html_url"], timeout=60)
        assert page.status_code == 200 and row["title"] in page.text, (row["html_url"], page.status_code)
