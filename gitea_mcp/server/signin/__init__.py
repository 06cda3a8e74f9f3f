"""Sign in with the forge (issue 24): this server is the OAuth 2.1 authorization server its MCP clients see, and
Gitea is where the user signs in and consents, behind it.

    client ──/authorize──▶ our consent page ──▶ Gitea's sign-in ──/callback──▶ client's redirect URI (our code)
    client ──/token (code + PKCE verifier)──▶ our access and refresh tokens, Gitea's sealed inside
    client ──/mcp, Bearer <ours>──▶ the gate opens it, the tools act with the Gitea token inside

docs/operators.md has the sequence whole ("Sign-in with the forge") and the threat model ("Threat model: the
sign-in front"). Modules: `seal` (what state there is, sealed with the operator's key), `clients` (who a client is,
where its codes may go), `documents` (client ID metadata documents: read bounded, kept as their headers allow),
`marks` (spent codes, states and refresh tokens, ended sign-ins), `pages` (consent and error pages), `browser`
(/authorize, /callback), `tokens` (/token, /register), `context` (what the steps share).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import Response

from gitea_mcp.server.signin.browser import authorize, callback
from gitea_mcp.server.signin.context import SignIn
from gitea_mcp.server.signin.tokens import CORS, registration, token

Step = Callable[[SignIn, Request], Awaitable[Response]]


def routes(server: MCPServer, signin: SignIn) -> None:
    def bound(step: Step) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await step(signin, request)

        return endpoint

    async def preflight(request: Request) -> Response:
        return Response(status_code=204, headers={**CORS, "Access-Control-Allow-Methods": "POST, OPTIONS"})

    server.custom_route("/authorize", methods=["GET", "POST"])(bound(authorize))
    server.custom_route("/callback", methods=["GET"])(bound(callback))
    server.custom_route("/token", methods=["POST"])(bound(token))
    server.custom_route("/register", methods=["POST"])(bound(registration))
    for path in ("/token", "/register"):
        server.custom_route(path, methods=["OPTIONS"])(preflight)
