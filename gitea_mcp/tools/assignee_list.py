"""assignee_list: who Gitea will accept as an assignee in a repository, one compact line each."""

from __future__ import annotations

from mcp_types import CallToolResult
from pydantic import BaseModel

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea.errors import NO_TOKEN, NotFound, Unauthorized
from gitea_mcp.gitea.models import Assignee
from gitea_mcp.toolkit import envelope, missing, render, scopes
from gitea_mcp.toolkit.arguments import Arguments, Owner, RepoName
from gitea_mcp.toolkit.base import Deps, ToolDefinition, guard
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.reading(
    "assignee_list",
    "Who can be assigned to issues in a repo (users with write access): login and full name, all of them. "
    "Needs read:repository.",
    # Gitea serves this list only to read:repository, which reaches a repository's code too: declared as a note, as
    # issue_get's reviews are, so that neither `check` nor the sign-in asks every user for it; without it the call
    # answers that the token lacks it.
    scopes.READ_ISSUE,
    toolset="people",
    order=3,  # with the reads (ties go by name: before issue_get), before the writes
    budget=400,
    listed_budget=900,
    scope_note=f"(and `{scopes.READ_REPOSITORY}`, the only scope Gitea serves this list to)",
)
NAME = SPEC.name


class AssigneeRow(BaseModel):
    login: str
    full_name: str


class AssigneeListResult(BaseModel):
    assignees: list[AssigneeRow]
    total: int


class AssigneeArgs(Arguments):
    owner: Owner
    name: RepoName


def run(deps: Deps, args: AssigneeArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    return guard(lambda: _run(deps, args), SPEC, deps)


def _run(deps: Deps, args: AssigneeArgs) -> CallToolResult:
    owner, name = deps.policy.check_repo(args.owner, args.name)
    try:
        # One list, whole: Gitea neither pages it nor counts it (docs/server-behaviour.md).
        users = deps.client.get(["repos", owner, name, "assignees"]).many(Assignee)
    except NotFound:
        raise missing.repo_missing(deps, owner, name) from None
    except Unauthorized:
        if deps.client.has_token:
            raise
        raise ToolFailure(
            f"Gitea lists who can be assigned only to a token, even for a public repository (401): {NO_TOKEN}; set "
            f"GITEA_TOKEN to a token with {scopes.READ_REPOSITORY}."
        ) from None
    # By login: Gitea lists the writers by name, then appends a user owner.
    rows = sorted((AssigneeRow(login=u.login, full_name=u.full_name) for u in users), key=lambda r: r.login.lower())
    out = AssigneeListResult(assignees=rows, total=len(rows))
    return envelope.result(_text(owner, name, out), out)


def _text(owner: str, name: str, out: AssigneeListResult) -> str:
    header = f"{owner}/{name}: {render.counted(out.total, 'user')} can be assigned"
    if not out.assignees:
        return f"{header}\nhelp: only users with write access can be; nobody here has it but the owner organisation."
    people = ", ".join(format_row(row) for row in out.assignees)
    return f"{header}: {people}"


def format_row(row: AssigneeRow) -> str:
    """`@alice` or `@alice (Alice Liddell)`: the full name only when it says more than the login."""
    shown = render.user(row.login)
    full = row.full_name.strip()
    if not full or full.lower() == row.login.lower():
        return shown
    return f"{shown} ({render.inline(full)})"


TOOL = ToolDefinition(SPEC, AssigneeArgs, AssigneeListResult, run)
