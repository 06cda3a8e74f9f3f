"""Allowances over time: so many a minute, per key, in this process or in the Redis every replica shares.

The algorithm is GCRA (the generic cell rate algorithm, as in ATM networks and most API gateways): each key keeps
one number, its theoretical arrival time (TAT), the moment its allowance would be whole again. A take moves it one
interval (60 s / rate) later; it is refused when that would put the TAT more than a whole allowance (`burst`
intervals) ahead of now. So a key may spend its whole minute's allowance at once and then one every interval, the
window slides (no reset at the top of the minute letting twice the rate through), a refusal knows exactly when
the next take would pass, and the state is one value per key, set atomically in one Lua script against Redis's own
clock (replicas' clocks may differ; Redis's is the one they share).

A take may also be granted later: `max_wait` seconds at most, the TAT moved as for a take now, and the caller waits
out the seconds returned before it goes (a queue in time order, nothing held meanwhile). A pause (the forge said
"not before then") pushes the TAT so that the next take passes then, one at a time after it, not in a burst.

Redis that cannot be asked fails open: a limiter is a guard against a runaway caller, not a reason to stop every
call while Redis restarts; said in the log at most once per LOG_EVERY seconds.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from gitea_mcp.redaction import redis_display

log = logging.getLogger("gitea_mcp.gitea")

KEY_PREFIX = "gitea-mcp:rate:"  # + what is counted + a hash of whose it is: no user name or token in Redis
KEPT = 10_000  # keys kept in process before the ones whose allowance is whole again are dropped
LOG_EVERY = 10.0  # seconds between two "Redis did not answer" lines
MAX_PAUSE = 3_600.0  # seconds a forge may pause the budget at most (a Retry-After of a year is a mistake)


class Rate(NamedTuple):
    """`per_minute` takes a minute, all of them at once at most."""

    per_minute: int

    @property
    def interval(self) -> float:
        return 60.0 / self.per_minute

    @property
    def burst(self) -> int:
        return self.per_minute


class Taken(NamedTuple):
    """A take's outcome: granted (go after `wait` seconds, 0 for now), or refused (a take passes in `wait` s)."""

    granted: bool
    wait: float


class Store(Protocol):
    """Where the TATs are kept."""

    where: str  # for messages: "this process", or the Redis URL without its secrets

    def take(self, key: str, rate: Rate, max_wait: float) -> Taken: ...

    def pause(self, key: str, rate: Rate, seconds: float) -> None: ...


class Local:
    """The TATs in this process's memory (no Redis set): one process's allowance. Thread-safe: the tool threads
    and the event loop take from it."""

    where = "this process"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._tat: dict[str, float] = {}
        self._lock = threading.Lock()

    def take(self, key: str, rate: Rate, max_wait: float) -> Taken:
        with self._lock:
            now = self.clock()
            new = max(self._tat.get(key, now), now) + rate.interval
            wait = new - rate.burst * rate.interval - now
            if wait > max_wait:
                return Taken(False, wait)
            self._tat[key] = new
            if len(self._tat) > KEPT:
                self._forget(now)
            return Taken(True, max(wait, 0.0))

    def pause(self, key: str, rate: Rate, seconds: float) -> None:
        with self._lock:
            now = self.clock()
            until = now + min(seconds, MAX_PAUSE) + (rate.burst - 1) * rate.interval
            self._tat[key] = max(self._tat.get(key, now), until)

    def _forget(self, now: float) -> None:
        """Drop the keys whose allowance is whole again: absent is the same."""
        for key in [key for key, tat in self._tat.items() if tat <= now]:
            del self._tat[key]


# KEYS[1]: the TAT (integer microseconds of Redis's clock). ARGV: interval µs, burst, "take" or "pause", then the
# most µs a take may wait, or the µs a pause lasts. Returns {granted 0/1, wait µs}. Integers are written with
# %.0f: Lua's tostring would write a large one as 1.7e+15 and lose its last digits.
SCRIPT = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new
local wait = 0
if ARGV[3] == 'pause' then
  new = now + tonumber(ARGV[4]) + (burst - 1) * interval
  if new <= tat then return {1, 0} end
