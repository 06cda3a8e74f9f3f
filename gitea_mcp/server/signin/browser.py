"""The browser's leg: `/authorize` (our consent page, then Gitea's sign-in) and `/callback` (Gitea's answer, then
the client's redirect URI with our code).

Nothing that cannot be trusted is ever redirected to: until the client and its redirect URI are known good, an
error is our own page. After that, errors go back to the client as RFC 6749 §4.1.2.1 says. The consent page's
form and Gitea's callback are bound to the browser that asked, by a random nonce in an HttpOnly cookie and in
the sealed request: a page or link from elsewhere cannot finish someone else's sign-in.
"""

from __future__ import annotations

import hmac
import re
import secrets
from typing import Any
from urllib.parse import urlencode

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.oauth import OAuthRefused
from gitea_mcp.server.discovery import gitea_scopes
from gitea_mcp.server.signin import pages
from gitea_mcp.server.signin.clients import BadClient, Client
from gitea_mcp.server.signin.context import (
    CODE_TTL,
    COOKIE,
    PENDING_TTL,
    STATE_TTL,
    SignIn,
    back_to,
    client_key,
    form_of,
    log,
    pkce_pair,
)
from gitea_mcp.server.signin.marks import Unreachable
from gitea_mcp.server.signin.seal import Unsealable
from gitea_mcp.toolkit.scopes import folded

_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")  # an S256 challenge: 32 bytes, base64url without padding


async def authorize(signin: SignIn, request: Request) -> Response:
    if request.method == "POST":
        return await _decided(signin, request)
    if len(request.query_params.multi_items()) != len(request.query_params):
        return pages.error("This sign-in cannot go on: a parameter of the request is repeated, which OAuth forbids")
    asked = dict(request.query_params)
    try:
        client = await anyio.to_thread.run_sync(signin.clients.find, asked.get("client_id"))
        redirect = client.redirect_for(asked.get("redirect_uri"))
    except BadClient as exc:
        return pages.error(f"This sign-in cannot go on: {exc}")
    state = asked.get("state")
    refused = _refused(signin, asked)
    if refused is not None:
        error, description = refused
        return back_to(redirect, _error(signin, error, description, state))
    nonce = secrets.token_urlsafe(24)
    scopes = _scopes(signin, asked.get("scope"))
    claims = {
        "cid": client_key(client.client_id),
        "name": client.name,
        "redirect": redirect,
        "asked_redirect": "redirect_uri" in asked,
        "state": state,
        "challenge": asked["code_challenge"],
        "scopes": scopes,
        "nonce": nonce,
    }
    pending = signin.sealer.seal("pending", claims, PENDING_TTL)
    page = pages.consent(
        client=_who(client), redirect=redirect, scopes=scopes, gitea=signin.client.url, pending=pending
    )
    # The nonces of the browser's sign-ins under way, this one last: two clients signing in at once in one browser
    # each find their own.
    _keep(page, signin, [*_nonces(request)[1 - SIGNINS_AT_ONCE :], nonce])
    return page


SIGNINS_AT_ONCE = 4  # sign-ins one browser may have under way; a fifth forgets the oldest


def _nonces(request: Request) -> list[str]:
    return [nonce for nonce in request.cookies.get(COOKIE, "").split(".") if nonce][-SIGNINS_AT_ONCE:]


def _keep(response: Response, signin: SignIn, nonces: list[str]) -> None:
    if not nonces:
        response.delete_cookie(COOKIE, path="/")
        return
    value = ".".join(nonces)
    response.set_cookie(COOKIE, value, max_age=PENDING_TTL, httponly=True, samesite="lax", secure=signin.secure)


def _who(client: Client) -> str:
    where = pages.shown_url(client.client_id)
    how = "named by its metadata document at " + where if client.kind == "metadata document" else None
    return f"{client.name} ({how})" if how else client.name


def _refused(signin: SignIn, asked: dict[str, str]) -> tuple[str, str] | None:
    """What is wrong with a request from a known client, as an OAuth error code and a description."""
    if asked.get("response_type") != "code":
        return "unsupported_response_type", "this server issues codes only: response_type=code"
    if asked.get("code_challenge_method") != "S256" or not _CHALLENGE.fullmatch(asked.get("code_challenge", "")):
        return "invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256"
    resource = asked.get("resource")
    if resource is not None and resource != signin.sealer.audience:
        return "invalid_target", f"this server issues tokens for {signin.sealer.audience} only"
    unknown = [scope for scope in (asked.get("scope") or "").split() if scope not in _accepted(signin)]
    if unknown:
        return (
            "invalid_scope",
            f"unknown scope {unknown[0][:40]}; this server offers {' '.join(signin.scopes_offered())}",
        )
    return None


def _accepted(signin: SignIn) -> list[str]:
    """The scopes a client may ask for: those offered, and the read scope each offered write scope covers (a
    client that only reads may ask read:issue of a server that offers write:issue)."""
    scopes = signin.scopes_offered()
    return scopes + [f"read:{scope[6:]}" for scope in scopes if scope.startswith("write:")]


def _scopes(signin: SignIn, asked: str | None) -> list[str]:
    """The scopes asked (all that are offered when none are), without those another implies, issue scopes first."""
    wanted = set((asked or "").split())
    return folded(wanted) if wanted else signin.scopes_offered()


def _error(signin: SignIn, error: str, description: str, state: str | None) -> dict[str, str | None]:
    return {"error": error, "error_description": description, "state": state, "iss": signin.origin}


