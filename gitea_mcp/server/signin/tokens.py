"""The client's leg: `/register` (RFC 7591) and `/token` (RFC 6749 §4.1.3 and §6), and the bearer tokens we
issue, opened for the gate.

Every answer is JSON, errors included (`{"error": …, "error_description": …}`: the TypeScript SDK parses them),
and is never cached. A code is spent by its first exchange and a refresh token by its first refresh (marks);
the PKCE verifier is checked here, whatever Gitea checks behind us.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from typing import Any

import anyio.to_thread
from cryptography.fernet import Fernet
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import gitea_mcp.observe as observe
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.oauth import GiteaTokens, OAuthRefused
from gitea_mcp.server.signin.clients import MAX_METADATA, BadClient, register
from gitea_mcp.server.signin.context import (
    REFRESH_GRACE,
    REFRESH_TTL,
    SignIn,
    body_of,
    client_key,
    form_of,
    log,
    s256,
)
from gitea_mcp.server.signin.marks import ENDED, Unreachable
from gitea_mcp.server.signin.seal import Unsealable
from gitea_mcp.toolkit.scopes import folded

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
        _counted(form, exc.error)
        return refusal(exc)
    _counted(form, "ok")
    return JSONResponse(answer, headers={**NO_STORE, **CORS})


def _counted(form: dict[str, str] | None, outcome: str) -> None:
    """A sign-in (a code exchanged) or a refresh, by its outcome: `ok` or the OAuth error code (a bounded set)."""
    grant = (form or {}).get("grant_type")
    if grant == "authorization_code":
        observe.signin(outcome)
    elif grant == "refresh_token":
        observe.refresh(outcome)


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
    except Unreachable as exc:
        raise Refusal("temporarily_unavailable", f"{exc}; try again shortly", 503) from None
    if not first:
        raise Refusal("invalid_grant", f"this {what} was already used; sign in again")


ENDED_SAID = "this sign-in was ended: one of its refresh tokens was used twice; sign in again"
_RETRY = "retry:"  # + a refresh token's jti: its answer, for a retry within REFRESH_GRACE (sealed for its holder)


def ended(signin: SignIn, family: str) -> bool:
    """Whether the sign-in `family` was ended by a refresh-token replay (Unreachable: the store did not answer)."""
    return signin.marks.spent(ENDED + family)


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
    return _issued(signin, claims, GiteaTokens(claims["ga"], claims["gr"], left))[0]


async def _refresh(signin: SignIn, form: dict[str, str]) -> dict[str, Any]:
    presented = form.get("refresh_token") or ""
    claims = _opened(signin, "refresh", presented, form.get("client_id"))
    _resource(signin, form)
    scopes = _narrowed(claims["scopes"], form.get("scope"))
    try:
        return await anyio.to_thread.run_sync(_refreshed, signin, claims, presented, scopes)
    except Unreachable as exc:
        raise Refusal("temporarily_unavailable", f"{exc}; try again shortly", 503) from None


def _narrowed(granted: list[str], asked: str | None) -> list[str]:
    """The scopes of the access token a refresh gives: all granted when none are asked (RFC 6749 §6), else those
    asked, each covered by a grant (write:X covers read:X) — narrowing is allowed, widening never."""
    if asked is None or not asked.strip():
        return list(granted)
    wanted = set(asked.split())
    covered = set(granted) | {f"read:{scope[6:]}" for scope in granted if scope.startswith("write:")}
    wider = sorted(wanted - covered)
    if wider:
        raise Refusal("invalid_scope", f"a refresh may keep or narrow the scopes, never widen them ({wider[0][:40]})")
    return folded(wanted)


def _refreshed(signin: SignIn, claims: dict[str, Any], presented: str, scopes: list[str]) -> dict[str, Any]:
    """Gitea's refresh, and our new pair; or, for a refresh token already used, the answer it got when this is its
    client's retry (REFRESH_GRACE), else the end of the whole sign-in."""
    if ended(signin, str(claims["fam"])):
        raise Refusal("invalid_grant", ENDED_SAID)
    jti = str(claims["jti"])
    if signin.marks.spent(jti):
        return _again(signin, claims, presented)
    try:
        tokens = signin.gitea.refresh(claims["gr"])
    except OAuthRefused:
        # Revoked in Gitea (Settings, Applications), or expired there: the session is over.
        ended_there = "Gitea no longer accepts this sign-in (revoked or expired); sign in again"
        raise Refusal("invalid_grant", ended_there) from None
    except GiteaError:
        raise Refusal("temporarily_unavailable", "Gitea did not answer the refresh; try again shortly", 503) from None
    answer, successor = _issued(signin, claims, tokens, scopes)
    # Spent after Gitea's answer, so a Gitea that did not answer leaves the refresh token usable; a replay of a
    # used one is refused here even though Gitea (by default) would still take it. The answer is kept first, for
    # REFRESH_GRACE, sealed with a key only the refresh token gives: the store never holds a usable token. Its
    # NX decides between two uses of one token at once: the second gets the first one's answer.
    kept = json.dumps({"next": successor, "sealed": _sealed_for(presented, answer)})
    if not signin.marks.keep(_RETRY + jti, kept, signin.clock() + REFRESH_GRACE):
        return _again(signin, claims, presented)
    signin.marks.spend(jti, float(claims["exp"]))
    return answer


