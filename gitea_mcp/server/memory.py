"""Memory that large answers leave behind, given back to the system (glibc; elsewhere nothing is done).

A tool call may read two answers of up to 8 MiB each (an issue and its comments: gitea/client.MAX_BODY) however
little of them it shows. glibc's malloc gives each thread that contends for it an arena of its own (up to eight
per core), keeps what a thread frees in its arena for reuse, and after each large block it frees raises both its
mmap threshold and its trim threshold (up to 32 and 64 MiB), so later large answers come from the arenas too and
their freed space is never handed back. 24 calls reading such answers at once peaked near 320 MiB and left the
server resident at some 80 to 230 MiB more than before them, for good (`task bench`, section answers). So:
- before the first tool call reads anything (`prepare`): at most ARENAS arenas, and both thresholds fixed at
  glibc's own starting values (`mallopt`, which also stops their rise): a large block is a mapping of its own,
  returned when freed, and an arena's free top is trimmed as it grows;
- once no tool call has run for QUIET seconds (`idle`), if the process has grown GROWTH past its size after the
  last trim, the young garbage is collected and `malloc_trim(0)` returns the free pages of every arena, on a
  thread of its own. A trim that finds
  the memory still in use (caches that grew) makes that size the mark the next one is measured from.
Measuring costs a `pread` of /proc/self/statm (some 2 µs), once per quiet moment.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import os
import threading
from collections.abc import Callable

# mallopt's parameter numbers (glibc's malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
THRESHOLD = 128 * 1024  # glibc's own starting value of both thresholds, kept
ARENAS = 2  # the tool threads hold the interpreter lock for most of their work: more arenas only hold more memory
GROWTH = 16 * 1024 * 1024  # bytes resident past the last trim that a quiet moment gives back
QUIET = 1.0  # seconds without a tool call before a trim: none in the middle of a burst


class Trimmer:
    def __init__(self) -> None:
        self.libc: ctypes.CDLL | None = None
        self.prepared = False
        self.statm: tuple[int, int] | None = None  # (pid, fd): /proc/self opened again after a fork
        self.mark = 0  # bytes resident after the last trim (or at `prepare`)
        self.pending: asyncio.TimerHandle | None = None
        self.trimming = threading.Lock()

    def prepare(self) -> None:
        if self.prepared:
            return
        self.prepared = True
        if not os.path.exists("/proc/self/statm"):
            return
        try:
            libc = ctypes.CDLL(None)  # the process's own symbols, the C library's among them
            libc.malloc_trim  # noqa: B018 (glibc's: musl has none, and nothing is done there)
            for parameter, value in (M_ARENA_MAX, ARENAS), (M_MMAP_THRESHOLD, THRESHOLD), (M_TRIM_THRESHOLD, THRESHOLD):
                libc.mallopt(parameter, value)
            self.mark = self.resident()
        except (OSError, AttributeError):
            return
        self.libc = libc

    def resident(self) -> int:
        pid = os.getpid()
        if self.statm is None or self.statm[0] != pid:
            self.statm = (pid, os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC))
        return int(os.pread(self.statm[1], 64, 0).split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def idle(self, still_idle: Callable[[], bool]) -> None:
        """No tool call runs now (on the event loop): look again in QUIET seconds."""
        if self.libc is None:
            return
        if self.pending is not None:
            self.pending.cancel()
        self.pending = asyncio.get_running_loop().call_later(QUIET, self._look, still_idle)

    def _look(self, still_idle: Callable[[], bool]) -> None:
        self.pending = None
        try:
            grown = still_idle() and self.resident() >= self.mark + GROWTH
        except OSError:  # /proc unreadable (a sandbox): nothing to measure, nothing done
            self.libc = None
            return
        if grown:  # a trim walks every arena (milliseconds once hundreds of MiB are free): not on the event loop
            threading.Thread(target=self.trim, name="gitea-mcp-trim", daemon=True).start()

    def trim(self) -> None:
        if self.libc is None or not self.trimming.acquire(blocking=False):
            return
        try:
            # The calls' young garbage first: a failure kept as a value keeps its traceback's frames, and what they
            # read, in a cycle only the collector frees, and an idle server allocates nothing that would run it (the
            # two youngest generations: some 5 ms after 24 large calls).
            gc.collect(1)
            self.libc.malloc_trim(0)
            self.mark = self.resident()
        finally:
            self.trimming.release()


TRIMMER = Trimmer()
