"""What an agent reads, compared whole: a change of output is a reviewed diff, not a silent drift.

Each screen is a tool's text against the stand-in's deterministic seed data, stored in `screens/NAME.txt`.
Regenerate deliberately with `UPDATE_GOLDEN=1 pytest tests/golden` and review the diff. Each tool's own example
screen (`screens/example_<tool>.txt`, its plain call) is made and checked with the other files made from the tool
modules: tests/support/generated.py, tests/test_generated.py.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp_types import CallToolResult, TextContent

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import DEMO_ALL_TOKEN, DEMO_TOKEN, MANY_COMMENTS_ISSUE, REVIEWED_PULL, StandIn
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.toolkit.lockdown import TITLE_MARK, Lockdown
from gitea_mcp.tools import (
    assignee_list,
    issue_comment,
    issue_create,
    issue_get,
    issue_list,
    issue_search,
    issue_update,
    label_list,
    milestone_list,
)

SCREENS = Path(__file__).parent / "screens"
SHOWN_URL = "https://gitea.example.com"
WIDGETS = {"owner": "acme", "name": "widgets"}

# name → (tool, arguments as an agent sends them); {url} is the server's address. Reads share one stand-in.
CASES: dict[str, tuple[ToolDefinition, dict[str, Any]]] = {
    "list": (issue_list.TOOL, {**WIDGETS, "labels": ["bug"], "limit": 5}),
    "list_everything": (issue_list.TOOL, {**WIDGETS, "state": "all", "type": "all", "limit": 4}),
    "list_empty": (issue_list.TOOL, {"owner": "acme", "name": "empty"}),
    "search_none": (issue_search.TOOL, {"query": "nothing-like-this", **WIDGETS}),
    "search_one": (issue_search.TOOL, {"query": '"Größenangaben"', **WIDGETS}),
    "search_many": (issue_search.TOOL, {"query": "export label:bug is:open", "owner": "acme", "limit": 3}),
    "search_link": (issue_search.TOOL, {"query": "{url}/acme/widgets/issues?state=closed&labels=1", "limit": 3}),
    "get_with_comments": (issue_get.TOOL, {**WIDGETS, "number": MANY_COMMENTS_ISSUE, "max_chars": 120}),
    "get_link": (issue_get.TOOL, {"url": "{url}/acme/widgets/issues/3", "max_chars": 200}),
    "get_pull_without_read_repository": (issue_get.TOOL, {**WIDGETS, "number": REVIEWED_PULL, "max_chars": 120}),
    "labels_scoped": (label_list.TOOL, {"owner": "acme", "name": "empty"}),
    "error_owner_not_allowed": (issue_list.TOOL, {"owner": "other", "name": "secret"}),
    "error_unknown_label": (issue_list.TOOL, {**WIDGETS, "labels": "bugz"}),
    "error_unknown_user": (issue_list.TOOL, {**WIDGETS, "created_by": "nobody"}),
    "error_unknown_argument": (issue_list.TOOL, {**WIDGETS, "status": "closed"}),
    "error_invalid_value": (issue_list.TOOL, {**WIDGETS, "limit": 0}),
    "error_missing_repository": (issue_get.TOOL, {"owner": "acme", "name": "nope", "number": 1}),
    "error_missing_issue": (issue_get.TOOL, {**WIDGETS, "number": 9999}),
    "error_refused_query": (issue_search.TOOL, {"query": "crash sort:updated", "owner": "acme"}),
    "error_link_elsewhere": (issue_get.TOOL, {"url": "https://elsewhere.example/acme/widgets/issues/3"}),
    "error_nothing_to_change": (issue_update.TOOL, {**WIDGETS, "number": 3}),
    "error_empty_comment": (issue_comment.TOOL, {**WIDGETS, "number": 3, "body": "  "}),
    "error_comment_without_state": (issue_update.TOOL, {**WIDGETS, "number": 3, "comment": "Fixed."}),
    "error_empty_title": (issue_create.TOOL, {**WIDGETS, "title": " "}),
    "error_moved_away": (issue_list.TOOL, {"owner": "acme", "name": "secret"}),
    "milestones_every_state": (milestone_list.TOOL, {**WIDGETS, "state": "all"}),
    "error_assignees_without_read_repository": (assignee_list.TOOL, WIDGETS),
}
# Screens read with a token that has more than the documented scopes (read:repository: a PR's reviews).
EVERY_SCOPE: dict[str, tuple[ToolDefinition, dict[str, Any]]] = {
    "get_pull_reviews": (issue_get.TOOL, {**WIDGETS, "number": REVIEWED_PULL, "max_chars": 120}),
    "labels_with_org": (label_list.TOOL, WIDGETS),  # read:organization: the organisation's labels too
    "assignees": (assignee_list.TOOL, WIDGETS),
    "assignees_of_a_user_repository": (assignee_list.TOOL, {"owner": "demo", "name": "notes"}),
}
# Writes each get a fresh stand-in, so they change nothing the reads show; their times are the moment they ran.
WRITES: dict[str, tuple[ToolDefinition, dict[str, Any]]] = {
    "create": (issue_create.TOOL, {**WIDGETS, "title": "Export fails on empty input", "labels": ["bug", "ui"]}),
    "create_long_title": (issue_create.TOOL, {**WIDGETS, "title": "Export fails " + "on empty input, " * 20}),
    "update": (issue_update.TOOL, {**WIDGETS, "number": 3, "state": "closed", "add_labels": ["docs"]}),
    "update_unchanged": (issue_update.TOOL, {**WIDGETS, "number": 9, "state": "open", "assignees": ["alice"]}),
    "update_close_with_comment": (
        issue_update.TOOL,
        {**WIDGETS, "number": 3, "state": "closed", "comment": "Fixed in the nightly build."},
    ),
    "comment": (issue_comment.TOOL, {**WIDGETS, "number": 3, "body": "Fixed in the nightly build."}),
}


@pytest.fixture(scope="module")
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


def text_of(result: CallToolResult, forge: StandIn) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return _moments(block.text.replace(forge.url, SHOWN_URL)) + "\n"


def _moments(text: str) -> str:
    """A time within a day of now (a write's own) is shown as <now>: the screen stays the same on every run."""
    now = datetime.now(UTC)

    def shown(match: re.Match[str]) -> str:
        moment = datetime.fromisoformat(match.group(0).replace("Z", "+00:00"))
        return "<now>" if abs(moment - now) < timedelta(days=1) else match.group(0)

    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)", shown, text)


