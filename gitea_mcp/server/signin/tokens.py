"""The client's leg: `/register` (RFC 7591) and `/token` (RFC 6749 §4.1.3 and §6), and the bearer tokens we
issue, opened for the gate.

Every answer is JSON, errors included (`{"error": …, "error_description": …}`: the TypeScript SDK parses them),
and is never cached. A code is spent by its first exchange and a refresh token by its first refresh (marks);
the PKCE verifier is checked here, whatever Gitea checks behind us.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.oauth import GiteaTokens, OAuthRefused
from gitea_mcp.server.signin.clients import MAX_METADATA, BadClient, register
from gitea_mcp.server.signin.context import REFRESH_TTL, SignIn, body_of, client_key, form_of, log, s256
from gitea_mcp.server.signin.marks import Unreachable
from gitea_mcp.server.signin.seal import Unsealable

_VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")  # RFC 7636 §4.1
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Authorization, Content-Type"}


class Refusal(Exception):
    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


def refusal(exc: Refusal) -> Response:
    body = {"error": exc.error, "error_description": exc.description}
    return JSONResponse(body, status_code=exc.status, headers={**NO_STORE, **CORS})


async def registration(signin: SignIn, request: Request) -> Response:
    body = await body_of(request, MAX_METADATA)
    if not body:
        said = f"send the client's metadata as JSON of at most {MAX_METADATA:,} bytes"
        return refusal(Refusal("invalid_client_metadata", said))
    try:
        metadata = json.loads(body)
        _, answer = register(metadata, signin.clock())
    except (ValueError, RecursionError):  # RecursionError: a body of "[[[…" nests deeper than Python's stack
        return refusal(Refusal("invalid_client_metadata", "the body is not JSON"))
    except BadClient as exc:
        code = "invalid_redirect_uri" if "redirect" in str(exc) else "invalid_client_metadata"
        return refusal(Refusal(code, str(exc)))
    return JSONResponse(answer, status_code=201, headers={**NO_STORE, **CORS})


async def token(signin: SignIn, request: Request) -> Response:
    form = await form_of(request)
    try:
        if form is None:
            raise Refusal("invalid_request", "send the token request as an x-www-form-urlencoded body, each field once")
        grant = form.get("grant_type")
        if grant == "authorization_code":
            answer = await _exchange(signin, form)
        elif grant == "refresh_token":
            answer = await _refresh(signin, form)
        else:
            raise Refusal("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
    except Refusal as exc:
        return refusal(exc)
    return JSONResponse(answer, headers={**NO_STORE, **CORS})


def _opened(signin: SignIn, kind: Any, value: str | None, client_id: str | None) -> dict[str, Any]:
    """The claims of a code or refresh token given to this client, else invalid_grant."""
    if not client_id:
        raise Refusal("invalid_request", "send client_id (a public client identifies itself with it)")
    try:
        claims = signin.sealer.open(kind, value or "")
    except Unsealable as exc:
        raise Refusal("invalid_grant", str(exc)) from None
    if not hmac.compare_digest(str(claims["cid"]).encode(), client_key(client_id).encode()):
        raise Refusal("invalid_grant", "this grant was issued to another client")
    return claims


def _resource(signin: SignIn, form: dict[str, str]) -> None:
    resource = form.get("resource")
    if resource is not None and resource != signin.sealer.audience:
        raise Refusal("invalid_target", f"this server issues tokens for {signin.sealer.audience} only")


def _spend(signin: SignIn, claims: dict[str, Any], what: str) -> None:
    try:
        first = signin.marks.spend(str(claims["jti"]), float(claims["exp"]))
        if not first and what == "refresh token":
            # A used refresh token came back: someone holds a copy. The whole sign-in it belongs to ends (RFC 9700
            # §4.14.2), the newest refresh token included, so the thief's copy and the user's are both worthless.
            signin.marks.spend(_ENDED + str(claims["fam"]), signin.clock() + REFRESH_TTL)
    except Unreachable as exc:
        raise Refusal("temporarily_unavailable", f"{exc}; try again shortly", 503) from None
    if not first:
        raise Refusal("invalid_grant", f"this {what} was already used; sign in again")


_ENDED = "family:"  # + a sign-in's id: marked when one of its refresh tokens was used twice


def _ended(signin: SignIn, claims: dict[str, Any]) -> bool:
    try:
        return signin.marks.spent(_ENDED + str(claims["fam"]))
    except Unreachable as exc:
        raise Refusal("temporarily_unavailable", f"{exc}; try again shortly", 503) from None


async def _exchange(signin: SignIn, form: dict[str, str]) -> dict[str, Any]:
    claims = _opened(signin, "code", form.get("code"), form.get("client_id"))
    redirect = form.get("redirect_uri")
    if (redirect is not None or claims["asked_redirect"]) and redirect != claims["redirect"]:
        raise Refusal("invalid_grant", "redirect_uri differs from the one the code was issued for")
    verifier = form.get("code_verifier", "")
    if not _VERIFIER.fullmatch(verifier) or not hmac.compare_digest(s256(verifier), str(claims["challenge"])):
        raise Refusal("invalid_grant", "code_verifier does not match the code_challenge (PKCE)")
    _resource(signin, form)
    await anyio.to_thread.run_sync(_spend, signin, claims, "code")
    log.info("sign-in: %s signed in with %s (scopes %s)", claims["sub"], claims["name"], " ".join(claims["scopes"]))
    left = int(claims["gexp"] - signin.clock())
    return _issued(signin, claims, GiteaTokens(claims["ga"], claims["gr"], left))


async def _refresh(signin: SignIn, form: dict[str, str]) -> dict[str, Any]:
    claims = _opened(signin, "refresh", form.get("refresh_token"), form.get("client_id"))
    _resource(signin, form)
    narrower = form.get("scope")
    if narrower is not None and not set(narrower.split()) <= set(claims["scopes"]):
        raise Refusal("invalid_scope", "a refresh may keep or narrow the scopes, never widen them")
    if await anyio.to_thread.run_sync(_ended, signin, claims):
        ended = "this sign-in was ended: one of its refresh tokens was used twice; sign in again"
        raise Refusal("invalid_grant", ended)
    try:
        tokens = await anyio.to_thread.run_sync(signin.gitea.refresh, claims["gr"])
    except OAuthRefused:
        # Revoked in Gitea (Settings, Applications), or expired there: the session is over.
        ended = "Gitea no longer accepts this sign-in (revoked or expired); sign in again"
        raise Refusal("invalid_grant", ended) from None
    except GiteaError:
        raise Refusal("temporarily_unavailable", "Gitea did not answer the refresh; try again shortly", 503) from None
    # Spent after Gitea's answer, so a Gitea that did not answer leaves the refresh token usable; a replay of a
    # used one is refused here even though Gitea (by default) would still take it.
    await anyio.to_thread.run_sync(_spend, signin, claims, "refresh token")
    return _issued(signin, claims, tokens)


def _issued(signin: SignIn, claims: dict[str, Any], tokens: GiteaTokens) -> dict[str, Any]:
    scopes = claims["scopes"]  # the Gitea token inside has these, whatever narrower set a refresh asked
    who = {"sub": claims["sub"], "cid": claims["cid"], "scopes": scopes}
    lifetime = max(60, tokens.expires_in)
    access = signin.sealer.seal("access", {**who, "ga": tokens.access}, lifetime)
    # `fam` names the sign-in, carried from refresh to refresh; a new one at the code's exchange.
    family = claims.get("fam") or secrets.token_urlsafe(16)
    kept = {**who, "gr": tokens.refresh, "jti": secrets.token_urlsafe(16), "fam": family}
    refresh = signin.sealer.seal("refresh", kept, REFRESH_TTL)
    return {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "refresh_token": refresh,
        "scope": " ".join(scopes),
    }
