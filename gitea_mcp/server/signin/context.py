"""What every sign-in step shares: the settings, the sealer, the clients, the spent marks and Gitea's side.
Built once per process from the settings; holds no per-user state."""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.oauth import GiteaOAuth
from gitea_mcp.server import discovery
from gitea_mcp.server.signin.clients import Clients
from gitea_mcp.server.signin.documents import Documents, fetcher
from gitea_mcp.server.signin.marks import ENDED, Marks, MemoryMarks, RedisMarks, Unreachable
from gitea_mcp.server.signin.seal import Sealer
from gitea_mcp.settings import ConfigError, Settings

log = logging.getLogger("gitea_mcp.signin")

CALLBACK = "/callback"
PENDING_TTL = 600  # seconds from the consent page to its Approve: a person reading it, perhaps slowly
STATE_TTL = 300  # seconds from Approve to Gitea's answer at /callback: signing in at Gitea (a second factor too)
CODE_TTL = 120  # seconds a code of ours lives (RFC 6749 §4.1.2: short; clients exchange it at once)
REFRESH_TTL = 30 * 24 * 3600  # Gitea's own refresh tokens live 730 hours by default
REFRESH_GRACE = 30  # seconds a used refresh token's client may retry it (a lost answer) and get that answer again
COOKIE = "gmcp_signin"
FORM_BYTES = 16_384  # a token request or a consent form is well under 4 KB


@dataclass(frozen=True)
class SignIn:
    settings: Settings
    sealer: Sealer
    clients: Clients
    marks: Marks
    gitea: GiteaOAuth
    client: GiteaClient  # to ask Gitea who signed in (with the new token)
    clock: Callable[[], float] = time.time

    @property
    def origin(self) -> str:
        return self.settings.public_url or ""

    @property
    def secure(self) -> bool:
        return self.origin.startswith("https://")

    def scopes_offered(self) -> list[str]:
        """The Gitea scopes a client may ask for (the tools served need them): discovery's scopes_supported."""
        return discovery.scopes(self.settings)

    async def ended(self, family: str) -> bool | None:
        """Whether the sign-in `family` was ended by a refresh-token replay; None when the shared store did not
        answer. Asked by the gate for every request bearing one of our access tokens."""
        try:
            if isinstance(self.marks, MemoryMarks):  # a dict look-up: no thread for it
                return self.marks.spent(ENDED + family)
            return await anyio.to_thread.run_sync(self.marks.spent, ENDED + family)
        except Unreachable:
            return None


def sealer_for(settings: Settings, clock: Callable[[], float] = time.time) -> Sealer:
    return _sealer(tuple(settings.signin_keys()), f"{settings.public_url}{discovery.MCP_PATH}", clock)


@functools.lru_cache(maxsize=8)
def _sealer(keys: tuple[bytes, ...], audience: str, clock: Callable[[], float]) -> Sealer:
    return Sealer(list(keys), audience, clock)


def build(settings: Settings, client: GiteaClient, clock: Callable[[], float] = time.time) -> SignIn:
    trial = (settings.public_url or "").startswith("http://")
    secret = settings.oauth_client_secret.get_secret_value() if settings.oauth_client_secret else None
    gitea = GiteaOAuth(client, settings.oauth_client_id or "", secret, f"{settings.public_url}{CALLBACK}")
    if log.getEffectiveLevel() == logging.WARNING:  # the default: the one line per sign-in is still said
        log.setLevel(logging.INFO)
    sealer = sealer_for(settings, clock)
    clients = Clients(Documents(fetcher(trial), trial) if settings.client_metadata_documents else None)
    return SignIn(settings, sealer, clients, marks(settings, clock), gitea, client, clock)


def marks(settings: Settings, clock: Callable[[], float]) -> Marks:
    if settings.redis_url is None:
        return MemoryMarks(clock)
    from gitea_mcp.toolkit.shared_flight import Unusable, store  # why: redis, an optional dependency, for Redis only

    try:  # the same client, and the same sentences for a missing package or an unusable URL, as the write guard
        return RedisMarks(store(settings.redis_url.get_secret_value()), clock)
    except Unusable as exc:
        raise ConfigError(str(exc)) from None


async def body_of(request: Request, limit: int) -> bytes | None:
    """The request's body, read as it comes; None past `limit` bytes (chunked bodies declare no length)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body


async def form_of(request: Request) -> dict[str, str] | None:
    """An x-www-form-urlencoded body as fields given once each; None when too long, not ASCII or a field repeats
    (RFC 6749 §3.1: parameters must not be included more than once)."""
    body = await body_of(request, FORM_BYTES)
    if body is None or not body.isascii():
        return None
    fields = parse_qs(body.decode("ascii"), keep_blank_values=True)
    if any(len(values) != 1 for values in fields.values()):
        return None
    return {name: values[0] for name, values in fields.items()}


def pkce_pair(method: str = "S256") -> tuple[str, str]:
    """A verifier (64 characters, RFC 7636 §4.1) and its challenge by `method`; `plain`'s challenge is the
    verifier itself (all some forges' consent pages keep: gitea/oauth.consent_pkce)."""
    verifier = secrets.token_urlsafe(48)
    return verifier, verifier if method == "plain" else s256(verifier)


def client_key(client_id: str) -> str:
    """What our values carry to name their client: a digest, since a registered client ID is itself a sealed value
    of several hundred bytes, and every access token would carry it on every request."""
    return s256(client_id)[:32]


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()


def back_to(redirect_uri: str, params: dict[str, str | None]) -> Response:
    """The client's redirect URI with `params` added to its query (never replacing the ones it has)."""
    query = urlencode({name: value for name, value in params.items() if value is not None})
    joiner = "" if redirect_uri.endswith(("?", "&")) else "&" if "?" in redirect_uri else "?"
    return RedirectResponse(redirect_uri + joiner + query, status_code=303, headers={"Cache-Control": "no-store"})
