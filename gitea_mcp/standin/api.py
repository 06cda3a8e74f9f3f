"""Dispatch: authentication, routing and token scopes in the order Gitea applies them, then the endpoint.

Order matters because it decides which error a client sees first: a bad token is 401 on every route,
a missing scope is 403 before the repository is even looked up, a private repository is 404.
"""

from __future__ import annotations

import base64
import binascii
import html
from urllib.parse import unquote

from gitea_mcp.standin.core import ApiError, Call, Redirect, Request, Response, json_response
from gitea_mcp.standin.endpoints import NOT_FOUND, ROUTES, Route
from gitea_mcp.standin.profile import Profile
from gitea_mcp.standin.render import View
from gitea_mcp.standin.store import Store, Token

API_PREFIX = "/api/v1"
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_GITEA_HEADERS = {
    "Cache-Control": "max-age=0, private, must-revalidate, no-transform",
    "X-Content-Type-Options": "nosniff",
}


def token_text(authorization: str | None) -> str | None:
    """The token in `Authorization: token <t>`, `Bearer <t>`, or Basic with the token as password."""
    scheme, _, value = (authorization or "").strip().partition(" ")
    value = value.strip()
    if scheme.lower() in ("token", "bearer"):
        return value or None
    if scheme.lower() == "basic":
        try:
            return base64.b64decode(value, validate=True).decode().partition(":")[2] or ""
        except (binascii.Error, UnicodeDecodeError):
            return ""
    return None


class Api:
    """Answers one request against the store; thread-safe (one request at a time holds the store lock)."""

    def __init__(self, store: Store, profile: Profile | None = None) -> None:
        self.store = store
        self.profile = profile or Profile()
        self.root = ""  # the server's ROOT_URL without trailing slash, set when it starts

    def login_for(self, authorization: str | None) -> str | None:
        token = self.store.tokens.get(token_text(authorization) or "")
        return token.login if token else None

    def handle(self, request: Request) -> Response:
        try:
            with self.store.lock:
                response = self._dispatch(request)
        except Redirect as moved:
            response = _redirect(request, moved.location)
        except ApiError as exc:
            response = self.error(exc.status, exc.message)
        response.headers.update(_GITEA_HEADERS)
        return response

    def error(self, status: int, message: str | None) -> Response:
        """Gitea's error body; `None` is a bare status."""
        if message is None:
            return Response(status)
        return json_response({"message": message, "url": f"{self.root}/api/swagger"}, status)

    def _dispatch(self, request: Request) -> Response:
        token = self._authenticate(request.authorization)
        route, args = _match(request)
        doer = self.store.user(token.login) if token else None
        call = Call(request, args, self.store, View(self.store, self.root, doer), token)
        _check_scope(call, route)
        return route.handler(call)

    def _authenticate(self, authorization: str | None) -> Token | None:
        text = token_text(authorization)
        if text is None:
            return None
        token = self.store.tokens.get(text)
        if token is None:
            raise ApiError(401, "invalid username, password or token")
        return token


def _match(request: Request) -> tuple[Route, dict[str, str]]:
    path = request.raw_path
    if not path.startswith(API_PREFIX + "/"):
        raise ApiError(404, NOT_FOUND)
    segments = path[len(API_PREFIX) :].split("/")
    method = "GET" if request.method == "HEAD" else request.method  # Gitea answers HEAD like GET
    allowed = False
    for route in ROUTES:
        args = _bind_path(route.template.split("/"), segments)
        if args is None:
            continue
        if route.method == method:
            return route, args
        allowed = True
    raise ApiError(405, "method not allowed") if allowed else ApiError(404, NOT_FOUND)


def _bind_path(template: list[str], segments: list[str]) -> dict[str, str] | None:
    if len(template) != len(segments):
        return None
    args: dict[str, str] = {}
    for part, segment in zip(template, segments, strict=True):
        if part.startswith("{"):
            if not segment:
                return None
            args[part[1:-1]] = unquote(segment)  # decoded per segment: %2F stays inside its segment
        elif part != segment:
            return None
    return args


def _check_scope(call: Call, route: Route) -> None:
    """Gitea's tokenRequiresScopes: read for GET, write for the others; write implies read."""
    if route.scope is None or call.token is None:
        return
    level = "write" if call.req.method in _WRITE_METHODS else "read"
    if not call.token.allows(level, route.scope):
        raise ApiError(
            403,
            f"token does not have at least one of required scope(s), required=[{level}:{route.scope}], "
            f"token scope={call.token.scope_text}",
        )


def _redirect(request: Request, location: str) -> Response:
    # Gitea's RedirectToRepo: 307 keeps the method and body, so a write is re-sent to the new name.
    body = b""
    if request.method in ("GET", "HEAD"):
        body = f'<a href="{html.escape(location)}">Temporary Redirect</a>.\n\n'.encode()
    return Response(307, body, "text/html; charset=utf-8", {"Location": location})
