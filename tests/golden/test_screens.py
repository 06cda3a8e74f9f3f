"""What an agent reads, compared whole: a change of output is a reviewed diff, not a silent drift.

Each screen is a tool's text against the stand-in's deterministic seed data, stored in `screens/NAME.txt`.
Regenerate deliberately with `UPDATE_GOLDEN=1 pytest tests/golden` and review the diff.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mcp_types import CallToolResult, TextContent

from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.policy import Policy
from gitea_mcp.standin import DEMO_TOKEN, MANY_COMMENTS_ISSUE, StandIn
from gitea_mcp.tools import issue_comment, issue_create, issue_get, issue_list, issue_search, issue_update
from gitea_mcp.tools.base import Deps
from gitea_mcp.tools.issue_comment import CommentArgs
from gitea_mcp.tools.issue_create import CreateArgs
from gitea_mcp.tools.issue_get import GetArgs
from gitea_mcp.tools.issue_list import ListArgs
from gitea_mcp.tools.issue_search import SearchArgs
from gitea_mcp.tools.issue_update import UpdateArgs

SCREENS = Path(__file__).parent / "screens"
SHOWN_URL = "https://gitea.example.com"

Screen = Callable[[Deps], CallToolResult]
CASES: dict[str, Screen] = {
    "list": lambda d: issue_list.run(d, ListArgs(owner="acme", name="widgets", labels="bug", limit=5)),
    "list_everything": lambda d: issue_list.run(
        d, ListArgs(owner="acme", name="widgets", state="all", type="all", limit=4)
    ),
    "list_empty": lambda d: issue_list.run(d, ListArgs(owner="acme", name="empty")),
    "search_none": lambda d: issue_search.run(d, SearchArgs(query="nothing-like-this", owner="acme", name="widgets")),
    "search_one": lambda d: issue_search.run(d, SearchArgs(query='"Größenangaben"', owner="acme", name="widgets")),
    "search_many": lambda d: issue_search.run(d, SearchArgs(query="export label:bug is:open", owner="acme", limit=3)),
    "get_with_comments": lambda d: issue_get.run(
        d, GetArgs(owner="acme", name="widgets", number=MANY_COMMENTS_ISSUE, max_chars=120)
    ),
    "error_owner_not_allowed": lambda d: issue_list.run(d, ListArgs(owner="other", name="secret")),
    "error_unknown_label": lambda d: issue_list.run(d, ListArgs(owner="acme", name="widgets", labels="bugz")),
    "error_unknown_user": lambda d: issue_list.run(d, ListArgs(owner="acme", name="widgets", created_by="nobody")),
    "error_missing_repository": lambda d: issue_get.run(d, GetArgs(owner="acme", name="nope", number=1)),
    "error_missing_issue": lambda d: issue_get.run(d, GetArgs(owner="acme", name="widgets", number=9999)),
    "error_refused_query": lambda d: issue_search.run(d, SearchArgs(query="crash sort:updated", owner="acme")),
    "error_nothing_to_change": lambda d: issue_update.run(d, UpdateArgs(owner="acme", name="widgets", number=3)),
    "error_empty_comment": lambda d: issue_comment.run(
        d, CommentArgs(owner="acme", name="widgets", number=3, body="  ")
    ),
    "error_empty_title": lambda d: issue_create.run(d, CreateArgs(owner="acme", name="widgets", title=" ")),
}  # fmt: skip


@pytest.fixture(scope="module")
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


def text_of(result: CallToolResult, forge: StandIn) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text.replace(forge.url, SHOWN_URL) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_screen(name: str, forge: StandIn) -> None:
    client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
    deps = Deps(client=client, policy=Policy(frozenset({"acme", "demo"})), catalog=Catalog())
    shown = text_of(CASES[name](deps), forge)
    path = SCREENS / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        SCREENS.mkdir(exist_ok=True)
        path.write_text(shown, encoding="utf-8")
    assert path.exists(), f"no golden file for {name}: run UPDATE_GOLDEN=1 pytest tests/golden"
    assert shown == path.read_text(encoding="utf-8"), f"{name} changed: review, then UPDATE_GOLDEN=1"
