"""The least an MCP client does to sign a user in, in plain requests: register (RFC 7591), send the browser to
/authorize with PKCE S256 and a state, take the code from the redirect, exchange it at /token; refresh later.
Every step names the replica it goes to, so a test can start a sign-in on one and finish it on another.

The browser leg is tests/signin/browser.sign_in (intercept=True: no listener behind the loopback redirect).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import requests

from gitea_mcp.server.signin.context import s256
from tests.e2e.test_http import rpc
from tests.signin.browser import sign_in


@dataclass(frozen=True)
class Started:
    client_id: str
    redirect: str
    verifier: str
    state: str


@dataclass(frozen=True)
class Grant:
    """What the browser brought back: a code of the server's, for this client and verifier."""

    started: Started
    code: str


def _session() -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    return session


def register(base: str, redirect: str) -> Started:
    metadata = {"client_name": "signin-live", "redirect_uris": [redirect], "token_endpoint_auth_method": "none"}
    answer = _session().post(f"{base}/register", json=metadata, timeout=30)
    assert answer.status_code == 201, f"/register answered {answer.status_code}: {answer.text[:300]}"
    return Started(answer.json()["client_id"], redirect, secrets.token_urlsafe(48), secrets.token_urlsafe(12))


def authorize_url(public: str, started: Started) -> str:
    query = {
        "response_type": "code", "client_id": started.client_id, "redirect_uri": started.redirect,
        "code_challenge": s256(started.verifier), "code_challenge_method": "S256", "state": started.state,
        "resource": f"{public}/mcp",
    }  # fmt: skip
    return f"{public}/authorize?{urlencode(query)}"


def code_from(redirected: str, started: Started, issuer: str) -> str:
    query = {name: values[0] for name, values in parse_qs(urlsplit(redirected).query).items()}
    assert query.get("state") == started.state, f"the redirect's state is not ours: {redirected[:200]}"
    assert query.get("iss") == issuer, f"the redirect names another issuer: {redirected[:200]}"
    assert "code" in query, f"the redirect carried no code: {redirected[:300]}"
    return query["code"]


def signed_in(register_at: str, public: str, login: str, password: str, redirect: str) -> Grant:
    """Register at `register_at`, then the user signs in and consents in the browser from `public`'s /authorize."""
    started = register(register_at, redirect)
    arrived = sign_in(authorize_url(public, started), login, password, expect_redirect_prefix=redirect, intercept=True)
    return Grant(started, code_from(arrived, started, public))


def token(base: str, form: dict[str, str]) -> requests.Response:
    return _session().post(f"{base}/token", data=form, timeout=30)


def exchange(base: str, grant: Grant) -> requests.Response:
    started = grant.started
    return token(base, {
        "grant_type": "authorization_code", "code": grant.code, "client_id": started.client_id,
        "redirect_uri": started.redirect, "code_verifier": started.verifier,
    })  # fmt: skip


def refresh(base: str, client_id: str, refresh_token: str) -> requests.Response:
    return token(base, {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id})


def tokens(answer: requests.Response) -> dict[str, Any]:
    assert answer.status_code == 200, f"/token answered {answer.status_code}: {answer.text[:300]}"
    body: dict[str, Any] = answer.json()
    assert body["token_type"] == "Bearer" and body["access_token"].startswith("gmcp.a."), body.keys()
    return body


def refused(answer: requests.Response) -> tuple[int, str, str]:
    """A refused token request: its status, `error` and `error_description`."""
    body = answer.json()
    return answer.status_code, str(body.get("error")), str(body.get("error_description"))


def call_tool(base: str, access_token: str, tool: str, arguments: dict[str, Any]) -> requests.Response:
    return rpc(base, "tools/call", {"name": tool, "arguments": arguments}, access_token)
