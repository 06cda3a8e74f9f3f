"""Worker processes for HTTP mode (GITEA_MCP_WORKERS): the parent has bound the socket; each worker, a fork of it,
serves on that socket, and the kernel hands each new connection to one of them.

This is safe because the server is stateless: what must be shared (the write guard, the sign-in's spent marks) is
in Redis once GITEA_MCP_REDIS_URL is set, and settings.check_workers refuses more than one worker without it unless
the server is read-only without sign-in. The parent only forks, waits and passes a stop on: SIGTERM or SIGINT goes
to every worker, which stops as one server does (GRACE seconds for calls in flight); a worker still running
MARGIN seconds past that is killed. A worker that dies on its own is said on stderr in one line and not restarted:
the others keep serving, and a supervisor (systemd, Kubernetes) restarting the whole is the one place restarts live.

A worker whose parent dies (SIGKILL, the OOM killer) stops within ORPHANED seconds, so no orphan keeps the port:
each holds the read end of a pipe whose only write end is the parent's, and the kernel closes that end when the
parent dies, whatever killed it. A pipe rather than Linux's PR_SET_PDEATHSIG: it works wherever os.fork does
(macOS too), it has no window (a parent dead before the child looks is an end of file all the same), and the
signal would still need a deadline of its own on top of uvicorn's graceful stop.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

MARGIN = 5.0  # seconds past the grace a worker is given to exit before it is killed
ORPHANED = 1.5  # seconds an orphaned worker gives its calls in flight before it exits
POLL = 0.05  # seconds between two looks at the workers
_STOPS = (signal.SIGTERM, signal.SIGINT)


def run_workers(
    count: int,
    work: Callable[[], None],
    grace: float,
    beside: Callable[[set[int]], Callable[[], None]] | None = None,
) -> None:
    """Fork `count` workers running `work`, wait for them all; a stop signal is passed on and then raised again
    here once they are gone (so the parent ends as a single server would, 128 + the signal). `beside`: what the
    parent runs while they serve (the metrics port), started once they are forked with the set of those alive (kept
    current), and stopped by the function it returns once they are gone."""
    if threading.active_count() > 1:  # a fork copies one thread: locks another held would stay held in the child
        raise RuntimeError("worker processes must be forked before any thread starts")
    before = {signum: signal.getsignal(signum) for signum in _STOPS}
    stop = _Stop()
    for signum in _STOPS:
        signal.signal(signum, stop.caught)
    pids: set[int] = set()
    lifeline, held = os.pipe()  # the parent holds `held` until it exits; a worker reads `lifeline`
    for _ in range(count):
        if stop.signum is not None:
            break
        pid = os.fork()
        if pid == 0:
            os.close(held)  # else the worker would hold its own lifeline open
            _worker(work, before, lifeline)
        pids.add(pid)
    stop.pids = pids
    if stop.signum is not None:
        stop.forward()
    ended = beside(pids) if beside is not None else None  # threads only now: every fork is done
    try:
        _wait(pids, stop, grace + MARGIN)
    finally:
        if ended is not None:
            ended()
    for signum, handler in before.items():
        signal.signal(signum, handler)
    if stop.signum is not None:
        signal.raise_signal(stop.signum)
    sys.exit(1)  # every worker died without being told to stop


def _worker(work: Callable[[], None], handlers: dict[signal.Signals, Any], lifeline: int) -> None:
    """The child: the signal handlers the parent had (uvicorn installs its own while serving), a watch on its
    parent, `work`, and never a return into the parent's code."""
    code = 0
    try:
        # A group of its own: Ctrl-C on a terminal reaches the parent alone, which passes it on once (a second
        # signal would make uvicorn stop at once instead of letting calls in flight finish).
        os.setpgid(0, 0)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        threading.Thread(target=_orphaned, args=(lifeline,), name="lifeline", daemon=True).start()
        work()
    except BaseException:  # said in one line by the parent (exited with status 1), not a traceback per worker
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _orphaned(lifeline: int) -> None:
    """Waits for the parent's end of the pipe to close (the parent is gone); then stops this worker as SIGTERM
    does (no new connections) and ends it ORPHANED seconds later whatever is still running."""
    while os.read(lifeline, 1):  # nothing is ever written: this returns once, empty, when the parent is gone
        pass
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHANED)
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(1)


class _Stop:
    def __init__(self) -> None:
        self.signum: int | None = None
        self.at = 0.0
        self.pids: set[int] = set()

    def caught(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum, self.at = signum, time.monotonic()
        self.forward(signum)

    def forward(self, signum: int | None = None) -> None:
        for pid in list(self.pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum or self.signum or signal.SIGTERM)


def _wait(pids: set[int], stop: _Stop, bound: float) -> None:
    """Until every worker has exited; after a stop, at most `bound` seconds before the rest are killed."""
    while pids:
        for pid in list(pids):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                pids.discard(pid)
                if stop.signum is None:
                    print(_died(pid, status, len(pids)), file=sys.stderr, flush=True)
        if pids and stop.signum is not None and time.monotonic() - stop.at > bound:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(POLL)


def _died(pid: int, status: int, left: int) -> str:
    how = f"was killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "exited"
    if os.WIFEXITED(status):
        how = f"exited with status {os.waitstatus_to_exitcode(status)}"
    rest = f"{left} still serving; it is not restarted" if left else "none is left serving: the server stops"
    return f"gitea-issues-mcp: worker process {pid} {how}; {rest}"
