"""Streamable HTTP: stateless, so any number of replicas can sit behind a plain load balancer.

Every request must carry exactly one credential: `Authorization: Bearer <token>` with the caller's own Gitea
token, or — only when the operator set GITEA_MCP_HTTP_SECRET — that secret in its own header,
`X-Gitea-MCP-Secret`, which lets the request use the server's GITEA_TOKEN. The secret is compared here and never
forwarded; a wrong one is refused, not sent to Gitea as a token. Reaching the port is never enough to act as
anyone. Host and Origin are checked against DNS rebinding. `/healthz` answers without auth for probes.
`GET /mcp` (a server-to-client stream, which a stateless server never uses) is refused at once.
"""

from __future__ import annotations

import errno
import hmac
import json
import re
import socket
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gitea_mcp.settings import CannotListen, Settings

MCP_PATH = "/mcp"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


SECRET_HEADER = "x-gitea-mcp-secret"
_BEARER = re.compile(r"(?i)(?:bearer|token) ([!-~]+)")  # one scheme, one space, a token of visible characters
_ONE = "send exactly one credential: 'Authorization: Bearer <your Gitea token>'"


@dataclass(frozen=True)
class Credential:
    token: str | None  # the Gitea token the request acts with
    refused: str | None = None  # why the request is refused (401), in words for the caller


def credential(headers: Iterable[tuple[str, str]], settings: Settings) -> Credential:
    """The one way `Authorization` and the operator's secret header are read, by the gate and by the tools alike."""
    pairs = [(name.lower(), value) for name, value in headers]
    auths = [value for name, value in pairs if name == "authorization"]
    secrets = [value for name, value in pairs if name == SECRET_HEADER]
    if len(auths) + len(secrets) != 1:
        return Credential(None, f"{_ONE}, or the operator's secret in X-Gitea-MCP-Secret")
    if secrets:
        expected = settings.http_secret.get_secret_value() if settings.http_secret else None
        if expected is None or not hmac.compare_digest(secrets[0].strip().encode(), expected.encode()):
            return Credential(None, "wrong or unconfigured operator secret (X-Gitea-MCP-Secret)")
        return Credential(settings.token_value())
    found = _BEARER.fullmatch(auths[0].strip())
    if found is None:
        return Credential(None, f"malformed Authorization header: {_ONE}")
    return Credential(found.group(1))


def security(settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks: loopback names by default, the operator's list otherwise; '*' turns them off."""
    if "*" in settings.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = list(settings.allowed_hosts) or ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class RequireToken:
    """ASGI middleware: exactly one well-formed credential, or no MCP. The token is checked by Gitea on first use."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(MCP_PATH):
            if scope["method"] in ("GET", "DELETE"):
                # Stateless: there is no stream to open and no session to end. Without this a GET holds a
                # connection open for as long as the client likes.
                await _reply(405, "this server is stateless: POST MCP requests to /mcp", {"Allow": "POST"})(
                    scope, receive, send
                )
                return
            headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
            refused = credential(headers, self.settings).refused
            if refused is not None:
                challenge = {"WWW-Authenticate": 'Bearer realm="gitea-mcp"'}
                await _reply(401, refused, challenge)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _reply(status: int, error: str, headers: dict[str, str]) -> Response:
    return Response(json.dumps({"error": error}), status_code=status, media_type="application/json", headers=headers)


def app(server: MCPServer, settings: Settings) -> ASGIApp:
    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    server.custom_route("/healthz", methods=["GET"])(healthz)

    starlette = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,  # no session state: any replica can answer any request
        json_response=True,
        transport_security=security(settings),
        host=settings.host,
    )
    return RequireToken(starlette, settings)


def serve(server: MCPServer, settings: Settings) -> None:
    import uvicorn

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:  # said once the port is bound, so the line is true when it appears
                print(startup_line(settings, _bound_port(self) or settings.port), file=sys.stderr, flush=True)

    config = uvicorn.Config(
        app(server, settings),
        host=settings.host,
        port=settings.port,
        log_level="warning",  # uvicorn's own start-up lines would repeat ours
        timeout_graceful_shutdown=GRACE,
    )
    _Server(config).run(sockets=[listening_socket(settings.host, settings.port)])


def listening_socket(host: str, port: int) -> socket.socket:
    """The socket bound as uvicorn would bind it, or CannotListen saying why in words: bound by uvicorn, a port
    in use is a logged error and `sys.exit(1)`, which reads as a tool's failure."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
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


def startup_line(settings: Settings, port: int) -> str:
    """The one line HTTP mode prints: where it listens, who may call, which Host headers it accepts."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    url = f"http://{host}:{port}{MCP_PATH}"
    return f"gitea-issues-mcp: serving MCP (streamable HTTP) at {url}; auth: {auth_mode(settings)}; {_hosts(settings)}"


def auth_mode(settings: Settings) -> str:
    own = "each request's own Gitea token (Authorization: Bearer)"
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
