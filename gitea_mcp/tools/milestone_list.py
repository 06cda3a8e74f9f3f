"""milestone_list: one page of a repository's milestones, compact: due day, issue counts, web page."""

from __future__ import annotations

import re

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp.domain.issue_filter import State
from gitea_mcp.domain.policy import DEFAULT_LIMIT, cap_limit
from gitea_mcp.gitea.errors import NotFound
from gitea_mcp.gitea.models import ListedMilestone
from gitea_mcp.gitea.page import page_of
from gitea_mcp.toolkit import envelope, missing, render, scopes
from gitea_mcp.toolkit.arguments import Arguments, Limit, Owner, PageNumber, RepoName
from gitea_mcp.toolkit.base import Deps, ToolDefinition, guard
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.reading(
    "milestone_list",
    "List a repo's milestones, soonest due first, with the total: due day, open/closed issue counts, web page. "
    "A milestone's issues: issue_list milestones=<id>.",
    scopes.READ_ISSUE,
    toolset="milestones",
    order=3,  # with the reads, after issue_get and label_list (ties go by name), before the writes
    budget=700,
    listed_budget=1450,
)
NAME = SPEC.name

# What could pass for one of a row's fields after the title: a state, a due day, the counts, or a quote.
_FIELD_LIKE = re.compile(r'[()"]|\bdue\b|\d+ (?:open|closed)\b|\d{4}-\d\d-\d\d')


class MilestoneRow(BaseModel):
    id: int
    title: str
    state: str
    due_on: str | None = Field(description="Due day, YYYY-MM-DD as the server shows it; null: none.")
    open_issues: int
    closed_issues: int
    html_url: str


class MilestoneListResult(BaseModel):
    milestones: list[MilestoneRow]
    total: int | None = Field(description="All matches from X-Total-Count; null when Gitea sent none.")
    page: int
    limit: int
    has_more: bool


class MilestoneArgs(Arguments):
    owner: Owner
    name: RepoName
    state: State = "open"
    page: PageNumber = 1
    limit: Limit = DEFAULT_LIMIT


def run(deps: Deps, args: MilestoneArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    return guard(lambda: _run(deps, args), SPEC, deps)


def _run(deps: Deps, args: MilestoneArgs) -> CallToolResult:
    owner, name = deps.policy.check_repo(args.owner, args.name)
    limit = cap_limit(args.limit)
    # `state` always sent: without it Gitea lists every milestone, not the open ones. `page` always sent: without
    # it Gitea ignores `limit` and lists them all (docs/server-behaviour.md).
    params = {"state": args.state, "page": args.page, "limit": limit}
    try:
        response = deps.client.get(["repos", owner, name, "milestones"], params)
    except NotFound:
        raise missing.repo_missing(deps, owner, name) from None
    page = page_of(response, ListedMilestone, limit, args.page)
    web = f"{deps.client.url}/{owner}/{name}/milestone/"  # the web UI's page: Gitea's JSON has no html_url
    out = MilestoneListResult(
        milestones=[_row(milestone, web) for milestone in page.rows],
        total=page.total,
        page=page.number,
        limit=page.size,
        has_more=page.has_more,
    )
    return envelope.result(_text(owner, name, args.state, out, args.limit if page.size != args.limit else None), out)


def _row(milestone: ListedMilestone, web: str) -> MilestoneRow:
    return MilestoneRow(
        id=milestone.id,
        title=milestone.title,
        state=milestone.state,
        due_on=milestone.due_on,
        open_issues=milestone.open_issues,
        closed_issues=milestone.closed_issues,
        html_url=f"{web}{milestone.id}",
    )


def _text(owner: str, name: str, state: State, out: MilestoneListResult, asked: int | None) -> str:
    found = out.milestones
    shown = render.showing(len(found), out.page, out.limit, out.total, out.has_more)
    lines = [f"{owner}/{name} milestones ({state}): {shown}"]
    if asked is not None:
        lines.append(f"note: {render.served_fewer(asked, out.limit)}")
    if found:
        lines.append("rows: id title due open/closed issues")
    lines.extend(format_row(row, show_state=state == "all") for row in found)
    repo_args = {"owner": owner, "name": name}
    hints = []
    if found:
        hints.append(f"web URL: {found[0].html_url.removesuffix(str(found[0].id))}<id>")
        hints.append(f"its issues: issue_list {render.args_text(repo_args)} milestones=<id> state=all")
    if out.has_more:
        call_args = {} if state == "open" else {"state": state}
        hints.append(render.next_page(NAME, {**repo_args, **call_args}, out.page, out.limit))
    if not found and out.page == 1 and state != "all":
        hints.append(f"no {state} milestones; state=all lists every one.")
    lines.extend(render.help_lines(hints))
    return "\n".join(lines)


def format_row(row: MilestoneRow, show_state: bool) -> str:
    """`12 v1.1 (closed) due 2026-03-31 4 open/12 closed`: the state only where the listing mixes them."""
    parts = [str(row.id), render.inline(row.title, _FIELD_LIKE)]
    if show_state:
        parts.append(f"({row.state})")
    parts.append(f"due {row.due_on}" if row.due_on else "no due day")
    parts.append(f"{row.open_issues} open/{row.closed_issues} closed")
    return " ".join(parts)


TOOL = ToolDefinition(SPEC, MilestoneArgs, MilestoneListResult, run)
