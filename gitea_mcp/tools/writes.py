"""What the write tools share: names resolved to ids, and finding out whether a write already happened.

A write is sent once and never retried. When its answer is lost (timeout, dropped connection) the
outcome is unknown, so before answering we look for the entity it may have written. The same lookup
keeps a retried call from filing the same issue or comment twice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from gitea_mcp.errors import ToolFailure
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.models import Issue, Label, Milestone
from gitea_mcp.tools.base import Deps

T = TypeVar("T")
DUPLICATE_WINDOW = timedelta(minutes=10)


def resolve_labels(deps: Deps, owner: str, name: str, names: list[str]) -> list[int]:
    """Label names → ids, from the repository's labels and its organisation's; unknown names fail with the list."""
    available = _labels(deps, owner, name)
    by_name = {label.name: label.id for label in available}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        known = ", ".join(repr(n) for n in sorted(by_name)) or "(none)"
        raise ToolFailure(
            f"label {', '.join(repr(u) for u in unknown)} does not exist in {owner}/{name}. Labels there: {known}."
        )
    return [by_name[n] for n in names]


def _labels(deps: Deps, owner: str, name: str) -> list[Label]:
    repo, org = deps.client.parallel(
        lambda: deps.catalog.labels(deps.client, owner, name),
        lambda: deps.catalog.org_labels(deps.client, owner),
    )
    return [*repo, *org]


def forget_labels(deps: Deps, owner: str, name: str) -> None:
    deps.catalog.forget("labels", deps.client, owner, name)
    deps.catalog.forget("org_labels", deps.client, owner)


def resolve_milestone(deps: Deps, owner: str, name: str, wanted: str) -> Milestone:
    """A milestone by exact title, else by id."""
    milestones = deps.catalog.milestones(deps.client, owner, name)
    for milestone in milestones:
        if milestone.title == wanted:
            return milestone
    for milestone in milestones:
        if wanted.isdigit() and milestone.id == int(wanted):
            return milestone
    titles = ", ".join(repr(m.title) for m in milestones) or "(none)"
    raise ToolFailure(f"milestone {wanted!r} does not exist in {owner}/{name}. Milestones there: {titles}.")


def recent_issues(deps: Deps, owner: str, name: str) -> list[Issue]:
    """Issues touched in the duplicate window, newest first (one page: a busy repo is searched as far as 50)."""
    since = (datetime.now(UTC) - DUPLICATE_WINDOW).strftime("%Y-%m-%dT%H:%M:%SZ")
    params: dict[str, str | int] = {"state": "all", "type": "issues", "since": since, "limit": 50}
    response = deps.client.get(["repos", owner, name, "issues"], params)
    return [Issue.model_validate(item) for item in response.data or []]


def same_issue(issues: list[Issue], login: str, title: str, body: str) -> Issue | None:
    """The issue this user filed in the window with the same title and body, if any."""
    cutoff = datetime.now(UTC) - DUPLICATE_WINDOW
    for issue in issues:
        if (
            issue.author.lower() == login.lower()
            and issue.title == title
            and (issue.body or "").strip() == body.strip()
            and _parse_time(issue.created_at) >= cutoff
        ):
            return issue
    return None


def _parse_time(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def send_once(write: Callable[[], T], find: Callable[[], Any | None], what: str) -> tuple[T | Any, bool]:
    """Send a write once. If its answer is lost, look for what it may have written.

    Returns (entity, confirmed_by_lookup). Raises a clear ToolFailure when the write certainly did not
    happen or its outcome cannot be established.
    """
    try:
        return write(), False
    except GiteaError as exc:
        if exc.status != 0:
            raise  # Gitea answered: the write was refused and nothing changed
        lost = exc
    try:
        found = find()
    except GiteaError as exc:
        raise ToolFailure(
            f"The {what} was sent but Gitea's answer was lost ({lost}), and checking failed too ({exc}). "
            f"Look before retrying, or the {what} may be filed twice."
        ) from None
    if found is None:
        raise ToolFailure(f"The {what} was NOT written: Gitea's answer was lost ({lost}) and no such {what} exists.")
    return found, True
