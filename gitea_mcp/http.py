"""Streamable HTTP: stateless, so any number of replicas can sit behind a plain load balancer.

Every request must carry `Authorization: Bearer <token>`: the caller's own Gitea token, or — only when
the operator set GITEA_MCP_HTTP_SECRET — that secret, which lets the request use the server's
GITEA_TOKEN. Reaching the port is never enough to act as anyone. Host and Origin are checked against
DNS rebinding. `/healthz` answers without auth for probes.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Mapping

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gitea_mcp.config import Settings

log = logging.getLogger("gitea_mcp.http")
MCP_PATH = "/mcp"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def bearer(headers: Mapping[str, str]) -> str | None:
    """The token of `Authorization: Bearer <t>` (or Gitea's own `token <t>`), else None."""
    value = headers.get("authorization", "").strip()
    scheme, _, token = value.partition(" ")
    if scheme.lower() in ("bearer", "token") and token.strip():
        return token.strip()
    return None


def gitea_token_for(settings: Settings, presented: str) -> str:
    """The Gitea token a request acts with: the server's, if it presented the operator's secret; else its own."""
    secret = settings.http_secret.get_secret_value() if settings.http_secret else None
    if secret is not None and hmac.compare_digest(presented.encode(), secret.encode()):
        return settings.token_value() or ""
    return presented


def security(settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks: loopback names by default, the operator's list otherwise; '*' turns them off."""
    if "*" in settings.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = list(settings.allowed_hosts) or ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class RequireToken:
    """ASGI middleware: no Authorization, no MCP. The token itself is checked by Gitea on first use."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(MCP_PATH):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            if bearer(headers) is None:
                body = {"error": "missing token: send 'Authorization: Bearer <your Gitea token>'"}
                response = Response(
                    json.dumps(body),
                    status_code=401,
                    media_type="application/json",
                    headers={"WWW-Authenticate": 'Bearer realm="gitea-mcp"'},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


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
    return RequireToken(starlette)


def serve(server: MCPServer, settings: Settings) -> None:
    import uvicorn

    if settings.host not in _LOOPBACK and not settings.allowed_hosts:
        log.warning("listening on %s: set GITEA_MCP_ALLOWED_HOSTS to the names clients use", settings.host)
    if settings.token is not None and settings.http_secret is None:
        log.warning("GITEA_TOKEN is not used over HTTP unless GITEA_MCP_HTTP_SECRET is set; callers bring tokens")
    config = uvicorn.Config(app(server, settings), host=settings.host, port=settings.port, log_level="warning")
    uvicorn.Server(config).run()
