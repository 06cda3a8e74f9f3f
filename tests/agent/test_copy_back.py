"""An agent that copies what it read back into a write: a title or label name as shown, on either face, is the
exact text but for the invisible characters every answer drops, so sending it back rewrites nothing (Gitea keeps
runs of spaces: verified on Gitea 1.25.4; a title that hid a zero-width space keeps it)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from mcp_types import CallToolResult, TextContent

from gitea_mcp.domain.invisible import scrub
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_create, issue_get, issue_list, issue_update
from tests.support.results import ok

WIDGETS = {"owner": "acme", "name": "widgets"}
TITLES = ["Double  spaced   title", "Tab\tinside", "Zero\u200bwidth", "Plain title"]


@pytest.fixture(scope="module")
def deps() -> Iterator[Deps]:
    with StandIn() as standin:
        client = GiteaClient(standin.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
        yield Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())


def read_back(shown: str) -> str:
    """What an agent copies out of a line: a quoted title is a JSON string; anything else is the text itself."""
    return json.loads(shown) if shown.startswith('"') else shown


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def filed(deps: Deps, title: str) -> int:
    _, data = ok(issue_create.TOOL.call(deps, {**WIDGETS, "title": title, "body": f"about {title!r}"}))
    number: int = data["number"]
    return number


@pytest.mark.parametrize("title", TITLES)
def test_a_title_copied_from_issue_get_rewrites_nothing(deps: Deps, title: str) -> None:
    number = filed(deps, title)
    got = issue_get.TOOL.call(deps, {**WIDGETS, "number": number})
    header = text_of(got).splitlines()[0]
    from_text = read_back(header.split(") ", 1)[1])
    _, data = ok(got)
    for copied in (from_text, data["title"]):
        text, out = ok(issue_update.TOOL.call(deps, {**WIDGETS, "number": number, "title": copied}))
        assert out["outcome"] == "unchanged", text
    assert stored_title(deps, number) == title


def stored_title(deps: Deps, number: int) -> str:
    """The title as the server keeps it (answers drop what is invisible: domain/invisible)."""
    title: str = deps.client.get(["repos", "acme", "widgets", "issues", str(number)]).data["title"]
    return title


@pytest.mark.parametrize("title", TITLES)
def test_a_title_copied_from_an_issue_list_row_rewrites_nothing(deps: Deps, title: str) -> None:
    number = filed(deps, title)
    listed = issue_list.TOOL.call(deps, {**WIDGETS, "limit": 50})
    row = next(line for line in text_of(listed).splitlines() if line.startswith(f"#{number} "))
    match = re.match(rf'#{number} ("(?:[^"\\]|\\.)*"|.*?) \d{{4}}-', row)
    assert match, row
    args: dict[str, Any] = {**WIDGETS, "number": number, "title": read_back(match.group(1)), "state": "closed"}
    text, out = ok(issue_update.TOOL.call(deps, args))
    assert text.startswith(f"acme/widgets#{number} updated (state)"), text
    assert out["title"] == scrub(title) and stored_title(deps, number) == title
