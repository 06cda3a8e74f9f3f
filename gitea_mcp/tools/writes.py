"""What the write tools share: names resolved to ids, and finding out whether a write already happened.

A write is sent once and never retried. When its answer is lost (timeout, dropped connection) or is neither its
result nor a refusal (a proxy's 502 page, JSON cut short) the outcome is unknown, so before answering we look for the
entity it may have written; a write that was never sent (no connection) changed nothing and is said to. The same lookup
keeps a retried call from filing the same issue or comment twice.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, wait
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp import render
from gitea_mcp.errors import ToolFailure
from gitea_mcp.gitea import titles
from gitea_mcp.gitea.catalog import fresh, milestone_named
from gitea_mcp.gitea.errors import GiteaError, NoAnswer
from gitea_mcp.gitea.models import Issue, Milestone
from gitea_mcp.spec import ToolSpec
from gitea_mcp.tools.base import Deps, guard

T = TypeVar("T")
DUPLICATE_WINDOW = timedelta(minutes=10)


def resolve_milestone(deps: Deps, owner: str, name: str, wanted: str) -> Milestone:
    """A milestone by exact title, else by id; the cached list is read afresh before a name is refused."""
    milestones = fresh(
        lambda at: deps.catalog.milestones(deps.client, owner, name, at),
        lambda got: milestone_named(got, wanted) is None,
    )
    found = milestone_named(milestones, wanted)
    if found is None:
        titles = ", ".join(repr(m.title) for m in milestones) or "(none)"
        raise ToolFailure(f"milestone {wanted!r} does not exist in {owner}/{name}. Milestones there: {titles}.")
    return found


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


def recent_issues(deps: Deps, owner: str, name: str) -> list[Issue]:
    """Issues touched in the duplicate window, newest first (one page: a busy repo is searched as far as 50)."""
    since = (datetime.now(UTC) - DUPLICATE_WINDOW).strftime("%Y-%m-%dT%H:%M:%SZ")
    params: dict[str, str | int] = {"state": "all", "type": "issues", "since": since, "limit": 50}
    response = deps.client.get(["repos", owner, name, "issues"], params)
    return response.many(Issue)


def same_issue(issues: list[Issue], login: str, title: str, body: str, after: int = 0) -> Issue | None:
    """The issue this user filed in the window with the same title and body, if any (numbered above `after`).

    `title` is the title as Gitea keeps it (`kept_title`): a long title is stored cut.
    """
    cutoff = datetime.now(UTC) - DUPLICATE_WINDOW
    for issue in issues:
        if (
            issue.number > after
            and issue.author.lower() == login.lower()
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


RECHECK_AFTER = 1.5  # seconds: a write whose answer was lost may still be committing


def send_once(write: Callable[[], T], find: Callable[[], Any | None], what: str, look: str) -> tuple[T | Any, bool]:
    """Send a write once. If it was sent and no clear answer came back, look for what it may have written.

    Returns (entity, confirmed_by_lookup). `find` must accept only what this write can have made (newer than
    anything that existed before it), so an older identical entity is never reported as just written. When nothing
    is found the outcome is unknown — the write may still be committing — so it says so, with `look`: how to check
    before retrying. A refusal (3xx, 4xx) and a write never sent (NotSent: no connection) changed nothing and are
    raised as they are.
    """
    try:
        return write(), False
    except NoAnswer as exc:  # lost, or answered with neither the result nor a refusal (UnclearAnswer)
        lost = exc
    try:
        found = look_up(find, lost)
    except GiteaError as exc:
        raise ToolFailure(
            f"The {what} was sent but {lost.cause}, and checking failed too ({exc}). "
            f"{look} before retrying, or the {what} may be filed twice."
        ) from None
    if found is None:
        raise ToolFailure(
            f"The outcome of the {what} is unknown: {lost.cause}, and it is not there yet. "
            f"{look} before retrying, or the {what} may be filed twice."
        )
    return found, True


def look_up(find: Callable[[], T | None], lost: NoAnswer) -> T | None:
    """After a write with no clear answer: what it wrote, if `find` sees it. Looked for once more after a short
    wait, since a write whose answer a proxy gave up on may still be committing — unless Gitea itself answered (its
    own error body): then its handler has finished, and a second look would find nothing new."""
    found = find()
    if found is None and not lost.settled:
        time.sleep(RECHECK_AFTER)
        found = find()
    return found


def run_once(
    deps: Deps,
    tool: ToolSpec,
    allow_duplicate: bool,
    key: tuple[object, ...],
    run: Callable[[], CallToolResult],
    rest: tuple[object, ...] = (),
) -> CallToolResult:
    """A deduplicated write tool's call: calls in flight with the same `key` (what the duplicate check compares)
    run one at a time, and identical ones (`rest` too) share one run, unless duplicates are asked for."""
    if allow_duplicate:  # asked to write each time: nothing to share
        return guard(run, tool, deps)
    return guard(lambda: single_flight((tool.name, deps.client.cache_key, *key), run, rest), tool, deps)


_IN_FLIGHT: dict[tuple[object, ...], tuple[tuple[object, ...], Future[CallToolResult]]] = {}
_IN_FLIGHT_LOCK = threading.Lock()
_WAITING: Counter[tuple[object, ...]] = Counter()  # calls waiting on the one in flight, by key


def waiting() -> int:
    """How many calls wait on another in flight with their key, in this process (a seam for tests, which must know
    a second call has arrived before they let the first finish)."""
    with _IN_FLIGHT_LOCK:
        return sum(_WAITING.values())


def single_flight(
    key: tuple[object, ...], run: Callable[[], CallToolResult], rest: tuple[object, ...] = ()
) -> CallToolResult:
    """Writes in flight at once in this process with the same key run once: a second waits and gets the first's
    outcome when it asked for the same (`rest`), else it runs after the first, whose write its check then sees.

    The duplicate check reads before it writes, so two identical calls at the same moment would both see nothing
    and both file; an agent that retries while the first call is still running does exactly that. A retry that
    asks for more (another label) must hear what of it was not applied, not the first call's answer.
    """
    while True:
        with _IN_FLIGHT_LOCK:
            running = _IN_FLIGHT.get(key)
            if running is None:
                mine: Future[CallToolResult] = Future()
                _IN_FLIGHT[key] = (rest, mine)
                break
            _WAITING[key] += 1
        asked, outcome = running
        try:
            if asked == rest:
                return outcome.result()
            wait([outcome])  # then look again: the first call's write is there to be found
        finally:
            with _IN_FLIGHT_LOCK:
                _WAITING[key] -= 1
    try:
        result = run()
        mine.set_result(result)
        return result
    except BaseException as exc:
        mine.set_exception(exc)
        raise
    finally:
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.pop(key, None)


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
    return WrittenIssue(**render.issue_facts(issue, WrittenIssue.model_fields), outcome=outcome, warnings=warnings)


def written_text(owner: str, name: str, out: WrittenIssue, verb: str, hints: list[str]) -> str:
    """`acme/widgets#7 created: Title`, the URL, one line of facts, warnings and hints."""
    facts = render.facts_line(out, ("state", "author", "updated_at", "labels", "assignees", "milestone", "due_date"))
    lines = [f"{owner}/{name}#{out.number} {verb}: {render.exact(out.title)}", f"url {out.html_url}", facts]
    lines += [f"warning: {w}" for w in out.warnings]
    lines += render.help_lines(hints)
    return "\n".join(lines)
