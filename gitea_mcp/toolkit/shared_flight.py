"""Writes in flight at once across replicas: a lock in the Redis (or Valkey) they share, GITEA_MCP_REDIS_URL.

toolkit/in_flight.py runs identical writes once within one process. Behind a load balancer an agent's retry of a slow
create lands on another replica while the first POST is still in flight; neither sees the other's issue yet, and
both would file. So the one call per key that in_flight lets through in each process (one process never hammers
Redis) takes a lock named by a hash of the same key, the token's identity in it: SET NX PX, with a lease longer
than the call's budget, so it outlives the write it guards, yet a dead holder's lock ends.

A call that finds the lock held polls until the holder lets go, within its own deadline. The holder leaves its
answer behind for a moment, under a name only those that saw its lock know: a waiter that asked the same reads it,
as a waiter in the same process gets the first call's outcome; one that asked for more runs after it, and its
duplicate check finds the issue the first call filed. Only the holder releases (a compare-and-delete script).

A guard that cannot be asked fails the write closed: nothing is sent. Reads never use it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from mcp_types import CallToolResult

import gitea_mcp.observe as observe
from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.redaction import redis_display

if TYPE_CHECKING:
    from redis.exceptions import RedisError

log = logging.getLogger("gitea_mcp.tools")
T = TypeVar("T")

LOCK = "gitea-mcp:in-flight:"  # + the key's hash; holds the holder's random token
ANSWER = "gitea-mcp:answer:"  # + the holder's token: its answer, for the calls that waited on it
ANSWER_KEPT_MS = 30_000  # waiters look every quarter second: they read it long before
LEASE_MARGIN = 15.0  # seconds past a call's budget (its last request may end a little after the deadline)
REDIS_TIMEOUT = 3.0  # seconds for one Redis command: Redis answers in well under a millisecond
POLL_FIRST, POLL_MAX = 0.02, 0.25  # seconds between looks at a held lock, doubling

# Delete the lock only while it is still ours: after a lease ran out it may be another call's.
RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


class Store(Protocol):
    """The Redis commands the guard uses, as redis-py's client offers them (decoded to str)."""

    def set(self, name: str, value: str, *, px: int, nx: bool = False) -> bool | None: ...

    def get(self, name: str) -> str | None: ...

    def eval(self, script: str, numkeys: int, *keys_and_args: str) -> Any: ...

    def ping(self) -> bool: ...


class Unreachable(ToolFailure):
    """The shared guard could not be asked; nothing was sent."""

    def __init__(self, where: str, cause: str) -> None:
        super().__init__(
            f"The shared write guard at {where} cannot be reached ({cause}), so nothing was sent; check "
            "GITEA_MCP_REDIS_URL and the Redis server."
        )
        self.cause = cause


