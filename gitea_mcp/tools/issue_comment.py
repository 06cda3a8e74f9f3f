"""issue_comment: add a comment once — a retried call returns the comment it already wrote."""

from __future__ import annotations

import functools
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.errors import Forbidden, GiteaError, NotFound, ServerFailed
from gitea_mcp.gitea.models import Comment, Issue
from gitea_mcp.toolkit import duplicates, envelope, in_flight, missing, render, scopes, writes
from gitea_mcp.toolkit.arguments import Arguments, Flag, Number, Owner, RepoName
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.written_once(
    "issue_comment",
    "Comment on an issue or PR; returns the comment and the new count. Safe to retry: the same text posted by "
    "you there in the last 10 minutes is returned, not posted twice (allow_duplicate=true posts anyway).",
    scopes.WRITE_ISSUE,
    scopes.READ_USER,
    toolset="issues",
    order=6,
    budget=670,
    listed_budget=1110,
)
NAME = SPEC.name


class WrittenComment(BaseModel):
    id: int
    issue: int
    author: str
    created_at: str
    html_url: str
    issue_comments: int = Field(description="The issue's comment count after this call.")
    outcome: str = Field(description="created | already_existed | created_after_lost_answer")


class CommentArgs(Arguments):
    owner: Owner
    name: RepoName
    number: Number
    body: Annotated[str, Field(description="Markdown.")]
    allow_duplicate: Flag = False  # the description says what it does


def run(deps: Deps, args: CommentArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    key = (args.owner.lower(), args.name.lower(), args.number, args.body.strip())
    refusals = functools.partial(_refusals, deps, args)
    return in_flight.run_once(deps, SPEC, args.allow_duplicate, key, lambda: _run(deps, args), (), refusals)


def _refusals(deps: Deps, args: CommentArgs) -> tuple[str, str]:
    """What refuses the call before any request: an owner outside the allowlist, an empty body."""
    owner, name = deps.policy.check_repo(args.owner, args.name)
    if not args.body.strip():
        raise BadArgument("body is empty; write the comment's text.")
    return owner, name


def _run(deps: Deps, args: CommentArgs) -> CallToolResult:
    owner, name = _refusals(deps, args)
    base: list[Segment] = ["repos", owner, name, "issues", args.number]
    try:
        # The issue (its existence and comment count), recent comments and our login, in one round trip.
        issue, recent, me = deps.client.gather(
            lambda: deps.client.get(base).one(Issue),
            lambda: duplicates.recent_comments(deps, base),  # the duplicate check, and what existed before
            lambda: deps.catalog.me(deps.client).login,
        )
    except (NotFound, ServerFailed):  # Gitea answers 500 for the comments of a missing issue
        raise missing.explain_issue_404(deps, owner, name, args.number) from None
    if not args.allow_duplicate and (existing := duplicates.same_comment(recent, me, args.body)):
        return _answer(owner, name, args.number, existing, issue.comments, "already_existed")
    before = max((comment.id for comment in recent), default=0)

    def post() -> Comment:
        return deps.client.write("POST", [*base, "comments"], {"body": args.body}).one(Comment)

    def find() -> Comment | None:  # only a comment newer than every one seen before the write can be ours
        return duplicates.same_comment(duplicates.recent_comments(deps, base), me, args.body, after=before)

    look = f"Look with issue_get owner={owner} name={name} number={args.number}"
    try:
        comment, looked_up = writes.send_once(post, find, "comment", look)
    except GiteaError as exc:
        if isinstance(exc, Forbidden) and issue.is_locked and exc.missing_scope is None:
            raise ToolFailure(
                f"{owner}/{name}#{args.number} is locked: only users who can write to the repository may comment."
            ) from None
        raise
    outcome = "created_after_lost_answer" if looked_up else "created"
    return _answer(owner, name, args.number, comment, issue.comments + 1, outcome)


def _answer(owner: str, name: str, number: int, comment: Comment, count: int, outcome: str) -> CallToolResult:
    out = WrittenComment(
        id=comment.id,
        issue=number,
        author=comment.author,
        created_at=comment.created_at,
        html_url=comment.html_url,
        issue_comments=count,
        outcome=outcome,
    )
    verb = {
        "created": "added",
        "created_after_lost_answer": "added (Gitea's answer was lost; found it by looking it up)",
        "already_existed": "already there — you posted the same text minutes ago, so nothing new was posted",
    }[outcome]
    lines = [
        f"{owner}/{name}#{number} comment {out.id} {verb}",
        f"url {out.html_url}",
        f"author {render.user(out.author)} · created {out.created_at} · "
        f"the issue now has {render.counted(count, 'comment')}",
    ]
    if outcome == "already_existed":
        lines += render.help_lines(["to post it again anyway, call issue_comment with allow_duplicate=true."])
    return envelope.result("\n".join(lines), out)


TOOL = ToolDefinition(SPEC, CommentArgs, WrittenComment, run)
