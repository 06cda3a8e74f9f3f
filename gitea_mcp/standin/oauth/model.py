"""Gitea's OAuth2 provider as data and rules, without HTTP: applications, grants, codes, web sessions, tokens.

Read from Gitea 1.25.4 (models/auth/oauth2.go, services/oauth2_provider/) and measured on a live 1.25.4 where said
in tests/contract/test_oauth.py. Tokens are JWTs shaped as Gitea's (`gnt`, `tt`, `cnt`, `exp`, `iat`), signed
HS256 (one of Gitea's `JWT_SIGNING_ALGORITHM` settings; stdlib hmac) with a key each stand-in draws at start.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ACCESS = 0  # the token kinds (`tt`)
REFRESH = 1
ACCESS_SECONDS = 3600  # [oauth2] ACCESS_TOKEN_EXPIRATION_TIME
REFRESH_HOURS = 730  # [oauth2] REFRESH_TOKEN_EXPIRATION_TIME
ALGORITHM = "HS256"
# Scopes that say what the ID token tells, not what the API allows (GrantAdditionalScopes).
GENERAL_SCOPES = frozenset({"openid", "profile", "email", "groups"})
_CATEGORIES = ("activitypub", "admin", "misc", "notification", "organization", "package", "issue", "repository", "user")
# Gitea's order when it writes a scope back out (allAccessTokenScopes); write implies read.
_ORDER = ("public-only", *(f"{level}:{name}" for name in _CATEGORIES for level in ("write", "read")))


@dataclass
class OAuthApp:
    id: int
    owner: str  # the login of the user who registered it
    name: str
    client_id: str
    secret_hash: str  # Gitea keeps only a hash of the secret
    confidential: bool
    redirect_uris: list[str]
    skip_secondary_authorization: bool = False
    created: datetime = field(default_factory=lambda: datetime.now(UTC))

    def contains_redirect_uri(self, uri: str) -> bool:
        """Exact, ignoring case and one trailing slash; a public client's http loopback IP (not `localhost`) may
        take any port when registered without one (ContainsRedirectURI, RFC 8252 §7.3)."""
        if not self.confidential:
            loopback = _without_loopback_port(uri)
            if loopback is not None and self._listed(loopback):
                return True
        return self._listed(uri)

    def _listed(self, uri: str) -> bool:
        wanted = uri.lower().removesuffix("/")
        return any(known.lower().removesuffix("/") == wanted for known in self.redirect_uris)

    def secret_is(self, secret: str) -> bool:
        return hmac.compare_digest(self.secret_hash, _hash(secret))


@dataclass
class Grant:
    """A user's consent to an application, one per (user, application); its scope is fixed when first given."""

    id: int
    app_id: int
    login: str
    scope: str
    counter: int = 0  # Gitea inserts 0 (the column's default of 1 is never used); counts refreshes when enabled
    nonce: str = ""


@dataclass
class Code:
    code: str
    grant_id: int
    redirect_uri: str
    challenge: str
    method: str  # "S256", "plain" or "" (no PKCE)

    def verifies(self, verifier: str) -> bool:
        """ValidateCodeChallenge: no challenge lets any verifier through; an unknown method none."""
        if self.method == "S256":
            digest = hashlib.sha256(verifier.encode()).digest()
            return base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == self.challenge
        if self.method == "plain":
            return verifier == self.challenge
        return self.method == ""


@dataclass
class WebSession:
    """A browser's session (the `i_like_gitea` cookie): who signed in, and what the authorize page left in it."""

    id: str
    login: str | None = None
    data: dict[str, str] = field(default_factory=dict)


@dataclass
class Claims:
    grant_id: int
    kind: int
    counter: int
    expires: int
    issued: int


