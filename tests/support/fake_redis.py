"""A Redis stand-in for unit tests: the four commands the write guard sends, with Redis's answers.

SET NX PX answers True or None (nil), GET a str or None, a key dies at its PX, and EVAL runs only the guard's
compare-and-delete script (anything else is refused, so a new script cannot pass untested). The slow tests run the
same contract against a real redis-server (tests/e2e/test_replicas.py), so the stand-in cannot drift from it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError

from gitea_mcp.toolkit.shared_flight import RELEASE


class FakeRedis:
    def __init__(self) -> None:
        self._data: dict[str, tuple[str, float]] = {}  # key -> (value, dies at, monotonic)
        self._lock = threading.Lock()
        self.down = False  # every command fails as a refused connection does
        self.refused_sets = 0  # SET NX that found the key held: a call that came to wait
        self.leases: list[int] = []  # the PX of every SET NX

    def set(self, name: str, value: str, *, px: int, nx: bool = False) -> bool | None:
        self._up()
        with self._lock:
            self._expire()
            if nx:
                self.leases.append(px)
                if name in self._data:
                    self.refused_sets += 1
                    return None
            self._data[name] = (value, time.monotonic() + px / 1000)
            return True

    def get(self, name: str) -> str | None:
        self._up()
        with self._lock:
            self._expire()
            held = self._data.get(name)
            return None if held is None else held[0]

    def eval(self, script: str, numkeys: int, *keys_and_args: str) -> Any:
        self._up()
        assert script == RELEASE and numkeys == 1, "the stand-in knows only the guard's release script"
        key, token = keys_and_args
        with self._lock:
            self._expire()
            if key in self._data and self._data[key][0] == token:
                del self._data[key]
                return 1
            return 0

    def ping(self) -> bool:
        self._up()
        return True

    def keys(self, prefix: str) -> list[str]:
        with self._lock:
            self._expire()
            return [key for key in self._data if key.startswith(prefix)]

    def _up(self) -> None:
        if self.down:
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [key for key, (_, dies) in self._data.items() if dies <= now]:
            del self._data[key]
