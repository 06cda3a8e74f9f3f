"""A live server's own web list pages against issue_search given their links: the same issues, in the same order.

Only a live server renders web pages, so this module is collected only with GITEA_LIVE_URL (see conftest.py).
The lab's main repository is public; the pages are read anonymously, as anyone who pasted the link would see them.
"""

from __future__ import annotations

import re

import pytest
import requests

from gitea_mcp.tools import issue_search
from tests.contract.conftest import deps_for
from tests.contract.lab import Lab
from tests.contract.target import Http, Target

ROW = re.compile(r'class="tw-no-underline issue-title" href="[^"]*/(\d+)"')


def web_rows(target: Target, lab: Lab, link: str) -> list[int]:
    page = requests.get(f"{target.url.rstrip('/')}/{lab.org}/{lab.repo}/{link}", timeout=60)
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
    assert [row["number"] for row in data["results"]] == shown
