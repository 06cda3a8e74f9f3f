"""Writes in flight at once in this process: identical ones run once, alike ones one after another; across
replicas too when they share a Redis (toolkit/shared_flight.py).

The duplicate check reads before it writes, so two identical calls at the same moment would both see nothing and
both file; an agent that retries while its first call still runs does exactly that.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, wait

from mcp_types import CallToolResult

import gitea_mcp.observe as observe
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.toolkit.base import Deps, guard
from gitea_mcp.toolkit.shared_flight import digest
from gitea_mcp.toolkit.spec import ToolSpec


def run_once(
    deps: Deps,
    tool: ToolSpec,
    allow_duplicate: bool,
    key: tuple[object, ...],
    run: Callable[[], CallToolResult],
    rest: tuple[object, ...] = (),
    refusals: Callable[[], object] | None = None,
) -> CallToolResult:
    """A deduplicated write tool's call: calls in flight with the same `key` (what the duplicate check compares)
    run one at a time, and identical ones (`rest` too) share one run, unless duplicates are asked for.
    `refusals`: the call's checks that need no request (the allowlist, an empty text), raising its refusal before
    anything is sent, the look-up of whose the token is included."""
    if allow_duplicate:  # asked to write each time: nothing to share
        return guard(run, tool, deps)
    shared = deps.flights

    def across_replicas(flight: tuple[object, ...]) -> CallToolResult:
        # A call on another replica that waits on this one reads this call's answer as its agent does, failure too.
        assert shared is not None
        return shared.run(flight, rest, lambda: guard(run, tool, deps), deps.client.time_left)

    def guarded() -> CallToolResult:
        if refusals is not None:
            refusals()
        flight = (tool.name, caller(deps), *key)
        noted = observe.notes()
        if noted is not None:  # the audit log's write id: the guard's own key (its Redis lock's name), a digest
            noted.write_id = digest(flight)[:16]
        if shared is None:
            return single_flight(flight, run, rest)
        # This process's guard in front: one call per key in flight asks Redis, however many arrive here.
        return single_flight(flight, lambda: across_replicas(flight), rest)

    return guard(guarded, tool, deps)


def caller(deps: Deps) -> str:
    """Whose write this is: the forge user (its id), so that two tokens of one user, a refreshed sign-in or another
    replica meet on the same key. Over HTTP the gate has learnt it, asking Gitea whose each new token is
    (gitea/users.py). Where it is not known yet it is looked up first (a round trip once an hour for a token, which
    the write's own duplicate check makes anyway): a key taken from the token while the first call learns the user
    would change under a second identical call, which then files again. A token Gitea will not say the user of
    (no read:user) stays its own caller; the write's own read of the user then says what the token lacks."""
    if deps.client.user_id is None:
        with contextlib.suppress(GiteaError):
            deps.catalog.me(deps.client)
    return deps.client.caller_key


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
        observe.write_guard("process", "joined" if asked == rest else "queued")
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
