"""Streamable HTTP: stateless, so any number of replicas can sit behind a plain load balancer.

Every request must carry exactly one credential: `Authorization: Bearer <token>` with the caller's own Gitea
token, or — only when the operator set GITEA_MCP_HTTP_SECRET — that secret in its own header,
`X-Gitea-MCP-Secret`, which lets the request use the server's GITEA_TOKEN. The secret is compared here and never
forwarded; a wrong one is refused, not sent to Gitea as a token; a 401 names that header only where a secret is
set. Reaching the port is never enough to act as anyone. Host and Origin are checked against DNS rebinding.
`/healthz` answers without auth for probes. `GET /mcp` (a server-to-client stream, which a stateless server never
uses) is refused at once.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import json
import math
import re
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gitea_mcp.gitea import traces
from gitea_mcp.gitea.users import USERS
from gitea_mcp.redaction import redis_display, shown
from gitea_mcp.server import discovery, tracing
from gitea_mcp.server.addresses import Pool, address_of
from gitea_mcp.server.app import COUNTED, budget_of, make_client
from gitea_mcp.server.bearers import Bearers, Verdict, asking
from gitea_mcp.server.credentials import Clock, Credential, credential
from gitea_mcp.server.limits import HEAD_BYTES, Guarded, Limits, Load, exception_handler, limits, plan, share
from gitea_mcp.server.quota import Quota, calls_per_minute
from gitea_mcp.server.workers import run_workers
from gitea_mcp.settings import CannotListen, Settings, public_url_unreachable
from gitea_mcp.toolkit.registry import offered

if TYPE_CHECKING:
    from gitea_mcp.server.metrics import Metrics

MCP_PATH = "/mcp"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def security(settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks: loopback names by default, the operator's list otherwise; '*' turns them off."""
    if "*" in settings.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = list(settings.allowed_hosts) or ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class RequireToken:
    """ASGI middleware in front of the MCP app: a Host it may answer to, exactly one credential, one Gitea accepts
    (asked once per token, `Bearers`), a free request slot and a body within the limit — or no MCP."""

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        load: Load | None = None,
        bearers: Bearers | None = None,
        clock: Clock = time.time,
        ended: Ended | None = None,
        quota: Quota | None = None,
    ) -> None:
        self.app = app
        self.quota = quota  # tool calls a minute per user: a tools/call over it is answered 429 here
        self.callers = make_client(settings, warn=False)  # for the callers' keys alone: it sends nothing
        self.settings = settings
        self.clock = clock
        self.ended = ended  # with sign-in on: whether a sign-in was ended (None: the shared store did not answer)
        self.load = load or Load(limits(settings))
        self.bearers = bearers  # None: tokens are not checked with Gitea here (the tools meet Gitea's verdict)
        self.hosts = HostCheck(settings)
        self.by_caller: dict[str, int] = {}  # requests in flight per caller (`caller_key`)
        self.pool = Pool(self.load.limits.signin_requests, self.load.limits.signin_per_address)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _signin_path(scope["path"]):
            await self._before_a_token(scope, receive, send)
            return
        if scope["type"] != "http" or not scope["path"].startswith(MCP_PATH):
            await self.app(scope, receive, send)
            return
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        said = credential(headers, self.settings, self.clock)  # read once here; the tools read it once more
        refusal = self._refusal(scope, headers, said)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        load = self.load
        if load.requests >= load.limits.requests:
            busy = f"the server is handling {load.requests} requests, its most (GITEA_MCP_MAX_REQUESTS); retry shortly"
            await _reply(503, busy, {"Retry-After": "1", **_CLOSE})(scope, receive, send)
            return
        # One user may not take the last quarter of the request slots: while one caller's burst waits for its
        # share of the tool calls (server.admission), another caller's request still gets in.
        callers = caller_keys(said.token)
        mine, share = (
            max(self.by_caller.get(key, 0) for key in callers),
            load.limits.requests - load.limits.requests // 4,
        )
        if mine >= share:
            busy = f"this user has {mine} requests in flight, the most one user may have at once; retry shortly"
            await _reply(503, busy, {"Retry-After": "1", **_CLOSE})(scope, receive, send)
            return
        load.requests += 1
        for key in callers:
            self.by_caller[key] = self.by_caller.get(key, 0) + 1
        try:
            if traces.STATE.on:  # the client's trace, continued (off: one flag asked)
                with tracing.continued(scope["headers"]):
                    await self._admitted(scope, receive, send, said)
            else:
                await self._admitted(scope, receive, send, said)
        finally:
            load.requests -= 1
            for key in callers:
                left = self.by_caller.pop(key) - 1
                if left:
                    self.by_caller[key] = left

    async def _before_a_token(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Discovery and the sign-in endpoints need no credential (a client reads them before it has one), but
        answer only to the Host names MCP answers to. Web-based clients read them from their own origin (CORS), so
        Origin is not checked here; the consent form checks its own.

        Anyone can reach them, so they have a pool of their own (GITEA_MCP_SIGNIN_REQUESTS, a share of it per
        address) apart from MCP's request slots and /healthz, and a body must come whole within SIGNIN_BODY_SECONDS:
        forty slow uploads to /register took all 32 of MCP's slots (issue 35)."""
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        address = address_of(scope)
        refusal = self.hosts.refusal(headers, origin=False) or self._pool_refusal(address)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        self.pool.enter(address)
        try:
            seconds = min(SIGNIN_BODY_SECONDS, self.load.limits.body_timeout)
            with anyio.move_on_after(seconds) as waited:
                read = await _read_some(receive, SIGNIN_BODY_BYTES)
            if waited.cancelled_caught:
                await _reply(408, f"the request body did not arrive within {seconds:g} s", _CLOSE)(scope, receive, send)
                return
            if read is None:
                return  # the client left
            # More than a sign-in request ever is: handed on as it came, for the endpoint to refuse at its own cap.
            await self.app(scope, _replay(*read, receive), send)
        finally:
            self.pool.leave(address)

    def _pool_refusal(self, address: str) -> Response | None:
        full = self.pool.full(address)
        if full == "address":
            mine = self.pool.by_address.get(address, 0)
            why = (
                f"this address has {mine} sign-in requests in flight, the most one address may have "
                "(GITEA_MCP_SIGNIN_PER_ADDRESS); retry shortly"
            )
            return _reply(429, why, {"Retry-After": "1", **_CLOSE})
        if full == "pool":
            return _reply(503, "the server is busy with sign-ins; retry shortly", {"Retry-After": "1", **_CLOSE})
        return None

    def _refusal(self, scope: Scope, headers: list[tuple[str, str]], said: Credential) -> Response | None:
        """What is wrong with the request's head (its Host, Origin, method or credential), before anything else."""
        wrong_host = self.hosts.refusal(headers)
        if wrong_host is not None:
            return wrong_host
        if scope["method"] in ("GET", "DELETE"):
            # Stateless: there is no stream to open and no session to end. Without this a GET holds a
            # connection open for as long as the client likes.
            return _reply(405, "this server is stateless: POST MCP requests to /mcp", {"Allow": "POST"})
        if said.refused is not None:
            error = None
            if said.invalid_token:
                error = f'error="invalid_token", error_description="{_quoted(said.refused)}"'
            return _reply(401, said.refused, {"WWW-Authenticate": discovery.challenge(self.settings, error), **_CLOSE})
        return None

    async def _admitted(self, scope: Scope, receive: Receive, send: Send, said: Credential) -> None:
        limit = self.load.limits.body
        declared = _content_length(scope)
        if declared is not None and declared > limit:  # said before a byte of it is read
            await _too_large(declared, limit)(scope, receive, send)
            return
        if said.sign_in is not None and self.ended is not None:
            ended = await self.ended(said.sign_in)
            if ended is not False:  # asked on every request: a replay ends the sign-in at once, on every replica
                await _ended_reply(self.settings, ended)(scope, receive, send)
                return
        token = said.token if said.bearer else None
        verdict = None
        if token is not None and self.bearers is not None:
            verdict = await self.bearers.verdict(token, address_of(scope))
        if verdict is Verdict.LIMITED and self.bearers is not None:
            wait = math.ceil(self.bearers.allowance.wait(address_of(scope)))
            message = (
                f"this address has had {self.bearers.per_address} new tokens checked with Gitea in the last minute, "
                f"the most this server checks (GITEA_MCP_LOOKUPS_PER_ADDRESS); retry in {wait} s"
            )
            await _reply(429, message, {"Retry-After": str(wait), **_CLOSE})(scope, receive, send)
            return
        if verdict is Verdict.REFUSED:
            # A signed-in user's Gitea token refused: the app was revoked in Gitea (or the token expired there).
            # The client's refresh then fails too, and it signs the user in again.
            why = "Gitea no longer accepts this sign-in" if said.signed_in else "Gitea refused this token"
            challenge = discovery.challenge(self.settings, f'error="invalid_token", error_description="{why}"')
            message = f"{why}: refresh it, or sign in again" if said.signed_in else REFUSED_TOKEN
            await _reply(401, message, {"WWW-Authenticate": challenge, **_CLOSE})(scope, receive, send)
            return
        body = await _read_body(receive, limit)
        if body is None:
            return  # the client left
        if len(body) > limit:  # chunked, or a Content-Length that understated it
            await _too_large(None, limit)(scope, receive, send)
            return
        if await too_many_values(body):
            await _reply(413, _TOO_MANY, _CLOSE)(scope, receive, send)
            return
        if self.quota is not None and not await self._within_quota(scope, send, body, said):
            return
        await self.app(scope, _replay(body, False, receive), send)

    async def _within_quota(self, scope: Scope, send: Send, body: bytes, said: Credential) -> bool:
        """A tools/call takes one call from its user's allowance here, before the MCP app: over it, the POST is
        answered 429 with Retry-After, its body the JSON-RPC error for the call, which MCP clients show as the
        call's error. The request is marked counted, so the tool does not count it again; a body this cannot read
        as one tools/call (a large one, a batch) is counted by the tool instead, with the same sentence."""
        assert self.quota is not None
        call = _tool_call(body)
        if call is None:
            return True
        over = await self.quota.refusal(self.callers.with_token(said.token).caller_key)
        if over is None:
            scope.setdefault("state", {})[COUNTED] = True
            return True
        sentence, seconds = over
        error = {"jsonrpc": "2.0", "id": call.get("id"), "error": {"code": OVER_LIMIT, "message": sentence}}
        answer = Response(
            json.dumps(error), status_code=429, media_type="application/json", headers={"Retry-After": str(seconds)}
        )
        await answer(scope, _no_more, send)
        return False


# JSON-RPC's range for a server's own errors: the call was refused by the server's limit, not by the tool.
OVER_LIMIT = -32000
# A tools/call body read by the gate to know it is one (a call's arguments are rarely more than a few KB; a larger
# body is counted by the tool, where the SDK has parsed it anyway).
PEEK_BYTES = 65_536


def _tool_call(body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC request in `body` when it is one tools/call, else None."""
    if len(body) > PEEK_BYTES or b"call" not in body:
        return None
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("method") == "tools/call":
        return message
    return None


async def _no_more() -> Message:
    return {"type": "http.disconnect"}


def caller_keys(token: str | None) -> tuple[str, ...]:
    """The keys a request is counted under at the gate: its token's always, and its user's once known. The token's
    alone would let two tokens of one user through twice; the user's alone would let a token's burst that began
    before its user was learnt (the gate learns it from Gitea's answer to the first request) start over at 0 once
    it is, and take every slot."""
    token_key, user = _token_key(token), USERS.of(token)
    return (token_key,) if user is None else (token_key, f"user:{user}")


def _token_key(token: str | None) -> str:
    return hashlib.sha256((token or "").encode()).hexdigest()


def caller_key(token: str | None) -> str:
    """Who sends a request: the forge user its token belongs to, once known (gitea/users.py: the gate learns it
    from Gitea's answer on the token's first request), else its token's hash (the token itself is kept nowhere)."""
    return caller_keys(token)[-1]


_WELL_KNOWN = "/.well-known/"
SIGNIN_PATHS = ("/authorize", "/callback", "/token", "/register")


def _signin_path(path: str) -> bool:
    return path.startswith(_WELL_KNOWN) or path in SIGNIN_PATHS


_CLOSE = {"Connection": "close"}  # refused before its body was read: the rest of it is not waited for
# A body on the routes without a token (a registration, a token request, the consent form: a few KB at most):
# its most bytes, and the seconds it has to arrive whole.
SIGNIN_BODY_BYTES = 16_384
SIGNIN_BODY_SECONDS = 5.0
REFUSED_TOKEN = (
    "the token sent in the Authorization header was refused by Gitea (401): send a valid Gitea access token of "
    "your own, 'Authorization: Bearer <token>' (Gitea: Settings, Applications, Generate Token)"
)


def _quoted(text: str) -> str:
    """`text` as an auth-param's quoted string (RFC 9110 §5.6.4): no quote or backslash inside."""
    return text.replace("\\", "").replace('"', "'")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            text = value.strip()
            return int(text) if text.isdigit() else None  # h11 has refused a malformed one already
    return None


# JSON values (objects, arrays, array items and members) one request may hold. An MCP call has tens of them; a
# megabyte of `{}` is 350,000, which the SDK turns into 30 MB of Python objects before it can refuse the message.
MAX_VALUES = 10_000
# A string, or what is left of an unclosed one: possessive, so every byte is looked at once (no backtracking).
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"?')
_TOO_MANY = f"the request holds more than {MAX_VALUES:,} JSON values, far more than an MCP call has; send one call"


async def too_many_values(body: bytes) -> bool:
    """More than MAX_VALUES values outside strings. Counting every brace and comma is enough for nearly every
    body; only one with more (braces inside an issue body's code, say) has its strings taken out first, in a
    worker thread (a few ms to 60 ms a megabyte)."""
    if body.count(b"{") + body.count(b"[") + body.count(b",") <= MAX_VALUES:
        return False
    return await anyio.to_thread.run_sync(_values_outside_strings, body) > MAX_VALUES


def _values_outside_strings(body: bytes) -> int:
    bare = _STRING.sub(b"", body)
    return bare.count(b"{") + bare.count(b"[") + bare.count(b",")


def _too_large(size: int | None, limit: int) -> Response:
    sent = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
    message = (
        f"the request body is {sent}, over this server's limit of {limit:,} (GITEA_MCP_MAX_BODY); send a "
        "smaller issue body or comment"
    )
    return _reply(413, message, _CLOSE)


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The body, read until it ends or passes `limit` (then what came, one chunk past it); None: the client left."""
    read = await _read_some(receive, limit)
    return None if read is None else read[0]


async def _read_some(receive: Receive, limit: int) -> tuple[bytes, bool] | None:
    """The body as `_read_body` reads it, and whether more of it is still to come; None: the client left."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk: bytes = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = bool(message.get("more_body", False))
        if size > limit or not more:
            return b"".join(chunks), more


def _replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """`receive` for the app: the body read here (`more`: and the rest, still to come), then the connection's own
    messages (the rest of the body, a disconnect)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return again


class HostCheck:
    """The DNS-rebinding guard, answered in words naming the setting (the SDK's own, behind it, says only "Invalid
    Host header" and logs every attempt). The rule is the SDK's: a name as listed, or `name:*` for any port."""

    def __init__(self, settings: Settings) -> None:
        rules = security(settings)
        self.on = rules.enable_dns_rebinding_protection
        self.hosts = rules.allowed_hosts
        self.origins = rules.allowed_origins

    def refusal(self, headers: list[tuple[str, str]], origin: bool = True) -> Response | None:
        if not self.on:
            return None
        host = next((value for name, value in headers if name.lower() == "host"), "")
        if not _listed(host, self.hosts):
            where = f"Host {shown(host, 100)}" if host else "no Host header"
            message = (
                f"this server does not answer to {where}: it answers to {', '.join(self.hosts)}; the operator "
                "adds the name clients use to GITEA_MCP_ALLOWED_HOSTS (e.g. mcp.example.com:*)"
            )
            return _reply(421, message, _CLOSE)
        sent = next((value for name, value in headers if name.lower() == "origin"), "") if origin else ""
        if sent and not _listed(sent, self.origins):
            message = (
                f"requests from the web page at {shown(sent, 100)} are refused (DNS-rebinding guard); the "
                "operator adds its host to GITEA_MCP_ALLOWED_HOSTS if it may call this server"
            )
            return _reply(403, message, _CLOSE)
        return None


def _listed(value: str, allowed: list[str]) -> bool:
    return value in allowed or any(rule.endswith(":*") and value.startswith(rule[:-1]) for rule in allowed)


def _reply(status: int, error: str, headers: dict[str, str]) -> Response:
    return Response(json.dumps({"error": error}), status_code=status, media_type="application/json", headers=headers)


Ended = Callable[[str], Awaitable[bool | None]]


def _ended_reply(settings: Settings, ended: bool | None) -> Response:
    if ended is None:
        return _reply(503, "the replicas' shared store (GITEA_MCP_REDIS_URL) did not answer; retry shortly", _CLOSE)
    why = "this sign-in was ended: one of its refresh tokens was used twice"
    challenge = discovery.challenge(settings, f'error="invalid_token", error_description="{why}"')
    return _reply(401, f"{why}; sign in again", {"WWW-Authenticate": challenge, **_CLOSE})


def app(
    server: MCPServer,
    settings: Settings,
    load: Load | None = None,
    bearers: Bearers | None = None,
    clock: Clock = time.time,
) -> ASGIApp:
    """The HTTP app; `clock` is the sign-in's (its codes' and tokens' expiry), moved by tests."""
    load = load or Load(limits(settings))

    async def healthz(request: Request) -> Response:
        why = load.cannot_serve()
        if why is not None:  # a probe takes this replica out of rotation until it can serve again
            return JSONResponse({"status": "unavailable", "reason": why}, status_code=503)
        return JSONResponse({"status": "ok"})

    server.custom_route("/healthz", methods=["GET"])(healthz)
    ended: Ended | None = None
    if settings.signin:
        # why: the sign-in only where it is on (7 ms of imports for every HTTP server without it)
        from gitea_mcp.server.signin import routes
        from gitea_mcp.server.signin.context import build

        _discovery_routes(server, settings)
        signin = build(settings, make_client(settings, warn=False, budget=budget_of(server)), clock)
        routes(server, signin)
        ended = signin.ended

    starlette = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,  # no session state: any replica can answer any request
        json_response=True,
        transport_security=security(settings),
        host=settings.host,
        max_request_body_size=load.limits.body,
    )
    quota = getattr(server, "quota", None)  # a ToolServer's (server/app.py), None for another server
    return RequireToken(starlette, settings, load, bearers, clock, ended, quota if isinstance(quota, Quota) else None)


def _discovery_routes(server: MCPServer, settings: Settings) -> None:
    """The two metadata documents, fixed at start (they depend on the settings alone), readable from any origin."""
    resource, authority = discovery.resource_metadata(settings), discovery.server_metadata(settings)

    async def protected_resource(request: Request) -> Response:
        return JSONResponse(resource, headers=_CORS)

    async def authorization_server(request: Request) -> Response:
        return JSONResponse(authority, headers=_CORS)

    for path in discovery.RESOURCE_METADATA_PATHS:
        server.custom_route(path, methods=["GET"])(protected_resource)
    server.custom_route(discovery.SERVER_METADATA, methods=["GET"])(authorization_server)


_CORS = {"Access-Control-Allow-Origin": "*"}


def serve(server: MCPServer, settings: Settings, metrics: Metrics | None = None) -> None:
    """HTTP mode until stopped; `metrics`, with workers, served by their parent (the sum of theirs)."""
    whole = plan(settings)
    sock = listening_socket(settings.host, settings.port)
    if settings.workers == 1:
        _serve(server, settings, Load(whole), sock, announce=True)
        return
    # Listening before the line is printed (the first worker may take a moment), so it is true when it appears.
    sock.listen(BACKLOG)
    say_started(settings, sock.getsockname()[1], whole)
    mine = share(whole, settings.workers)
    beside = metrics.beside if metrics is not None else None
    run_workers(settings.workers, lambda: _worker(server, settings, Load(mine), sock), GRACE, beside)


def _worker(server: MCPServer, settings: Settings, load: Load, sock: socket.socket) -> None:
    """One worker process, once forked: its own trace exporter (a thread, which a fork would not carry), then
    serving."""
    tracing.exporting()
    _serve(server, settings, load, sock, announce=False)


BACKLOG = 2048  # uvicorn's own


def _serve(server: MCPServer, settings: Settings, load: Load, sock: socket.socket, announce: bool) -> None:
    """One uvicorn server on `sock`, the whole of HTTP mode or one worker's part; `announce`: print the start-up
    line once listening."""

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(exception_handler(load))
            await super().startup(sockets)
            if self.started and announce:  # said once the port is bound, so the line is true when it appears
                port = _bound_port(self) or settings.port
                say_started(settings, port, load.limits)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await super().shutdown(sockets)
            if traces.STATE.on:  # the last spans sent: a stop ends the process with os._exit, which runs no atexit
                await anyio.to_thread.run_sync(tracing.flush)

    asker = make_client(settings, warn=False, budget=budget_of(server))
    bearers = Bearers(asking(asker), per_address=settings.lookups_per_address)
    config = uvicorn.Config(
        app(server, settings, load, bearers),
        host=settings.host,
        port=settings.port,
        log_level="warning",  # uvicorn's own start-up lines would repeat ours
        timeout_graceful_shutdown=GRACE,
        http=Guarded.serving(load),
        ws="none",  # no WebSocket route: an upgrade is an ordinary request
        h11_max_incomplete_event_size=HEAD_BYTES,
        backlog=BACKLOG,
        # The client address the per-address limits count: X-Forwarded-For only from these proxies.
        forwarded_allow_ips=list(settings.trusted_proxies),
    )
    _Server(config).run(sockets=[sock])


def listening_socket(host: str, port: int) -> socket.socket:
    """The socket bound as uvicorn would bind it, or CannotListen saying why in words: bound by uvicorn, a port
    in use is a logged error and `sys.exit(1)`, which reads as a tool's failure."""
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on connections whose socket says it is TCP (proto 0 does
    # not), and without it Nagle and the client's delayed ACK add ~40 ms to every keep-alive request's answer.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise CannotListen(cannot_listen(exc, host, port) + ".") from None
    return sock


def cannot_listen(exc: OSError, host: str, port: int) -> str:
    where = f"port {port} on {host}"
    again = "with --port or GITEA_MCP_PORT"
    if exc.errno == errno.EADDRINUSE:
        return f"{where} is in use by another program; stop it, or choose a free port {again}"
    if exc.errno == errno.EACCES:
        return f"{where} needs privileges this user lacks (ports below 1024 do); choose a port from 1024 {again}"
    fix = "set --host or GITEA_MCP_HOST to one of this machine's addresses (127.0.0.1, or 0.0.0.0 for all of them)"
    if isinstance(exc, socket.gaierror):
        return f"cannot listen on {host}: no such host name; {fix}"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host}: it is not an address of this machine; {fix}"
    return f"cannot listen on {where} ({exc.strerror or exc}); choose another --host or --port"


# Seconds a stop (Ctrl-C, SIGTERM) waits for calls in flight; an idle server stops at once.
GRACE = 5


def say_started(settings: Settings, port: int, plan: Limits) -> None:
    """Said on stderr once `port` is bound: the start-up line, then a warning when the public URL cannot reach it."""
    print(startup_line(settings, port, plan), file=sys.stderr, flush=True)
    unreachable = public_url_unreachable(settings, port)
    if unreachable is not None:
        print(f"gitea-issues-mcp: warning: {'; '.join(unreachable)}", file=sys.stderr, flush=True)


def startup_line(settings: Settings, port: int, plan: Limits | None = None) -> str:
    """The one line HTTP mode prints: where it listens, who may call (and where users sign in), which Host headers
    it accepts, the write guard, the rates and the limits in force."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    url = f"http://{host}:{port}{MCP_PATH}"
    said = f"gitea-issues-mcp: serving MCP (streamable HTTP) at {url}; auth: {auth_mode(settings)}; {_hosts(settings)}"
    whole = plan or limits(settings)
    guard = _guard(settings)
    if guard:
        said += f"; {guard}"
    if settings.traces:
        said += f"; {tracing.describe(settings)}"
    if settings.signin:  # the pool of the routes without a token, which exist with sign-in alone
        said += f"; sign-in: {whole.signin_requests} requests at once, {whole.signin_per_address} per address"
    said += f"; {_rates(settings, named=bool(guard))}"
    if settings.workers == 1:
        return f"{said}; {_limits(whole)}"
    mine = share(whole, settings.workers)
    each = f"{mine.connections} connections and {mine.requests} requests at once each"
    return f"{said}; {_limits(whole)}; {settings.workers} worker processes ({each})"


def _guard(settings: Settings) -> str:
    """Where identical writes in flight are held to one: nothing to say where no write tool is served."""
    if not any(spec.writes for spec in offered(settings.read_only, settings.toolsets)):
        return ""
    if settings.redis_url is None:
        return "write guard: in process"
    return f"write guard: Redis at {redis_display(settings.redis_url.get_secret_value())}"


def _rates(settings: Settings, named: bool) -> str:
    """The tool calls a minute per user and the requests a minute to the forge, and where they are kept (`named`:
    the write guard's part already named the Redis)."""
    per_user = calls_per_minute(settings)
    forge = settings.forge_requests_per_minute
    calls = f"{per_user} tool calls a minute per user" if per_user else "no limit of tool calls per user"
    budget = f"{forge} requests a minute to Gitea" if forge else "no budget of requests to Gitea"
    if forge and settings.redis_url is None and settings.workers > 1:  # kept in each process: divided among them
        budget += f" ({max(1, forge // settings.workers)} per worker)"
    said = f"rates: {calls} and {budget}"
    if not per_user and not forge:
        return said
    if settings.redis_url is None:
        return f"{said}, kept in this process"
    return f"{said}, kept in Redis" + ("" if named else f" at {redis_display(settings.redis_url.get_secret_value())}")


def _limits(plan: Limits) -> str:
    files = f" (ulimit -n {plan.files})" if plan.files is not None else ""
    return (
        f"limits: {plan.connections} connections{files}, {plan.requests} requests at once, {plan.body:,}-byte "
        f"bodies, {plan.header_timeout:g} s for headers, {plan.body_timeout:g} s for a body"
    )


def auth_mode(settings: Settings) -> str:
    own = "each request's own Gitea token (Authorization: Bearer)"
    if settings.signin:
        own = f"sign-in at {settings.public_url} (tokens this server issues), or {own}"
    if settings.http_secret is None:
        unused = " (GITEA_TOKEN unused: it needs GITEA_MCP_HTTP_SECRET)" if settings.token is not None else ""
        return own + unused
    return f"{own}, or the operator's secret (X-Gitea-MCP-Secret) to act with GITEA_TOKEN"


def _hosts(settings: Settings) -> str:
    if "*" in settings.allowed_hosts:
        return "allowed hosts: any (Host and Origin unchecked)"
    hosts = ", ".join(security(settings).allowed_hosts or [])
    if settings.host not in _LOOPBACK and not settings.allowed_hosts:
        # Reachable from elsewhere, yet every other name is refused (421): say so before the first client tries.
        return f"allowed hosts: {hosts} only (set GITEA_MCP_ALLOWED_HOSTS to the names clients use)"
    return f"allowed hosts: {hosts}"


def _bound_port(server: Any) -> int | None:
    """The port actually bound (differs from the setting for --port 0)."""
    for listener in getattr(server, "servers", []):
        for sock in listener.sockets:
            port: int = sock.getsockname()[1]
            return port
    return None
