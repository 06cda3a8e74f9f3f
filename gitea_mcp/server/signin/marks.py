"""What a sealed value cannot say about itself: that it was already used. A code is spent by its first exchange,
a refresh token by its first refresh (Gitea keeps a used refresh token working by default, so a stolen one
replayed would not be noticed there); a second use is refused.

The mark is the value's `jti`, kept until the value expires anyway. With GITEA_MCP_REDIS_URL, in the Redis the
replicas share (SET NX PX: whichever replica sees it first wins); without it, in this process alone, which is
right for one replica only (docs/operators.md says so).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

PREFIX = "gitea-mcp:spent:"
KEPT = 100_000  # marks one process keeps at most; the oldest go first (a code lives two minutes)


class Marks(Protocol):
    def spend(self, jti: str, until: float) -> bool:
        """True the first time `jti` is spent; False ever after (until `until`, a time.time())."""
        ...

    def spent(self, jti: str) -> bool:
        """Whether `jti` was spent (and its mark not yet expired)."""
        ...


class Unreachable(Exception):
    """The shared store could not be asked: the value is refused (fail closed), nothing is spent."""


class MemoryMarks:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._spent: dict[str, float] = {}
        self._lock = threading.Lock()

    def spend(self, jti: str, until: float) -> bool:
        with self._lock:
            now = self._clock()
            if self._spent.get(jti, 0.0) > now:
                return False
            self._spent[jti] = until
            if len(self._spent) > KEPT:
                self._make_room(now)
            return True

    def spent(self, jti: str) -> bool:
        with self._lock:
            return self._spent.get(jti, 0.0) > self._clock()

    def _make_room(self, now: float) -> None:
        """Expired marks go first, all at once (a scan only when full); only if every mark is still live does the
        oldest go, and a used value that old could be used again: the limit of one replica without Redis."""
        for jti in [jti for jti, until in self._spent.items() if until <= now]:
            del self._spent[jti]
        while len(self._spent) > KEPT:
            del self._spent[next(iter(self._spent))]


class RedisMarks:
    def __init__(self, store: Any, clock: Callable[[], float] = time.time) -> None:
        self._store = store  # a redis.Redis
        self._clock = clock

    def spend(self, jti: str, until: float) -> bool:
        from redis.exceptions import RedisError

        ms = max(1, int((until - self._clock()) * 1000))
        try:
            return bool(self._store.set(PREFIX + jti, "1", px=ms, nx=True))
        except RedisError:
            raise Unreachable(_UNREACHABLE) from None

    def spent(self, jti: str) -> bool:
        from redis.exceptions import RedisError

        try:
            return self._store.get(PREFIX + jti) is not None
        except RedisError:
            raise Unreachable(_UNREACHABLE) from None


_UNREACHABLE = "the replicas' shared store (GITEA_MCP_REDIS_URL) did not answer"
