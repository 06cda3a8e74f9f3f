"""Which tool calls may start: a fair share of the tool threads per caller, and a bounded wait for a slot.

Over HTTP every request brings its own token, and all of them share one process: its tool threads, the Gitea
workers and connections behind them. Unchecked, one caller's burst of slow calls takes every thread and another
caller's instant call waits behind calls that are not its own. So a caller (the forge user its token belongs to,
or the token's hash while that is not known: gitea/users.py; never the token) has at most `per_caller` calls
running; all callers together at most `threads`. A call beyond either waits, and whenever a slot frees the oldest
waiting call that may take it does. The wait is short (the server's caller
gives it: one GITEA_TIMEOUT, out of the four the call has in all, counted from its arrival); a call still waiting
then is refused in one sentence, having sent nothing.

Everything here runs on the event loop's one thread, so the counts need no lock: nothing awaits between a check
and the change it allows.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio

from gitea_mcp.gitea.client import CALLER_THREADS

# Tool calls running at once, for all callers together: each holds a thread while it talks to Gitea. The Gitea
# client keeps a connection for each of them (CALLER_THREADS).
TOOL_THREADS = CALLER_THREADS


@dataclass(eq=False)
class _Waiter:
    caller: str
    woken: anyio.Event = field(default_factory=anyio.Event)
    admitted: bool = False


class Admission:
    """Slots for tool calls: at most `per_caller` running per caller, `threads` in all."""

    def __init__(self, threads: int = TOOL_THREADS, per_caller: int = TOOL_THREADS) -> None:
        self.threads = threads
        self.per_caller = min(per_caller, threads)
        self._running: dict[str, int] = {}
        self._total = 0
        self._waiting: deque[_Waiter] = deque()
        self._limiter: anyio.CapacityLimiter | None = None

    def limiter(self) -> anyio.CapacityLimiter:
        """The tool threads' own limiter, made on the event loop that runs them. Admission already keeps the calls
        within it, so it never makes one wait; it keeps them off the default limiter other code may share."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        return self._limiter

    def running(self, caller: str) -> int:
        return self._running.get(caller, 0)

    def idle(self) -> bool:
        """Whether no call runs."""
        return self._total == 0

    @contextlib.asynccontextmanager
    async def slot(self, caller: str, wait: float) -> AsyncIterator[str | None]:
        """Yields None with a slot held until the block ends, or the sentence that refuses the call: no slot came
        within `wait` seconds."""
        refused = await self._enter(caller, wait)
        try:
            yield refused
        finally:
            if refused is None:
                self._leave(caller)

    async def _enter(self, caller: str, wait: float) -> str | None:
        if self._may_start(caller):
            self._start(caller)
            return None
        waiter = _Waiter(caller)
        self._waiting.append(waiter)
        try:
            with anyio.move_on_after(max(wait, 0)):
                await waiter.woken.wait()
        except BaseException:  # cancelled (the client went away): give back what it may have been handed
            self._withdraw(waiter)
            raise
        if waiter.admitted:
            return None
        self._waiting.remove(waiter)
        return self._busy(caller)

    def _may_start(self, caller: str) -> bool:
        return self._total < self.threads and self.running(caller) < self.per_caller

    def _start(self, caller: str) -> None:
        self._running[caller] = self.running(caller) + 1
        self._total += 1

    def _leave(self, caller: str) -> None:
        left = self.running(caller) - 1
        if left:
            self._running[caller] = left
        else:
            del self._running[caller]  # no entry per caller seen, only per caller running
        self._total -= 1
        self._hand_on()

    def _hand_on(self) -> None:
        """Start the oldest waiting calls that may start now (a slot freed by one caller may go to another's)."""
        for waiter in list(self._waiting):
            if self._total >= self.threads:
                return
            if self._may_start(waiter.caller):
                self._waiting.remove(waiter)
                self._start(waiter.caller)
                waiter.admitted = True
                waiter.woken.set()

    def _withdraw(self, waiter: _Waiter) -> None:
        if waiter.admitted:
            self._leave(waiter.caller)
        else:
            self._waiting.remove(waiter)

    def _busy(self, caller: str) -> str:
        mine = self.running(caller)
        if mine >= self.per_caller:
            return (
                f"gitea_mcp is busy with {mine} calls of this user already (at most {self.per_caller} run at once "
                "per user, all its tokens together), so this call was not started and nothing was sent; try again in "
                "a few seconds."
            )
        return (
            f"The server is busy: it runs at most {self.threads} tool calls at once and all are taken, so this call "
            "was not started and nothing was sent; try again in a few seconds."
        )
