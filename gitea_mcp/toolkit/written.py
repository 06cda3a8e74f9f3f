"""An issue as a write left it: its title as Gitea kept it, and the result issue_create and issue_update return."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gitea_mcp.gitea import titles
from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit import facts, render
from gitea_mcp.toolkit.base import Deps


def kept_title(deps: Deps, title: str) -> str:
    """The title as Gitea will store it: a title over 255 bytes is cut, by a rule that depends on the release."""
    if not titles.may_cut(title):
        return title
    return titles.cut(title, by_width=deps.catalog.server(deps.client).cuts_titles_by_width)


def title_notes(sent: str, issue: Issue) -> list[str]:
    """Say so when the issue's title is Gitea's cut of the one sent: the agent would otherwise quote it whole."""
    if not titles.may_cut(sent) or issue.title == sent:
        return []
    return [
        f"Gitea shortened the title to {len(issue.title)} of its {len(sent)} characters (it cuts titles longer "
        "than 255 bytes); the title above is what it kept."
    ]


class WrittenIssue(BaseModel):
    """An issue as it is after a write: what issue_create and issue_update return."""

    number: int
    title: str
    state: str
    author: str
    labels: list[str]
    assignees: list[str]
    milestone: str | None
    due_date: str | None
    created_at: str
    updated_at: str
    html_url: str
    outcome: str = Field(description="What happened, e.g. created, already_existed, updated, unchanged.")
    warnings: list[str]


def written(issue: Issue, outcome: str, warnings: list[str]) -> WrittenIssue:
    return WrittenIssue(**facts.issue_facts(issue, WrittenIssue.model_fields), outcome=outcome, warnings=warnings)


def written_text(owner: str, name: str, out: WrittenIssue, verb: str, hints: list[str]) -> str:
    """`acme/widgets#7 created: Title`, the URL, one line of facts, warnings and hints."""
    facts = render.facts_line(out, ("state", "author", "updated_at", "labels", "assignees", "milestone", "due_date"))
    lines = [f"{owner}/{name}#{out.number} {verb}: {render.exact(out.title)}", f"url {out.html_url}", facts]
    lines += [f"warning: {w}" for w in out.warnings]
    lines += render.help_lines(hints)
    return "\n".join(lines)
