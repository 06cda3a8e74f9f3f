"""The duplicate check of the write-once tools: the same issue (or comment) filed by the same user minutes ago is
that issue (comment).

docs/decisions/0003-writes-once.md says why the window is ten minutes and what is compared.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from gitea_mcp.domain import dates
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.models import Comment, Issue
from gitea_mcp.toolkit.base import Deps

DUPLICATE_WINDOW = timedelta(minutes=10)


def window_start(deps: Deps) -> datetime:
    """The first moment of the duplicate window, by the deps' clock (tests set it)."""
    return deps.now() - DUPLICATE_WINDOW


def since_param(deps: Deps) -> str:
    """The window's start as Gitea's `since` parameter (whole seconds, UTC)."""
    return dates.rfc3339(int(window_start(deps).timestamp()))


def recent_issues(deps: Deps, owner: str, name: str) -> list[Issue]:
    """Issues touched in the duplicate window, newest first (one page: a busy repo is searched as far as 50)."""
    since = since_param(deps)
    params: dict[str, str | int] = {"state": "all", "type": "issues", "since": since, "limit": 50}
    response = deps.client.get(["repos", owner, name, "issues"], params)
    return response.many(Issue)


def same_issue(
    issues: list[Issue], login: str, title: str, body: str, cutoff: datetime, after: int = 0
) -> Issue | None:
    """The issue this user filed since `cutoff` with the same title and body, if any (numbered above `after`).

    `title` is the title as Gitea keeps it (`kept_title`): a long title is stored cut.
    """
    for issue in issues:
        if (
            issue.number > after
            and issue.author.lower() == login.lower()
            and issue.title == title
            and (issue.body or "").strip() == body.strip()
            and dates.instant(issue.created_at) >= cutoff
        ):
            return issue
    return None


def recent_comments(deps: Deps, issue: list[Segment]) -> list[Comment]:
    """The comments on the issue at `issue` (its API path) made in the duplicate window, oldest first."""
    return deps.client.get([*issue, "comments"], {"since": since_param(deps)}).many(Comment)


def same_comment(comments: list[Comment], login: str, body: str, after: int = 0) -> Comment | None:
    """The newest of `comments` by this user with this text (ids above `after`: newer than all seen before a write)."""
    for comment in reversed(comments):
        if comment.id > after and comment.author.lower() == login.lower() and comment.body.strip() == body.strip():
            return comment
    return None
