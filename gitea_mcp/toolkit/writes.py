"""A write sent once, and finding out whether it happened when no clear answer came back.

A write is sent once and never retried. When its answer is lost (timeout, dropped connection) or is neither its
result nor a refusal (a proxy's 502 page, JSON cut short) the outcome is unknown, so before answering we look for the
entity it may have written; a write that was never sent (no connection) changed nothing and is said to. The duplicate
check (toolkit/duplicates.py) and the in-flight guard (toolkit/in_flight.py) keep a retried call from filing twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea.errors import GiteaError, NoAnswer

T = TypeVar("T")

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
