"""HTTP under abuse: a cap on open connections, time limits on a request's head and body, no log flood.

uvicorn has no timeout for a request's head (its keep-alive timer stops at the first byte, and a fresh connection
has none) and keeps every connection it accepts until the file descriptors run out; asyncio then logs a traceback
for every attempt to accept, up to `backlog` of them per wake-up. Here each connection waiting for a request's head
has `header_timeout` seconds to send it and then `body_timeout` for the body (and for reading an answer it stopped
reading); at the cap, a new connection takes the
place of the one that has waited longest for a request (a busy one is never dropped); running out of descriptors
is one log line at most every LOG_EVERY seconds. The cap is planned against `ulimit -n` (`plan`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gitea_mcp.settings import ConfigError, Settings

log = logging.getLogger("gitea_mcp")

DEFAULT_CONNECTIONS = 1_000
# Descriptors the process needs besides its clients' connections: the listening socket, the event loop, stdio,
# files Python opens; and per request handled at once, connections to Gitea (a tool call reads pages in parallel).
RESERVE = 64
PER_REQUEST = 2
HEAD_BYTES = 16_384  # a request line and headers longer than this are refused (431), however they arrive
# The blank line that ends a head, as h11 finds it (a bare LF is taken as a line end too).
_HEAD_END = re.compile(rb"\n\r?\n")
LOG_EVERY = 10.0  # seconds between two "out of file descriptors" lines
UNAVAILABLE_FOR = 5.0  # seconds /healthz says 503 after the descriptors ran out or a connection was turned away


@dataclass(frozen=True)
class Limits:
    connections: int
    requests: int
    body: int
    header_timeout: float
    body_timeout: float
    files: int | None = None  # the open-files limit the cap was planned against (None: not known)
    signin_requests: int = 16  # requests on the routes without a token, at once (a pool apart from `requests`)
    signin_per_address: int = 4  # of those, from one client address


def limits(settings: Settings, connections: int | None = None, files: int | None = None) -> Limits:
    return Limits(
        connections=connections or settings.max_connections or DEFAULT_CONNECTIONS,
        requests=settings.max_requests,
        body=settings.max_body,
        header_timeout=settings.header_timeout,
        body_timeout=settings.body_timeout,
        files=files,
        signin_requests=settings.signin_requests,
        signin_per_address=settings.signin_per_address,
    )


def plan(settings: Settings) -> Limits:
    """The limits, with the connection cap fitted to the open-files limit: the soft limit is raised towards the
    hard one as far as the cap needs; a cap set higher than the descriptors allow stops the start."""
    if sys.platform == "win32":  # no resource module; Windows has no per-process descriptor limit of this kind
        return limits(settings)
    import resource  # why: POSIX only (Windows has no resource module)

    reserve = RESERVE + PER_REQUEST * settings.max_requests
    wanted = (settings.max_connections or DEFAULT_CONNECTIONS) + reserve
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < raised:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):  # not allowed here (some containers): plan with what there is
            pass
    room = wanted if soft == resource.RLIM_INFINITY else soft - reserve
    files = None if soft == resource.RLIM_INFINITY else int(soft)
    if settings.max_connections is not None and settings.max_connections > room:
        raise ConfigError(
            f"GITEA_MCP_MAX_CONNECTIONS={settings.max_connections} needs {settings.max_connections + reserve} open "
            f"files, but this process may open {files} (ulimit -n); raise that limit, or lower the setting"
        )
    if room < 8:
        raise ConfigError(
            f"this process may open only {files} files (ulimit -n), too few to serve HTTP; raise that limit to "
            f"at least {reserve + 8}, or lower GITEA_MCP_MAX_REQUESTS"
        )
    return limits(settings, min(room, settings.max_connections or DEFAULT_CONNECTIONS), files)


def share(whole: Limits, workers: int) -> Limits:
    """One worker process's part of the limits, so that all of them together hold what the operator set (each
    keeps at least one connection and one request)."""
    if workers == 1:
        return whole
    return dataclasses.replace(
        whole,
        connections=max(1, whole.connections // workers),
        requests=max(1, whole.requests // workers),
        signin_requests=max(1, whole.signin_requests // workers),
    )


@dataclass
class Load:
    """What the server carries now, shared by its connections, the request cap and /healthz."""

    limits: Limits
    clock: Callable[[], float] = time.monotonic
    open: set[Guarded] = field(default_factory=set)
    # Connections waiting for a request's head, the longest-waiting first: the ones a new connection may replace.
    waiting: dict[Guarded, None] = field(default_factory=dict)
    requests: int = 0
    unavailable_until: float = 0.0
    unavailable_why: str = ""
    logged_at: float | None = None

    def admit(self, connection: Guarded) -> bool:
        """Room for `connection`, made by closing the longest-waiting idle one if need be; False: every connection
        is busy with a request (it is then turned away)."""
        if len(self.open) >= self.limits.connections:
            oldest = next(iter(self.waiting), None)
            if oldest is None:
                self.unavailable(f"all {self.limits.connections} connections (GITEA_MCP_MAX_CONNECTIONS) are busy")
                return False
            oldest.drop()
        self.open.add(connection)
        return True

    def gone(self, connection: Guarded) -> None:
        self.open.discard(connection)
        self.waiting.pop(connection, None)

    def unavailable(self, why: str) -> None:
        self.unavailable_until = self.clock() + UNAVAILABLE_FOR
        self.unavailable_why = why

    def cannot_serve(self) -> str | None:
        """Why a new request would be refused now (for /healthz), or None."""
        if self.requests >= self.limits.requests:
            return f"{self.requests} MCP requests are being handled, the most GITEA_MCP_MAX_REQUESTS allows"
        if self.clock() < self.unavailable_until:
            return self.unavailable_why
        return None

    def out_of_files(self) -> None:
        """accept() failed for want of descriptors: say so (at most once per LOG_EVERY s), free some, report it."""
        now = self.clock()
        self.unavailable("out of file descriptors (ulimit -n): new connections wait")
        if self.logged_at is None or now - self.logged_at >= LOG_EVERY:
            self.logged_at = now
            log.warning(
                "out of file descriptors (%s open, limit %s): new connections wait, idle ones are closed; raise "
                "ulimit -n or lower GITEA_MCP_MAX_CONNECTIONS",
                len(self.open),
                self.limits.files or "unknown",
            )
        for idle in list(self.waiting)[: max(1, len(self.waiting) // 4)]:
            idle.drop()


def exception_handler(load: Load) -> Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """The event loop's handler: asyncio's accept() failing for want of descriptors is `load.out_of_files` (asyncio
    itself pauses accepting for a second); anything else goes to asyncio's own handler."""

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == "socket.accept() out of system resource":
            load.out_of_files()
            return
        loop.default_exception_handler(context)

    return handle