else
  new = tat + interval
  wait = new - burst * interval - now
  if wait > tonumber(ARGV[4]) then return {0, wait} end
  if wait < 0 then wait = 0 end
end
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.ceil((new - now) / 1000) + 1)
return {1, wait}
"""
_MICRO = 1_000_000


class Shared:
    """The TATs in the Redis (or Valkey) the replicas share, GITEA_MCP_REDIS_URL: one allowance for all of them.
    `client`: a redis.Redis made the way the write guard makes its own (toolkit/shared_flight.store)."""

    def __init__(self, client: Any, url: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.where = redis_display(url)
        self._script = client.register_script(SCRIPT)
        self._clock = clock
        self._logged_at: float | None = None

    def take(self, key: str, rate: Rate, max_wait: float) -> Taken:
        answer = self._run(key, rate, "take", max_wait)
        if answer is None:
            return Taken(True, 0.0)
        return Taken(bool(answer[0]), int(answer[1]) / _MICRO)

    def pause(self, key: str, rate: Rate, seconds: float) -> None:
        self._run(key, rate, "pause", min(seconds, MAX_PAUSE))

    def _run(self, key: str, rate: Rate, what: str, seconds: float) -> list[Any] | None:
        from redis.exceptions import RedisError  # why: redis is optional (the redis extra), imported once set

        interval = round(rate.interval * _MICRO)
        try:
            answer: list[Any] = self._script(keys=[key], args=[interval, rate.burst, what, round(seconds * _MICRO)])
        except RedisError as exc:
            self._unanswered(exc)
            return None
        return answer

    def _unanswered(self, exc: Exception) -> None:
        now = self._clock()
        if self._logged_at is None or now - self._logged_at >= LOG_EVERY:
            self._logged_at = now
            log.warning(
                "the rate limits' Redis at %s did not answer (%s): calls go on unlimited until it does",
                self.where,
                type(exc).__name__,
            )


def key(kind: str, whose: str) -> str:
    """The key of `whose` allowance of `kind` ("calls", "forge"): hashed, so Redis holds no name or token."""
    return KEY_PREFIX + kind + ":" + hashlib.sha256(whose.encode()).hexdigest()[:32]


class Budget:
    """The requests a whole deployment sends its forge a minute (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE), spent by
    the one HTTP layer (gitea/client.py) before each request, and paused when the forge asks for a pause."""

    def __init__(self, store: Store, per_minute: int, forge: str) -> None:
        self.store = store
        self.rate = Rate(per_minute)
        self.key = key("forge", forge)

    def spend(self, max_wait: float) -> Taken:
        return self.store.take(self.key, self.rate, max(max_wait, 0.0))

    def pause(self, seconds: float) -> None:
        if seconds > 0:
            log.info("the forge asked for a pause: its request budget waits %.1f s", seconds)
            self.store.pause(self.key, self.rate, seconds)


_NAMES = (("x-ratelimit-remaining", "x-ratelimit-reset"), ("ratelimit-remaining", "ratelimit-reset"))
_EPOCH_FROM = 1_000_000_000  # a reset larger than this is a moment (Unix seconds), smaller a number of seconds


def reset_after(headers: Any, now: Callable[[], float] = time.time) -> float | None:
    """Seconds until the forge's rate limit resets when its headers say nothing is left (X-RateLimit-Remaining: 0
    with X-RateLimit-Reset, as GitHub-style proxies send; or the IETF draft's RateLimit-Remaining/-Reset), else None.
    A reset is a Unix time when it is that large, else seconds (both forms are in use)."""
    for remaining_name, reset_name in _NAMES:
        remaining, reset = headers.get(remaining_name), headers.get(reset_name)
        if remaining is None or reset is None or remaining.strip() != "0":
            continue
        try:
            value = float(reset.strip())
        except ValueError:
            return None
        if not math.isfinite(value):
            return None
        seconds = value - now() if value >= _EPOCH_FROM else value
        return seconds if seconds > 0 else None
    return None
