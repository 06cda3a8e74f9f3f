"""What the sign-in keeps, kept in what it hands out: every piece of state is a sealed value (Fernet: AES-128-CBC
and HMAC-SHA256, from `cryptography`) that only a replica holding GITEA_MCP_OAUTH_KEY can open or make.

Why sealed rather than stored: replicas share nothing but the key, so any replica can carry on any step, and a
flood of half-finished sign-ins leaves nothing behind. Why encrypted rather than a signed JWT:
codes and tokens carry Gitea's tokens, which must never be readable by whoever holds ours.

Every sealed value names its kind (`typ`), so one kind can never be passed off as another (a refresh token as an
access token, a code as a token), and its audience, this server's resource; its expiry is its own field,
checked against an injected clock. Rotation: the first key seals, every key opens (MultiFernet).
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

Kind = Literal["pending", "state", "code", "access", "refresh"]

# What the values we hand out begin with: a bearer that starts so is ours (never sent to Gitea as a token).
PREFIX: dict[Kind, str] = {
    "pending": "gmcp.p.",
    "state": "gmcp.s.",
    "code": "gmcp.k.",
    "access": "gmcp.a.",
    "refresh": "gmcp.r.",
}
OURS = "gmcp."


class Unsealable(Exception):
    """Not a value this server sealed for this use: forged, tampered with, of another kind or audience, or
    expired. `str(exc)` says which, in words safe to show (it never quotes the value)."""


@dataclass(frozen=True)
class Sealer:
    keys: list[bytes]  # 32 bytes each; the first seals
    audience: str  # <PUBLIC_URL>/mcp: the one resource our values are for
    clock: Callable[[], float] = time.time
    _fernet: MultiFernet = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.keys:
            raise ValueError("sign-in needs at least one key (GITEA_MCP_OAUTH_KEY)")
        fernets = [Fernet(base64.urlsafe_b64encode(key)) for key in self.keys]
        object.__setattr__(self, "_fernet", MultiFernet(fernets))

    def seal(self, kind: Kind, claims: dict[str, Any], ttl: float) -> str:
        body = {**claims, "typ": kind, "aud": self.audience, "exp": int(self.clock() + ttl)}
        sealed = self._fernet.encrypt_at_time(json.dumps(body, separators=(",", ":")).encode(), int(self.clock()))
        return PREFIX[kind] + sealed.decode("ascii")

    def open(self, kind: Kind, value: str) -> dict[str, Any]:
        """The claims of `value` if it is a live value of `kind` sealed here, else Unsealable."""
        what = _NAMES[kind]
        prefix = PREFIX[kind]
        if not value.startswith(prefix):
            raise Unsealable(f"this is not {_a(what)} issued by this server")
        try:
            plain = self._fernet.decrypt(value[len(prefix) :].encode("ascii"))  # expiry: our own `exp`, below
            claims = json.loads(plain)
        except (InvalidToken, UnicodeError, ValueError):
            raise Unsealable(f"this {what} was not issued by this server, or was altered") from None
        if not isinstance(claims, dict) or claims.get("typ") != kind:
            raise Unsealable(f"this is not {_a(what)} issued by this server")
        if claims.get("aud") != self.audience:
            raise Unsealable(f"this {what} was issued for another resource, not {self.audience}")
        expiry = claims.get("exp")
        if not isinstance(expiry, int) or expiry <= self.clock():
            raise Unsealable(f"this {what} has expired")
        return claims


def _a(what: str) -> str:
    return f"an {what}" if what[0] in "aeiou" else f"a {what}"


_NAMES: dict[Kind, str] = {
    "pending": "sign-in request",
    "state": "sign-in state",
    "code": "authorization code",
    "access": "access token",
    "refresh": "refresh token",
}