async def _decided(signin: SignIn, request: Request) -> Response:
    """The consent form, posted: from this browser (its cookie) and this origin, or not at all."""
    origin = request.headers.get("origin")
    if origin is not None and origin != signin.origin:
        return pages.error("The consent form was sent from another site", 403)
    form = await form_of(request)
    try:
        pending = signin.sealer.open("pending", (form or {}).get("pending", ""))
    except Unsealable as exc:
        return pages.error(f"This sign-in cannot go on: {exc}; start it again from your client")
    if not _same_browser(request, pending):
        return pages.error("This sign-in was started in another browser (or its cookie was blocked)", 403)
    if (form or {}).get("decision") != "approve":
        return back_to(pending["redirect"], _error(signin, "access_denied", "the user denied access", pending["state"]))
    try:
        gitea = await anyio.to_thread.run_sync(signin.gitea.authorize_endpoint)
        method = await anyio.to_thread.run_sync(signin.gitea.pkce_method)
    except GiteaError as exc:
        log.warning("sign-in: Gitea's sign-in page could not be found: %s", exc)
        return pages.error("Gitea's sign-in page could not be found (the operator's set-up); try again later", 502)
    # Our own PKCE towards Gitea, one verifier per sign-in, sealed in the state: Gitea's code is then spent only
    # with this sign-in's verifier, so a Gitea code seen on its way (a log, a Referer) cannot be brought to
    # /callback with the state of another sign-in, the thief's own. The method is the one the forge keeps on its
    # consent page (gitea/oauth.consent_pkce); `jti` makes the state single use.
    verifier, challenge = pkce_pair(method)
    claims = {**pending, "verifier": verifier, "jti": secrets.token_urlsafe(16)}
    state = signin.sealer.seal("state", claims, STATE_TTL)
    query = {
        "client_id": signin.gitea.client_id,
        "redirect_uri": signin.gitea.redirect_uri,
        "response_type": "code",
        # Every scope offered, whatever this client asked: Gitea keeps one grant per user and application and
        # refuses a sign-in asking for other scopes than it holds. The client's own are held to by the tools.
        "scope": " ".join(gitea_scopes(signin.scopes_offered())),
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": method,
    }
    return RedirectResponse(f"{gitea}?{urlencode(query)}", status_code=303, headers={"Cache-Control": "no-store"})


def _same_browser(request: Request, claims: dict[str, Any]) -> bool:
    mine = str(claims.get("nonce", "")).encode()
    return any(hmac.compare_digest(nonce.encode(), mine) for nonce in _nonces(request))


async def callback(signin: SignIn, request: Request) -> Response:
    """Gitea sent the browser back: exchange its code (our own PKCE), learn who signed in, and hand the client a
    code of ours that holds Gitea's tokens sealed."""
    answer = dict(request.query_params)
    try:
        pending = signin.sealer.open("state", answer.get("state", ""))
    except Unsealable as exc:
        return pages.error(f"Gitea's answer cannot be used: {exc}; start the sign-in again from your client")
    if not _same_browser(request, pending):
        return pages.error("This sign-in was started in another browser (or its cookie was blocked)", 403)
    try:
        first = await anyio.to_thread.run_sync(signin.marks.spend, _STATE + str(pending["jti"]), float(pending["exp"]))
    except Unreachable as exc:
        return pages.error(f"This sign-in cannot be finished now: {exc}; try again shortly", 503)
    if not first:
        return pages.error(_FINISHED)
    handed = await _finished(signin, answer, pending)
    return _done(request, signin, pending, back_to(pending["redirect"], handed))


_STATE = "state:"  # + a state's jti: marked at its /callback, so each state is used once
_FINISHED = "This sign-in was already finished (Gitea's answer came twice); start it again from your client"


async def _finished(signin: SignIn, answer: dict[str, str], pending: dict[str, Any]) -> dict[str, str | None]:
    """What goes back to the client: our code, or the error."""
    state = pending["state"]
    if "code" not in answer:
        refused = answer.get("error", "access_denied")[:64]
        return _error(signin, "access_denied", f"Gitea answered {refused}", state)
    try:
        tokens = await anyio.to_thread.run_sync(signin.gitea.exchange, answer["code"], pending["verifier"])
        login = await anyio.to_thread.run_sync(_login, signin, tokens.access)
    except OAuthRefused as exc:
        log.warning("sign-in: Gitea refused its code for %s: %s", pending["name"], exc.error)
        return _error(signin, "access_denied", "Gitea refused the sign-in", state)
    except GiteaError as exc:
        log.warning("sign-in: Gitea could not be reached to finish it: %s", exc)
        return _error(signin, "temporarily_unavailable", "Gitea did not answer", state)
    claims = {
        "jti": secrets.token_urlsafe(16),
        "cid": pending["cid"],
        "name": pending["name"],
        "redirect": pending["redirect"],
        "asked_redirect": pending["asked_redirect"],
        "challenge": pending["challenge"],
        "scopes": pending["scopes"],
        "sub": login,
        "ga": tokens.access,
        "gr": tokens.refresh,
        "gexp": int(signin.clock()) + tokens.expires_in,
    }
    return {"code": signin.sealer.seal("code", claims, CODE_TTL), "state": state, "iss": signin.origin}


def _login(signin: SignIn, access: str) -> str:
    user = signin.client.with_token(access).get(["user"], retry=False).data
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) else "?"


def _done(request: Request, signin: SignIn, pending: dict[str, Any], response: Response) -> Response:
    """The sign-in is over in this browser: its nonce goes (so /callback opened again finds nothing)."""
    _keep(response, signin, [nonce for nonce in _nonces(request) if nonce != pending["nonce"]])
    return response