class Guarded(H11Protocol):
    """uvicorn's h11 protocol with the head and body timers and a place under the connection cap."""

    load: ClassVar[Load]

    @classmethod
    def serving(cls, load: Load) -> type[Guarded]:
        """The protocol class for one server (uvicorn makes each connection's protocol from a class)."""
        return type("GuardedH11", (cls,), {"load": load})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._timer: asyncio.TimerHandle | None = None
        self._stalled: asyncio.TimerHandle | None = None
        self._reading_body = False
        self._seen: object = None  # the request cycle whose head has been read
        self._unparsed = 0  # bytes received since the last head was parsed: at most these wait in h11's buffer
        if not self.load.admit(self):
            self.transport.close()
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._cancel()
        if self._stalled is not None:
            self._stalled.cancel()
        self.load.gone(self)

    def pause_writing(self) -> None:
        """The client stopped reading its answer: it has `body_timeout` seconds to start again, or the connection
        is cut (else the answer would wait in memory as long as the client likes)."""
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.load.limits.body_timeout, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def data_received(self, data: bytes) -> None:
        self._unparsed += len(data)
        super().data_received(data)

    def handle_events(self) -> None:
        if self._head_too_long():
            self._refuse_head()
            return
        super().handle_events()
        self._follow()

    def _head_too_long(self) -> bool:
        """The head waiting in h11's buffer is over HEAD_BYTES. h11 checks its own cap only while a head is still
        incomplete, so a longer one arriving whole (in one piece, or completed by its last) went through; the
        buffer is looked at only once more than HEAD_BYTES came since the last head, so a slow sender costs no
        copying byte by byte."""
        if self.conn.their_state is not h11.IDLE or self._unparsed <= HEAD_BYTES:
            return False
        pending = self.conn.trailing_data[0]
        end = _HEAD_END.search(pending, 0, HEAD_BYTES)
        if end is None and len(pending) > HEAD_BYTES:
            return True
        self._unparsed = len(pending) - (end.end() if end is not None else 0)
        return False

    def _refuse_head(self) -> None:
        """431, written as bytes: h11 answers only a request it has parsed, and this one never will be."""
        text = (
            f"the request line and headers are over {HEAD_BYTES:,} bytes, this server's limit; send fewer or "
            "shorter headers\n"
        ).encode()
        head = (
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(text)
        )
        self.transport.write(head + text)
        self.drop()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        answered = self.cycle is self._seen and self.cycle is not None and self.cycle.response_complete
        if answered and not self._reading_body and not self.transport.is_closing():
            self._await_head()  # keep-alive: the next request's head has its own time limit

    def drop(self) -> None:
        """Close this connection now (it is idle: nothing is lost but the socket)."""
        self.load.gone(self)
        self._cancel()
        if not self.transport.is_closing():
            self.transport.close()

    def _follow(self) -> None:
        """After each batch of parsed events: a new request's head starts the body timer; the body's end stops it."""
        cycle = self.cycle
        if cycle is None or self.transport.is_closing():
            return
        if cycle is not self._seen:
            self._seen = cycle
            self._unparsed = len(self.conn.trailing_data[0])  # nearly always empty: h11 has taken the head
            self.load.waiting.pop(self, None)
            self._reading_body = True
            self._arm(self.load.limits.body_timeout, self._body_too_slow)
        if self._reading_body and self.conn.their_state is not h11.SEND_BODY:
            self._reading_body = False
            self._cancel()
            if cycle.response_complete and self.conn.our_state is h11.IDLE:  # answered before the body ended
                self._await_head()

    def _await_head(self) -> None:
        self.load.waiting[self] = None
        self._arm(self.load.limits.header_timeout, self.drop)

    def _arm(self, seconds: float, then: Callable[[], None]) -> None:
        self._cancel()
        self._timer = self.loop.call_later(seconds, then)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _body_too_slow(self) -> None:
        """The body did not come in time: 408 if nothing was answered yet, and the connection is closed."""
        self._reading_body = False
        if self.cycle is not None and not self.cycle.response_started:
            self.cycle.response_started = True  # the application's own answer, if it ever comes, is not sent
            self.cycle.disconnected = True
            self.cycle.message_event.set()  # a receive() waiting for the body learns the client is gone
            _send_408(self.conn, self.transport, self.load.limits.body_timeout)
        self.drop()


def _send_408(conn: h11.Connection, transport: asyncio.Transport, seconds: float) -> None:
    text = f"the request body did not arrive within {seconds:g} s (GITEA_MCP_BODY_TIMEOUT)\n".encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
    try:
        transport.write(conn.send(h11.Response(status_code=408, headers=headers, reason=b"Request Timeout")) or b"")
        transport.write(conn.send(h11.Data(data=text)) or b"")
        transport.write(conn.send(h11.EndOfMessage()) or b"")
    except h11.LocalProtocolError:  # h11 cannot answer in this state: closing says enough
        pass