def deps_for(forge: StandIn, token: str = DEMO_TOKEN) -> Deps:
    client = GiteaClient(forge.url, token, timeout=10, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme", "demo"})), catalog=Catalog())


def arguments(args: dict[str, Any], forge: StandIn) -> dict[str, Any]:
    return {k: v.replace("{url}", forge.url) if isinstance(v, str) else v for k, v in args.items()}


def compare(name: str, shown: str) -> None:
    path = SCREENS / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        SCREENS.mkdir(exist_ok=True)
        path.write_text(shown, encoding="utf-8")
    assert path.exists(), f"no golden file for {name}: run UPDATE_GOLDEN=1 pytest tests/golden"
    assert shown == path.read_text(encoding="utf-8"), f"{name} changed: review, then UPDATE_GOLDEN=1"


@pytest.mark.parametrize("name", sorted(CASES))
def test_screen(name: str, forge: StandIn) -> None:
    tool, args = CASES[name]
    compare(name, text_of(tool.call(deps_for(forge), arguments(args, forge)), forge))


@pytest.mark.parametrize("name", sorted(EVERY_SCOPE))
def test_screen_with_every_scope(name: str, forge: StandIn) -> None:
    tool, args = EVERY_SCOPE[name]
    compare(name, text_of(tool.call(deps_for(forge, DEMO_ALL_TOKEN), arguments(args, forge)), forge))


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_screen(name: str) -> None:
    tool, args = WRITES[name]
    with StandIn() as forge:
        compare(name, text_of(tool.call(deps_for(forge), arguments(args, forge)), forge))


# Under lockdown (GITEA_LOCKDOWN), with a token that confirms everything (demo administers acme/widgets and is in
# its writer team): carol, who only reads there, has her comments withheld and her issues' titles marked.
LOCKDOWN: dict[str, tuple[ToolDefinition, dict[str, Any]]] = {
    "lockdown_get": (issue_get.TOOL, {**WIDGETS, "number": 6, "max_chars": 120}),
    "lockdown_list": (issue_list.TOOL, {**WIDGETS, "state": "all", "limit": 8}),
}


@pytest.mark.parametrize("name", sorted(LOCKDOWN))
def test_lockdown_screen(name: str, forge: StandIn) -> None:
    tool, args = LOCKDOWN[name]
    deps = dataclasses.replace(deps_for(forge, DEMO_ALL_TOKEN), lockdown=Lockdown())
    shown = text_of(tool.call(deps, arguments(args, forge)), forge)
    assert "[withheld by lockdown: written by @carol" in shown or TITLE_MARK in shown
    compare(name, shown)


def test_blocker_screens() -> None:
    """A blocker added, then the blocker read: the dependency shown from both sides (a fresh stand-in: the seed
    data has none, so no other screen shows them)."""
    with StandIn() as forge:
        deps = deps_for(forge)
        update = {**WIDGETS, "number": 3, "blocked_by_add": ["5", "acme/widgets#9"]}
        compare("update_blocked_by", text_of(issue_update.TOOL.call(deps, update), forge))
        compare("get_blocks", text_of(issue_get.TOOL.call(deps, {**WIDGETS, "number": 5, "max_chars": 80}), forge))