def _again(signin: SignIn, claims: dict[str, Any], presented: str) -> dict[str, Any]:
    """A used refresh token came back. Its client's retry (its answer was lost), within REFRESH_GRACE and before
    the refresh token that answer gave was used, gets that answer again. Anything else is a copy in other hands:
    the whole sign-in ends (RFC 9700 §4.14.2) — every refresh token and access token of it, on every replica that
    shares the marks — so the thief's copy and the user's are both worthless."""
    kept = signin.marks.get(_RETRY + str(claims["jti"]))
    if kept is not None:
        record = json.loads(kept)
        if not signin.marks.spent(str(record["next"])):
            log.info("sign-in: %s retried a refresh; the same answer was given again", claims["sub"])
            return _opened_for(presented, str(record["sealed"]))
    signin.marks.spend(ENDED + str(claims["fam"]), signin.clock() + REFRESH_TTL)
    log.warning("sign-in: a used refresh token of %s came back; that sign-in is ended", claims["sub"])
    raise Refusal("invalid_grant", "this refresh token was already used; its sign-in is ended: sign in again")


def _retry_key(presented: str) -> Fernet:
    digest = hashlib.sha256(b"gitea-mcp refresh retry\0" + presented.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def _sealed_for(presented: str, answer: dict[str, Any]) -> str:
    return _retry_key(presented).encrypt(json.dumps(answer).encode()).decode("ascii")


def _opened_for(presented: str, sealed: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(_retry_key(presented).decrypt(sealed.encode("ascii")))
    return answer


def _issued(
    signin: SignIn, claims: dict[str, Any], tokens: GiteaTokens, scopes: list[str] | None = None
) -> tuple[dict[str, Any], str]:
    """Our new pair, and the new refresh token's jti. The access token has `scopes` (narrowed by a refresh, held to
    by the tools; the Gitea token inside has all that was granted), the refresh token the grant's whole, as RFC 6749
    §6 says. `fam` names the sign-in, carried from refresh to refresh, in both: a replay ends them all."""
    granted = claims["scopes"]
    scopes = granted if scopes is None else scopes
    family = claims.get("fam") or secrets.token_urlsafe(16)  # a new one at the code's exchange
    who = {"sub": claims["sub"], "cid": claims["cid"], "fam": family}
    lifetime = max(60, tokens.expires_in)
    access = signin.sealer.seal("access", {**who, "scopes": scopes, "ga": tokens.access}, lifetime)
    jti = secrets.token_urlsafe(16)
    kept = {**who, "scopes": granted, "gr": tokens.refresh, "jti": jti}
    refresh = signin.sealer.seal("refresh", kept, REFRESH_TTL)
    answer = {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "refresh_token": refresh,
        "scope": " ".join(scopes),
    }
    return answer, jti
