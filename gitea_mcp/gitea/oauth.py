"""Gitea as the OAuth2 provider behind this server's sign-in (issue 24): where the browser is sent, and the two
token requests the server makes on the user's behalf (a code exchanged, a refresh). Gitea's tokens go no further
than the caller of this module: the sign-in seals them inside its own.

Each request is sent once (a code or a used refresh token may not survive a retry). Gitea's refusals come back
as OAuthRefused with Gitea's `error` code; anything else that is not a token is the GiteaError it is.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from gitea_mcp.gitea.client import GiteaClient, Unreadable
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.release import ServerInfo

TOKEN_PATH = "/login/oauth/access_token"
AUTHORIZE_PATH = "/login/oauth/authorize"
OPENID = "/.well-known/openid-configuration"
VERSION = "/api/v1/version"

Method = Literal["S256", "plain"]


def consent_pkce(server: ServerInfo) -> Method:
    """The PKCE method whose challenge the forge keeps for a code from its consent page, so that the code is spent
    only with the verifier of the sign-in it was issued to (docs/server-behaviour.md).

    - Gitea before 1.25.5 and Forgejo 12 keep only a `plain` challenge in the browser's session for the consent page
      (routers/web/auth/oauth2_provider.go: the `S256` case is empty); an S256 code from it takes any verifier
      (measured on Gitea 1.25.4, tests/contract/test_oauth.py; Forgejo 12.0.4 read from its source). Gitea 1.25.5
      keeps S256 too (GHSA-m5ch-ppfx-xv3v, CVE-2026-26247), so it gets S256.
    - Gitea 1.22 wrote a `plain` challenge over the method's name, so no verifier passes a plain code from its
      consent page (measured on 1.22.6; fixed in 1.23.6, go-gitea/gitea#33956): there S256, which that page does
      not check, is the one that works at all. Forgejo before 12 is not known here, and gets the same.
    """
    if server.flavor == "Gitea":
        if server.number >= (1, 25, 5):
            return "S256"
        return "plain" if server.number >= (1, 23, 6) else "S256"
    return "plain" if server.number >= (12,) else "S256"


class OAuthRefused(GiteaError):
    """Gitea's token endpoint said no (`error` is its OAuth error code: invalid_grant for a revoked grant or a used
    code, invalid_client for a wrong client secret, unauthorized_client …)."""

    def __init__(self, error: str, description: str, status: int) -> None:
        super().__init__(f"Gitea refused the sign-in ({error}): {description}", status=status)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class GiteaTokens:
    access: str
    refresh: str
    expires_in: int  # seconds the access token lives (Gitea's ACCESS_TOKEN_EXPIRATION_TIME, 3600 by default)


@dataclass
class GiteaOAuth:
    client: GiteaClient  # its URL and TLS settings; no token is sent with these requests
    client_id: str
    client_secret: str | None  # a confidential application's; None for a public one
    redirect_uri: str  # <PUBLIC_URL>/callback, registered in the application
    _authorize: str | None = field(default=None, init=False)
    _method: Method | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def authorize_endpoint(self) -> str:
        """Gitea's sign-in page as the browser reaches it: the OpenID document names it under Gitea's ROOT_URL,
        which may differ from GITEA_URL (a server reaching Gitea inside a cluster); asked once."""
        with self._lock:
            if self._authorize is None:
                status, document = self.client.site("GET", OPENID)
                endpoint = document.get("authorization_endpoint") if isinstance(document, dict) else None
                if status != 200 or not isinstance(endpoint, str) or not endpoint.startswith(("https://", "http://")):
                    raise Unreadable(
                        f"Gitea at {self.client.url} answered {OPENID} with {status}, not its OAuth2 provider's "
                        "document: set [oauth2] ENABLED = true in Gitea's app.ini",
                        status=status,
                        what="no OpenID document",
                    )
                self._authorize = endpoint
            return self._authorize

    def pkce_method(self) -> Method:
        """`consent_pkce` for the release at GITEA_URL, read once (`/version` needs no token). An answer that names
        no version counts as the newest Gitea verified, as everywhere else (gitea/release.py)."""
        with self._lock:
            if self._method is None:
                status, document = self.client.site("GET", VERSION)
                raw = document.get("version") if status == 200 and isinstance(document, dict) else None
                self._method = consent_pkce(ServerInfo.parse(raw if isinstance(raw, str) else ""))
            return self._method

    def exchange(self, code: str, verifier: str) -> GiteaTokens:
        form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
        return self._token({**form, "redirect_uri": self.redirect_uri})

    def refresh(self, refresh_token: str) -> GiteaTokens:
        return self._token({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def _token(self, form: dict[str, str]) -> GiteaTokens:
        form = {**form, "client_id": self.client_id}
        if self.client_secret is not None:
            form["client_secret"] = self.client_secret
        status, answer = self.client.site("POST", TOKEN_PATH, form)
        if status == 200 and isinstance(answer, dict):
            return _tokens(answer, status)
        if 400 <= status < 500 and isinstance(answer, dict) and isinstance(answer.get("error"), str):
            return _refused(answer, status)
        raise Unreadable(
            f"Gitea answered {TOKEN_PATH} with {status} and no token; a proxy in front of Gitea may be failing",
            status=status,
            what="no token",
        )


def _tokens(answer: dict[str, Any], status: int) -> GiteaTokens:
    access, refresh, expires = answer.get("access_token"), answer.get("refresh_token"), answer.get("expires_in")
    if not isinstance(access, str) or not isinstance(refresh, str) or not isinstance(expires, int):
        raise Unreadable(f"Gitea's token answer lacks a token ({TOKEN_PATH})", status=status, what="no token")
    return GiteaTokens(access, refresh, expires)


def _refused(answer: dict[str, Any], status: int) -> GiteaTokens:
    description = answer.get("error_description")
    # Gitea's words are shown to no one but the operator's log and our own error page: cut, never a token.
    said = description[:200] if isinstance(description, str) else ""
    raise OAuthRefused(str(answer["error"])[:64], said, status)
