"""Dispatch: authentication, routing and token scopes in the order Gitea applies them, then the endpoint.

Order matters because it decides which error a client sees first: a bad token is 401 on every route,
a missing scope is 403 before the repository is even looked up, a private repository is 404.
How the answer is worded (a 404's message, a redirect's status) is the profile's.
"""

from __future__ import annotations

import base64
import binascii
import html
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote

from gitea_mcp.standin.core import ApiError, Call, NoRoute, NotFound, Redirect, Request, Response, json_response
from gitea_mcp.standin.endpoints import ROUTES, Route
from gitea_mcp.standin.oauth.model import api_scopes
from gitea_mcp.standin.oauth.web import Web
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


def basic_user(authorization: str | None) -> str | None:
    """The user named by `Authorization: Basic`, None for another scheme or one that does not decode."""
    scheme, _, value = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        return base64.b64decode(value.strip(), validate=True).decode().partition(":")[0]
    except (binascii.Error, UnicodeDecodeError):
        return None


class Api:
    """Answers one request against the store; thread-safe (one request at a time holds the store lock)."""

    def __init__(self, store: Store, profile: Profile | None = None) -> None:
        self.store = store
        self.profile = profile or Profile()
        self.root = ""  # the server's ROOT_URL without trailing slash, set when it starts

    def login_for(self, authorization: str | None) -> str | None:
        token = self._token(token_text(authorization) or "")
        return token.login if token else None

    def handle(self, request: Request) -> Response:
        try:
            with self.store.lock:
                page = None if request.raw_path.startswith(API_PREFIX + "/") else self._web(request)
                response = page or self._dispatch(request)
        except NoRoute:
            response = Response(404, b"404 page not found\n", "text/plain; charset=utf-8")
        except Redirect as moved:
            response = _redirect(request, moved.location, moved.status or self.profile.redirect_status)
        except NotFound as exc:
            response = self.not_found(exc.errors, exc.named)
        except ApiError as exc:
            response = self.error(exc.status, exc.message)
        response.headers.update(_GITEA_HEADERS)
        return response

    def error(self, status: int, message: str | None) -> Response:
        """Gitea's error body; `None` is a bare status."""
        if message is None:
            return Response(status)
        return json_response({"message": message, "url": f"{self.root}/api/swagger"}, status)

    def not_found(self, errors: list[str], message: str | None = None) -> Response:
        """Gitea's ctx.NotFound: the release's wording (or the handler's name), and `errors` when something caused
        it."""
        body: dict[str, Any] = {"errors": errors} if errors else {}
        body.update(message=message or self.profile.not_found_message, url=f"{self.root}/api/swagger")
        return json_response(body, 404)

    def _dispatch(self, request: Request) -> Response:
        token = self._authenticate(request.authorization)
        route, args = _match(request)
        doer = self.store.user(token.login) if token else None
        view = View(self.store, self.root, doer, self.profile.zone)
        call = Call(request, args, self.store, view, token, self.profile)
        _check_scope(call, route)
        return route.handler(call)

    def _web(self, request: Request) -> Response | None:
        """The OAuth2 provider's pages and endpoints, outside /api/v1 (standin/oauth/web.py)."""
        return Web(self.store, self.profile, self.root).handle(request)

    def _authenticate(self, authorization: str | None) -> Token | None:
        text = token_text(authorization)
        if text is None:
            return None
        token = self._token(text)
        if token is None:
            raise ApiError(401, self._refusal(authorization))
        return token

    def _refusal(self, authorization: str | None) -> str:
        """The release's 401 sentence, which on Gitea 1.22 names Basic's user (measured on 1.22.6)."""
        login = basic_user(authorization)
        user = self.store.user(login) if login else None
        return self.profile.bad_credential_message(user.login if user else login, user.id if user else 0)

    def _token(self, text: str) -> Token | None:
        """A personal access token, or an OAuth2 access token held to its grant's scopes where the release narrows
        them (Profile.oauth_scopes_narrow), else with every scope."""
        token = self.store.token(text)
        if token is not None:
            return token
        grant = self.store.oauth.access_token_grant(text)
        if grant is None:
            return None
        scopes = api_scopes(grant.scope) if self.profile.oauth_scopes_narrow else ("all",)
        return Token(text, grant.login, scopes)


def _match(request: Request) -> tuple[Route, dict[str, str]]:
    path = request.raw_path
    if not path.startswith(API_PREFIX + "/"):
        raise NoRoute()
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
    # Gitea's router, not a handler, answers these: a bare 405, and a plain-text 404 (no JSON error body).
    raise ApiError(405, None) if allowed else NoRoute()


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
    if call.token.allows(level, route.scope):
        return
    required = f"[{level}:{route.scope}]"
    if not call.profile.scope_error_shows_token_scope:
        raise ApiError(403, f"token does not have at least one of required scope(s): {required}")
    raise ApiError(
        403,
        f"token does not have at least one of required scope(s), required={required}, "
        f"token scope={call.token.scope_text}",
    )


def _redirect(request: Request, location: str, status: int) -> Response:
    # Gitea's RedirectToRepo: a 307 keeps the method and body, so a write is re-sent to the new name;
    # after a 301 clients re-send a write as a GET.
    body = b""
    if request.method in ("GET", "HEAD"):
        body = f'<a href="{html.escape(location)}">{HTTPStatus(status).phrase}</a>.\n\n'.encode()
    return Response(status, body, "text/html; charset=utf-8", {"Location": location})
