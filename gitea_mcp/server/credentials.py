"""Who a request over HTTP acts as: exactly one credential, read the one way the gate and the tools both read it
(`Authorization: Bearer <token>`, or the operator's secret in `X-Gitea-MCP-Secret`), and our own access tokens
opened once. Below both the HTTP gate (server/http.py) and the MCP app (server/app.py), so neither imports the
other for it; the sign-in is imported only when it is on.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitea_mcp.settings import Settings, placeholder_problem

if TYPE_CHECKING:
    from gitea_mcp.server.signin.seal import Sealer


SECRET_HEADER = "x-gitea-mcp-secret"
# One scheme (in any case), one space, a token of visible ASCII. The case is ignored in the scheme alone: over the
# token too, [!-~] took in U+212A and U+017F (their folds are K and s) and cost 30 µs a 1 KB token (ours are).
_BEARER = re.compile(r"(?i:bearer|token) ([!-~]+)")
_ONE = "send exactly one credential: 'Authorization: Bearer <your Gitea token>'"


@dataclass(frozen=True)
class Credential:
    token: str | None  # the Gitea token the request acts with
    refused: str | None = None  # why the request is refused (401), in words for the caller
    bearer: bool = False  # the caller's own (a Gitea token, or one of ours holding one), not the server's
    signed_in: str | None = None  # the Gitea login of a token our sign-in issued
    granted: tuple[str, ...] | None = None  # the scopes its client was granted (None: not ours)
    invalid_token: bool = False  # a bearer that is not (or no longer) good: the challenge says so (RFC 6750 §3.1)
    sign_in: str | None = None  # the sign-in a token of ours belongs to (`fam`): a refresh-token replay ends it


# A JWT: what Gitea's OAuth2 access tokens are (a personal access token is 40 hex digits).
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


Clock = Callable[[], float]


def credential(headers: Iterable[tuple[str, str]], settings: Settings, clock: Clock = time.time) -> Credential:
    """The one way `Authorization` and the operator's secret header are read, by the gate and by the tools alike;
    `clock` says when our access tokens expire (tests move it)."""
    pairs = [(name.lower(), value) for name, value in headers]
    auths = [value for name, value in pairs if name == "authorization"]
    secrets = [value for name, value in pairs if name == SECRET_HEADER]
    # The secret's header is named only where the operator set a secret: elsewhere it is no way in (issue 34).
    secret = settings.http_secret
    if secrets and secret is None:
        return Credential(None, f"{_ONE}; this server takes no operator secret")
    if len(auths) + len(secrets) != 1:
        return Credential(None, _ONE if secret is None else f"{_ONE}, or the operator's secret in X-Gitea-MCP-Secret")
    if secrets and secret is not None:
        if not hmac.compare_digest(secrets[0].strip().encode(), secret.get_secret_value().encode()):
            return Credential(None, "wrong operator secret (X-Gitea-MCP-Secret)")
        return Credential(settings.token_value())
    found = _BEARER.fullmatch(auths[0].strip())
    if found is None:
        return Credential(None, f"malformed Authorization header: {_ONE}")
    token = found.group(1)
    placeholder = placeholder_problem("the token in the Authorization header", token)
    if placeholder is not None:  # never asked of Gitea: its 401 would blame the token, not the client's config
        return Credential(None, placeholder, invalid_token=True)
    if settings.signin:
        return _signed_in(token, settings, clock)
    return Credential(token, bearer=True)


def _signed_in(token: str, settings: Settings, clock: Clock) -> Credential:
    """With sign-in on: one of our access tokens (the Gitea token sealed inside is what acts), a personal access
    token as before, and never a Gitea OAuth token issued to some other application (the MCP authorization spec
    forbids passing through tokens not issued for this server)."""
    # why: the sign-in only where it is on (7 ms of imports; never on stdio: tests/cli/test_serve_imports.py)
    from gitea_mcp.server.signin.context import sealer_for
    from gitea_mcp.server.signin.seal import OURS, Unsealable

    if token.startswith(OURS):
        try:
            return _OPENED.credential(sealer_for(settings, clock), token)
        except Unsealable as exc:
            return Credential(None, f"{exc}: refresh it, or sign in again", invalid_token=True)
    if _JWT.fullmatch(token):
        return Credential(
            None,
            "a Gitea OAuth2 token is not accepted here: sign in through this server (your MCP client does it when "
            "given the URL), or send a personal access token",
            invalid_token=True,
        )
    return Credential(token, bearer=True)


class Opened:
    """Access tokens of ours already opened, by their SHA-256 (never the token): one request reads its credential
    twice (the gate once, the tools once: they see only the headers, through the SDK), and a Fernet open of a 1 KB
    token costs some 35 µs. The expiry is checked against the clock on every read; a token opened by another sealer
    (other keys) is opened afresh. What is kept is the credential (the Gitea token inside), as the request itself
    holds it, never our token."""

    def __init__(self, kept: int = 1_024) -> None:
        self.kept = kept
        self._opened: OrderedDict[bytes, tuple[Sealer, int, Credential]] = OrderedDict()
        self._lock = threading.Lock()  # the gate reads on the event loop, the tools in worker threads

    def credential(self, sealer: Sealer, token: str) -> Credential:
        key = hashlib.sha256(token.encode()).digest()
        with self._lock:
            found = self._opened.get(key)
            if found is not None and found[0] is sealer and found[1] > sealer.clock():
                self._opened.move_to_end(key)
                return found[2]
            self._opened.pop(key, None)
        claims = sealer.open("access", token)  # Unsealable: forged, altered, expired (said in its own words)
        granted = tuple(str(scope) for scope in claims.get("scopes", ()))
        family = claims.get("fam")
        said = Credential(
            str(claims["ga"]),
            bearer=True,
            signed_in=str(claims["sub"]),
            granted=granted,
            sign_in=family if isinstance(family, str) else None,
        )
        with self._lock:
            self._opened[key] = (sealer, claims["exp"], said)
            while len(self._opened) > self.kept:
                self._opened.popitem(last=False)
        return said


_OPENED = Opened()
