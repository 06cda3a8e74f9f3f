"""issue_list: one page of a repository's issues, compact, with the total and the way to the next page."""

from __future__ import annotations

from typing import Annotated

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp.domain import dates
from gitea_mcp.domain.issue_filter import USER_FILTERS, IssueFilter, Kind, State, gitea_dates
from gitea_mcp.domain.policy import DEFAULT_LIMIT, cap_limit, validate_name
from gitea_mcp.toolkit import envelope, render, repo_page, rows, scopes
from gitea_mcp.toolkit.arguments import Arguments, Limit, Names, Owner, PageNumber, RepoName
from gitea_mcp.toolkit.base import Deps, ToolDefinition, guard
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.reading(
    "issue_list",
    f"List a repo's issues, newest first, with the total. since/before: updated time. {dates.RULE} Text search: "
    "issue_search; body, comments: issue_get.",
    scopes.READ_ISSUE,
    toolset="issues",
    order=1,
    budget=1290,
    listed_budget=2120,
)
NAME = SPEC.name

_KIND: dict[Kind, str] = {"issues": "issues", "pulls": "pull requests", "all": "issues and pull requests"}


class IssueListResult(BaseModel):
    issues: list[rows.IssueRow]
    total: int | None = Field(description="All matches from X-Total-Count; null when Gitea sent none.")
    page: int
    limit: int
    has_more: bool


class ListArgs(Arguments):
    owner: Owner
    name: RepoName
    # Literals: the schema's enum, mypy's check of our code, and a wrong value refused in one sentence
    # (arguments.parse) where Gitea would quietly take it as the default.
    state: State = "open"
    labels: Names = Field(default_factory=list, description="All must match.")
    milestones: Names = Field(default_factory=list, description="Names or ids.")
    since: str | None = None  # the date rule is in the description, stated once for both
    before: str | None = None
    created_by: str | None = None
    assigned_by: Annotated[str | None, Field(description="Assignee.")] = None
    mentioned_by: Annotated[str | None, Field(description="Mentioned user.")] = None
    type: Kind = "issues"
    page: PageNumber = 1
    limit: Limit = DEFAULT_LIMIT


def run(deps: Deps, args: ListArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    return guard(lambda: _run(deps, args), SPEC, deps)


def _run(deps: Deps, args: ListArgs) -> CallToolResult:
    owner, name = deps.policy.check_repo(args.owner, args.name)
    for key in USER_FILTERS:  # usernames follow the same rule as owner names
        if (login := getattr(args, key)) is not None:
            validate_name(login, key)
    limit = cap_limit(args.limit)
    since, before = gitea_dates(args.since, args.before)
    query = IssueFilter(
        state=args.state,
        type=args.type,
        labels=tuple(args.labels),
        milestones=tuple(args.milestones),
        since=since,
        before=before,
        created_by=args.created_by,
        assigned_by=args.assigned_by,
        mentioned_by=args.mentioned_by,
    )
    page = repo_page.repo_page(deps, owner, name, query, page=args.page, limit=limit)
    out = IssueListResult(
        issues=[
            rows.issue_row(issue, pulls_in=query.type != "issues")
            for issue in deps.screen_issues(f"{owner}/{name}", page.rows)
        ],
        total=page.total,
        page=page.number,
        limit=page.size,
        has_more=page.has_more,
    )
    text = _text(owner, name, query, out, args.limit if page.size != args.limit else None)
    return envelope.result(text, out)


def _text(owner: str, name: str, query: IssueFilter, out: IssueListResult, asked: int | None) -> str:
    found = out.issues
    count = len(found)
    call_args = query.call_args()  # once, for the header and the next page's hint
    header = f"{owner}/{name} {_KIND[query.type]} ({query.describe(call_args)}): "
    header += render.showing(count, out.page, out.limit, out.total, out.has_more)
    lines = [header]
    if asked is not None:
        lines.append(f"note: {render.served_fewer(asked, out.limit)}")
    if count:
        lines.append("rows: #number title [labels] @assignees Nc=comments created/updated")
    lines.extend(format_row(row, show_state=query.state == "all", show_kind=query.type == "all") for row in found)
    repo_args = {"owner": owner, "name": name}
    hints = []
    if count:
        hints.append(f"web URL: {url_template(found)}")
        hints.append(f"details: issue_get {render.args_text(repo_args)} number=<number>")
    if out.has_more:
        hints.append(render.next_page(NAME, {**repo_args, **call_args}, out.page, out.limit))
    if not count and out.page == 1:
        hints.append("nothing matches these filters; widen them (for example state=all) or check their values.")
    lines.extend(render.help_lines(hints))
    return "\n".join(lines)


def url_template(found: list[rows.IssueRow]) -> str:
    """One line instead of a URL per row: `https://host/o/r/issues/<number>` (PRs live under /pulls/)."""
    for row in found:
        suffix = f"/{row.number}"
        if row.html_url.endswith(suffix):
            template = row.html_url[: -len(suffix)] + "/<number>"
            return template.replace("/pulls/<number>", "/issues/<number>") + (
                " (pull requests: /pulls/<number>)" if any(r.is_pull for r in found) else ""
            )
    return "(Gitea sent no URLs)"


def format_row(row: rows.IssueRow, show_state: bool, show_kind: bool) -> str:
    marks = [m for m, on in (("PR", show_kind and row.is_pull), (row.state, show_state)) if on]
    parts = [f"#{row.number}"]
    if marks:
        parts.append(f"({', '.join(marks)})")
    parts.append(render.inline(row.title))
    if row.labels:
        parts.append(f"[{','.join(render.label_inline(label) for label in row.labels)}]")
    if row.assignees:
        parts.append(" ".join(render.user(login) for login in row.assignees))
    if row.comments:
        parts.append(f"{row.comments}c")
    parts.append(_dates(row.created_at, row.updated_at))
    return " ".join(parts)


def _dates(created: str, updated: str) -> str:
    """`2026-11-20/11-28`: created, then updated without the year when it is the same year."""
    c, u = created[:10], updated[:10]
    if u == c:
        return c
    return f"{c}/{u[5:]}" if u[:4] == c[:4] else f"{c}/{u}"


TOOL = ToolDefinition(SPEC, ListArgs, IssueListResult, run)
