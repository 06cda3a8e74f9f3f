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
ENDED = "family:"  # + a sign-in's id: marked when one of its refresh tokens was used twice (signin/tokens.py)
KEPT = 100_000  # marks one process keeps at most; the oldest go first (a code lives two minutes)


class Marks(Protocol):
    def spend(self, jti: str, until: float) -> bool:
        """True the first time `jti` is spent; False ever after (until `until`, a time.time())."""
        ...

    def spent(self, jti: str) -> bool:
        """Whether `jti` was spent (and its mark not yet expired)."""
        ...

    def keep(self, key: str, value: str, until: float) -> bool:
        """`spend` with a value to read back (`get`) until `until`: True the first time, False (nothing kept) after."""
        ...

    def get(self, key: str) -> str | None:
        """The value `keep` left under `key`, None when there is none (or its time is over)."""
        ...


class Unreachable(Exception):
    """The shared store could not be asked: the value is refused (fail closed), nothing is spent."""


class MemoryMarks:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._spent: dict[str, float] = {}
        self._values: dict[str, str] = {}  # what `keep` left, for marks that have one
        self._lock = threading.Lock()

    def spend(self, jti: str, until: float) -> bool:
        return self._mark(jti, None, until)

    def keep(self, key: str, value: str, until: float) -> bool:
        return self._mark(key, value, until)

    def _mark(self, jti: str, value: str | None, until: float) -> bool:
        with self._lock:
            now = self._clock()
            if self._spent.get(jti, 0.0) > now:
                return False
            self._spent[jti] = until
            if value is None:
                self._values.pop(jti, None)
            else:
                self._values[jti] = value
            if len(self._spent) > KEPT:
                self._make_room(now)
            return True

    def spent(self, jti: str) -> bool:
        with self._lock:
            return self._spent.get(jti, 0.0) > self._clock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._values.get(key) if self._spent.get(key, 0.0) > self._clock() else None

    def _make_room(self, now: float) -> None:
        """Expired marks go first, all at once (a scan only when full); only if every mark is still live does the
        oldest go, and a used value that old could be used again: the limit of one replica without Redis."""
        for jti in [jti for jti, until in self._spent.items() if until <= now]:
            del self._spent[jti]
            self._values.pop(jti, None)
        while len(self._spent) > KEPT:
            oldest = next(iter(self._spent))
            del self._spent[oldest]
            self._values.pop(oldest, None)


class RedisMarks:
    def __init__(self, store: Any, clock: Callable[[], float] = time.time) -> None:
        self._store = store  # a redis.Redis
        self._clock = clock

    def spend(self, jti: str, until: float) -> bool:
        return self.keep(jti, "1", until)

    def keep(self, key: str, value: str, until: float) -> bool:
        from redis.exceptions import RedisError  # why: redis is optional (the redis extra)

        ms = max(1, int((until - self._clock()) * 1000))
        try:
            return bool(self._store.set(PREFIX + key, value, px=ms, nx=True))
        except RedisError:
            raise Unreachable(_UNREACHABLE) from None

    def spent(self, jti: str) -> bool:
        return self.get(jti) is not None

    def get(self, key: str) -> str | None:
        from redis.exceptions import RedisError  # why: redis is optional (the redis extra)

        try:
            value = self._store.get(PREFIX + key)
        except RedisError:
            raise Unreachable(_UNREACHABLE) from None
        return None if value is None else str(value)


_UNREACHABLE = "the replicas' shared store (GITEA_MCP_REDIS_URL) did not answer"
