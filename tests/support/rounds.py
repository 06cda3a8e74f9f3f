"""A mocked Gitea whose every answer takes a while, to count the sequential rounds a tool call costs.

A round is a wait for Gitea: requests sent together share one, a request sent after another's answer starts a new
one. The count is the longest chain of requests each of which started after the one before it ended.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests
import responses

DELAY = 0.3  # seconds per answer: far above the scheduling noise of two busy cores (a worker must start within it,
# or the caller takes its read back and the round count grows), far below any timeout


@dataclass
class Timed:
    path: str
    start: float
    end: float


@dataclass
class Rounds:
    rsps: responses.RequestsMock
    delay: float = DELAY
    seen: list[Timed] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, url: str, body: Any, total: int | None = None, status: int = 200) -> None:
        headers = {} if total is None else {"X-Total-Count": str(total)}
        self.rsps.add_callback(
            responses.GET, url, callback=self._answer(body, headers, status), content_type="application/json"
        )

    def _answer(
        self, body: Any, headers: dict[str, str], status: int = 200
    ) -> Callable[[requests.PreparedRequest], Any]:
        import json

        def answer(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
            start = time.monotonic()
            time.sleep(self.delay)
            with self._lock:
                self.seen.append(Timed(urlsplit(request.url or "").path, start, time.monotonic()))
            return status, headers, json.dumps(body)

        return answer

    @property
    def count(self) -> int:
        """The longest chain of requests, each started after the previous one had its answer."""
        chain: dict[int, int] = {}
        ordered = sorted(self.seen, key=lambda t: t.start)
        for i, timed in enumerate(ordered):
            before = [chain[j] for j in range(i) if ordered[j].end <= timed.start]
            chain[i] = 1 + max(before, default=0)
        return max(chain.values(), default=0)