@dataclass(frozen=True)
class SharedFlights:
    store: Store
    where: str  # the URL as messages show it: no credentials
    lease: float  # seconds

    def run(
        self,
        key: tuple[object, ...],
        rest: tuple[object, ...],
        run: Callable[[], CallToolResult],
        time_left: Callable[[], float | None] = lambda: None,
    ) -> CallToolResult:
        """`run` once across the replicas for calls in flight with `key`: a call that waited on another that asked
        the same (`rest`) gets that one's answer; otherwise it runs once the other is done. `time_left`: what is
        left of the call's deadline (`GiteaClient.time_left`), which no wait here outlasts."""
        lock, asked, mine = LOCK + digest(key), digest(rest), secrets.token_hex(16)
        while (holder := self._take(lock, mine, time_left)) is not None:
            answer = self._wait_out(lock, holder, time_left)
            if answer is not None and answer[0] == asked:
                observe.write_guard("replicas", "joined")
                return answer[1]
            observe.write_guard("replicas", "queued")
        try:
            result = run()
            self._leave(mine, asked, result)
            return result
        finally:
            self._release(lock, mine)

    def ping(self) -> None:
        """Raises Unreachable, in its sentence, when the guard cannot be asked."""
        self._ask(self.store.ping)

    def _take(self, lock: str, mine: str, time_left: Callable[[], float | None]) -> str | None:
        """None once the lock is ours, else the token of the call that holds it."""
        while True:
            if self._ask(lambda: self.store.set(lock, mine, px=int(self.lease * 1000), nx=True)):
                return None
            holder = self._ask(lambda: self.store.get(lock))
            if holder == mine:  # our SET had landed, and was sent again when its answer was lost
                return None
            if holder is not None:
                return holder
            _time_for(0, time_left)  # let go between the two: try again, while the call has time

    def _wait_out(
        self, lock: str, holder: str, time_left: Callable[[], float | None]
    ) -> tuple[str, CallToolResult] | None:
        """Until `holder` lets go of the lock (or its lease ends); then its answer and what it asked, if it left one."""
        pause = POLL_FIRST
        while self._ask(lambda: self.store.get(lock)) == holder:
            _time_for(pause, time_left)
            time.sleep(pause)
            pause = min(pause * 2, POLL_MAX)
        left = self._ask(lambda: self.store.get(ANSWER + holder))
        if left is None:
            return None
        stored = json.loads(left)
        return str(stored["asked"]), CallToolResult.model_validate(stored["result"])

    def _leave(self, mine: str, asked: str, result: CallToolResult) -> None:
        """The answer, for the calls waiting on this one; without it they run and their duplicate check finds the
        write, so a failure here is only logged."""
        answer = json.dumps({"asked": asked, "result": result.model_dump(mode="json", by_alias=True)})
        try:
            self._ask(lambda: self.store.set(ANSWER + mine, answer, px=ANSWER_KEPT_MS))
        except Unreachable as exc:
            log.warning("could not leave the answer for calls waiting on this write: %s", exc)

    def _release(self, lock: str, mine: str) -> None:
        try:
            self._ask(lambda: self.store.eval(RELEASE, 1, lock, mine))
        except Unreachable as exc:  # the write is done; its lease ends the lock
            log.warning("could not release the write guard (its lease ends it in %.0f s): %s", self.lease, exc)

    def _ask(self, command: Callable[[], T]) -> T:
        from redis.exceptions import RedisError  # why: redis is optional (the redis extra)

        try:
            return command()
        except RedisError as exc:
            raise Unreachable(self.where, _cause(exc)) from None


def _cause(exc: RedisError) -> str:
    """What went wrong, in words: never the library's message, which may quote the URL."""
    from redis import exceptions  # why: redis is optional (the redis extra)

    if isinstance(exc, exceptions.AuthenticationError | exceptions.AuthorizationError):
        return "it refused the URL's user or password"
    if isinstance(exc, exceptions.TimeoutError):
        return f"it did not answer within {REDIS_TIMEOUT:g} s"
    if isinstance(exc, exceptions.ConnectionError):
        return "no connection: refused, or no such host"
    code = str(exc).split(" ", 1)[0]
    if code.isalpha() and code.isupper():  # Redis's own error code: NOAUTH, WRONGPASS, READONLY, NOPERM
        return f"it answered {code}"
    return "it answered with an error"


def digest(parts: tuple[object, ...]) -> str:
    return hashlib.sha256(json.dumps(parts, default=str, ensure_ascii=False).encode()).hexdigest()


def _time_for(pause: float, time_left: Callable[[], float | None]) -> None:
    left = time_left()
    if left is not None and left <= pause:
        raise ToolFailure(
            "The same write is still being sent by another call (on another replica), and this call ran out of "
            "time waiting for it; nothing was sent by this call. Look for what it writes before retrying."
        )


class Unusable(Exception):
    """GITEA_MCP_REDIS_URL cannot be used as given; `str(exc)` is the sentence (never the URL's secrets)."""


def connect(url: str, lease: float) -> SharedFlights:
    """The guard at the Redis `url`. redis-py is imported only here, once a URL is set."""
    return SharedFlights(cast(Store, store(url)), redis_display(url), lease=lease)


def store(url: str) -> Any:
    """A redis.Redis for `url` (the sign-in's spent marks use it too), or Unusable saying why."""
    try:
        import redis  # why: redis is optional (the redis extra): ImportError is said below
        from redis.backoff import NoBackoff
        from redis.retry import Retry
    except ImportError:
        raise Unusable(
            "GITEA_MCP_REDIS_URL is set but the redis package is not installed: install gitea-issues-mcp with its "
            "redis extra, from the checkout or wheel it came from (pipx install --force '.[redis]'; in a venv, its "
            "bin/pip install '.[redis]'), or unset it"
        ) from None
    try:
        # One retry: a pooled connection the server closed (a Redis restart) fails its first command.
        client = redis.Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
            decode_responses=True,
            retry=Retry(NoBackoff(), 1),
        )
    except ValueError:  # never the library's message: it may quote the URL
        raise Unusable(
            f"GITEA_MCP_REDIS_URL {redis_display(url)} is not a URL redis-py can use; check its database number "
            "and options (e.g. redis://host:6379/0)"
        ) from None
    return client