class OAuthProvider:
    """Everything the provider keeps; the store holds one. Callers hold the store's lock."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock  # tests move it to expire tokens
        self.key = secrets.token_bytes(32)
        self.apps: dict[str, OAuthApp] = {}  # by client_id
        self.grants: dict[int, Grant] = {}
        self.codes: dict[str, Code] = {}
        self.sessions: dict[str, WebSession] = {}
        self.passwords: dict[str, str] = {}  # lower-case login -> password, for the web sign-in
        self._ids = {"app": 0, "grant": 0}

    # -- applications and grants -------------------------------------------------------------------

    def create_app(self, owner: str, name: str, redirect_uris: list[str], confidential: bool) -> tuple[OAuthApp, str]:
        """A new application and its secret (`gto_…`), shown once, as Gitea does."""
        self._ids["app"] += 1
        secret = "gto_" + _base32(32)
        app = OAuthApp(self._ids["app"], owner, name, str(uuid.uuid4()), _hash(secret), confidential, redirect_uris)
        self.apps[app.client_id] = app
        return app, secret

    def update_app(self, app: OAuthApp, name: str, redirect_uris: list[str], confidential: bool) -> str:
        """Gitea's UpdateOauth2Application: the fields replaced, and a new secret made (the old one no longer
        works), shown once."""
        secret = "gto_" + _base32(32)
        app.name, app.redirect_uris, app.confidential, app.secret_hash = (
            name,
            redirect_uris,
            confidential,
            _hash(secret),
        )
        return secret

    def delete_app(self, app: OAuthApp) -> None:
        """Its grants go with it, and with them every token issued under them."""
        self.apps.pop(app.client_id, None)
        for grant in [grant for grant in self.grants.values() if grant.app_id == app.id]:
            self.revoke(grant)

    def app_by_id(self, app_id: int) -> OAuthApp | None:
        return next((app for app in self.apps.values() if app.id == app_id), None)

    def grant_of(self, app: OAuthApp, login: str) -> Grant | None:
        found = (g for g in self.grants.values() if g.app_id == app.id and g.login.lower() == login.lower())
        return next(found, None)

    def create_grant(self, app: OAuthApp, login: str, scope: str) -> Grant:
        self._ids["grant"] += 1
        grant = Grant(self._ids["grant"], app.id, login, scope)
        self.grants[grant.id] = grant
        return grant

    def revoke(self, grant: Grant) -> None:
        """What revoking the application in the user's settings does: the grant, its codes and tokens are gone."""
        self.grants.pop(grant.id, None)
        for code in [code for code in self.codes.values() if code.grant_id == grant.id]:
            self.codes.pop(code.code, None)

    def new_code(self, grant: Grant, redirect_uri: str, challenge: str, method: str) -> Code:
        code = Code("gta_" + _base32(32), grant.id, redirect_uri, challenge, method)
        self.codes[code.code] = code
        return code

    # -- sessions ------------------------------------------------------------------------------------

    def session(self, session_id: str | None) -> WebSession | None:
        return self.sessions.get(session_id or "")

    def new_session(self) -> WebSession:
        session = WebSession(secrets.token_hex(8))
        self.sessions[session.id] = session
        return session

    def password_matches(self, login: str, password: str) -> bool:
        known = self.passwords.get(login.lower())
        return known is not None and hmac.compare_digest(known, password)

    # -- tokens ------------------------------------------------------------------------------------------

    def token_response(self, grant: Grant, invalidate_refresh_tokens: bool, id_token: str = "") -> dict[str, Any]:
        """NewAccessTokenResponse: the counter moves first when used refresh tokens are refused."""
        if invalidate_refresh_tokens:
            grant.counter += 1
        now = int(self.clock())
        answer: dict[str, Any] = {
            "access_token": self.sign({"gnt": grant.id, "tt": ACCESS, "exp": now + ACCESS_SECONDS, "iat": now}),
            "token_type": "bearer",
            "expires_in": ACCESS_SECONDS,
            "refresh_token": self.sign(_refresh_claims(grant, now)),
        }
        if id_token:
            answer["id_token"] = id_token
        return answer

    def sign(self, claims: dict[str, Any], key: bytes | None = None) -> str:
        header = _segment({"alg": ALGORITHM, "typ": "JWT"})
        body = _segment(claims)
        signature = hmac.new(key or self.key, f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{_b64(signature)}"

    def parse(self, token: str) -> Claims | None:
        """ParseToken: the signature and algorithm, then the expiry and issue time (jwt's validation)."""
        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            header = json.loads(_unb64(parts[0]))
            payload = json.loads(_unb64(parts[1]))
            signature = _unb64(parts[2])
        except ValueError:
            return None
        expected = hmac.new(self.key, f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
        algorithm = header.get("alg") if isinstance(header, dict) else None
        signed = algorithm == ALGORITHM and hmac.compare_digest(signature, expected)
        if not signed or not isinstance(payload, dict):
            return None
        claims = Claims(*(_int(payload.get(name)) for name in ("gnt", "tt", "cnt", "exp", "iat")))
        now = self.clock()
        return claims if claims.expires > now and claims.issued <= now else None

    def access_token_grant(self, token: str) -> Grant | None:
        """GetOAuthAccessTokenScopeAndUserID: a valid access token (not a refresh token) of a grant that exists."""
        if "." not in token:
            return None
        claims = self.parse(token)
        grant = self.grants.get(claims.grant_id) if claims else None
        if claims is None or grant is None or claims.kind != ACCESS:
            return None
        return grant


def api_scopes(grant_scope: str) -> tuple[str, ...]:
    """GrantAdditionalScopes then Normalize: the OIDC scopes are dropped, the rest narrow the token (write implies
    read, Gitea's order); nothing left, or any scope Gitea does not know, means every scope."""
    asked = [scope for scope in grant_scope.split(" ") if scope and scope not in GENERAL_SCOPES]
    if not asked:
        return ("all",)
    if any(scope not in _ORDER and scope != "all" for scope in asked):
        return ("all",)  # Gitea 1.25 keeps 1.22's full access for a scope it cannot parse
    if "all" in asked:
        return ("all",) if "public-only" not in asked else ("public-only", "all")
    kept: list[str] = []
    for scope in _ORDER:
        if scope in asked and not (scope.startswith("read:") and f"write:{scope[5:]}" in asked):
            kept.append(scope)
    return tuple(kept)


def _refresh_claims(grant: Grant, now: int) -> dict[str, Any]:
    claims: dict[str, Any] = {"gnt": grant.id, "tt": REFRESH}
    if grant.counter:
        claims["cnt"] = grant.counter  # omitempty
    claims.update(exp=now + REFRESH_HOURS * 3600, iat=now)
    return claims


def _without_loopback_port(uri: str) -> str | None:
    """The URI without its port when it is http to a loopback IP with a port (Go's net.ParseIP: no host names)."""
    try:
        split = urlsplit(uri)
        port = split.port
        address = ipaddress.ip_address(split.hostname or "")
    except ValueError:
        return None
    if split.scheme != "http" or port is None or not address.is_loopback:
        return None
    # Go sets the host to the bare address, so IPv6 loses its brackets (`http://::1/cb`): a registered
    # `http://[::1]/cb` never matches with a port, only IPv4 loopback works (read from source).
    return urlunsplit((split.scheme, str(address), split.path, split.query, split.fragment))


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _base32(size: int) -> str:
    """Gitea's lower-case, unpadded base32 of random bytes."""
    return base64.b32encode(secrets.token_bytes(size)).decode().lower().rstrip("=")


def _segment(document: dict[str, Any]) -> str:
    return _b64(json.dumps(document, separators=(",", ":")).encode())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
