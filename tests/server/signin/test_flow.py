"""The whole sign-in, step by step, in process over plain HTTP: an MCP client registers, the user approves on our
consent page, signs in and consents at the stand-in's Gitea, the client exchanges our code and calls a tool with
our token, which reaches Gitea as the Gitea token sealed inside it and never as ours; then a refresh, and the old
refresh token replayed. Each answer is asserted where it comes (tests/server/signin/flow_driver.py drives it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from gitea_mcp.server.signin.context import COOKIE, REFRESH_GRACE
from gitea_mcp.standin import StandIn
from tests.contract.oauth_flow import claims_of, pkce, query_of
from tests.server.signin.flow_driver import (
    CLIENT_REDIRECT,
    LOGIN,
    PUBLIC,
    RESOURCE,
    GiteaBrowser,
    Received,
    Server,
    cookie_of,
    gitea_app,
    pending_of,
)
from tests.support.results import rows_of


@pytest.fixture
def server(standin: StandIn) -> Iterator[Server]:
    started = Server.start(standin, gitea_app(standin))
    yield started
    started.close()


@pytest.fixture
def received(standin: StandIn) -> Iterator[Received]:
    with Received(standin) as recording:
        yield recording


def test_a_client_signs_in_through_gitea_and_calls_a_tool_with_our_token(
    server: Server, standin: StandIn, received: Received
) -> None:
    # 1. The client registers (RFC 7591): its metadata sealed into the client ID.
    registered = server.register()
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]
    assert client_id.startswith("gmcp.c.") and registered.json()["redirect_uris"] == [CLIENT_REDIRECT]

    # 2. The browser opens /authorize: our consent page, bound to this browser by an HttpOnly cookie.
    verifier, challenge = pkce()
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CLIENT_REDIRECT, "state": "s-123",
             "code_challenge": challenge, "code_challenge_method": "S256", "resource": RESOURCE}  # fmt: skip
    page = server.request("GET", "/authorize", params=query)
    assert page.status_code == 200 and 'id="approve"' in page.text, page.headers.get("location")
    set_cookie = page.headers["set-cookie"]
    assert set_cookie.startswith(f"{COOKIE}=") and "HttpOnly" in set_cookie and "SameSite=lax" in set_cookie
    cookie, pending = cookie_of(page), pending_of(page)

    # 3. Approve, with the cookie: 303 to Gitea's authorize page with our own client ID and PKCE.
    form = {"pending": pending, "decision": "approve"}
    approved = server.request("POST", "/authorize", cookie=cookie, data=form, headers={"Origin": PUBLIC})
    assert approved.status_code == 303, approved.text
    to_gitea = approved.headers["location"]
    assert to_gitea.startswith(f"{standin.url}/login/oauth/authorize?")
    asked = query_of(to_gitea)
    assert asked["client_id"] == server.settings.oauth_client_id and asked["redirect_uri"] == f"{PUBLIC}/callback"
    # Ours, not the client's: `plain`, the one Gitea 1.25.4 keeps for a code from its consent page.
    assert asked["code_challenge_method"] == "plain" and asked["code_challenge"] != challenge
    assert {"read:user", "write:issue"} <= set(asked["scope"].split())
    assert asked["state"].startswith("gmcp.s.")

    # 4. At Gitea: sent to sign in, back to the authorize page, consent, and Gitea's redirect to our /callback.
    gitea = GiteaBrowser(standin)
    first = gitea.get(to_gitea)
    assert first.status_code == 303 and urlsplit(first.headers["Location"]).path == "/user/login"
    signed = gitea.sign_in()
    assert signed.status_code == 303
    consent = gitea.get(signed.headers["Location"])
    assert consent.status_code == 200 and "Authorize Application" in consent.text
    granted = gitea.consent(consent)
    assert granted.status_code in (302, 303)
    back = granted.headers["Location"]
    assert back.startswith(f"{PUBLIC}/callback?") and query_of(back)["state"] == asked["state"]
    assert "code" in query_of(back)

    # 5. /callback, with the same browser's cookie: 303 to the client's redirect URI with our code.
    split = urlsplit(back)
    done = server.request("GET", f"{split.path}?{split.query}", cookie=cookie)
    assert done.status_code == 303, done.text
    location = done.headers["location"]
    assert location.startswith(CLIENT_REDIRECT + "?")
    handed = query_of(location)
    assert handed["code"].startswith("gmcp.k.") and handed["state"] == "s-123" and handed["iss"] == PUBLIC
    assert f"{COOKIE}=" in done.headers["set-cookie"] and "Max-Age=0" in done.headers["set-cookie"]  # spent

    # 6. The client exchanges the code (form-encoded): our tokens, never cached.
    exchanged = server.token(grant_type="authorization_code", code=handed["code"], code_verifier=verifier,
                             client_id=client_id, redirect_uri=CLIENT_REDIRECT, resource=RESOURCE)  # fmt: skip
    assert exchanged.status_code == 200, exchanged.text
    assert exchanged.headers["cache-control"] == "no-store"
    tokens = exchanged.json()
    assert tokens["access_token"].startswith("gmcp.a.") and tokens["refresh_token"].startswith("gmcp.r.")
    assert tokens["token_type"] == "Bearer" and isinstance(tokens["expires_in"], int) and tokens["expires_in"] > 0
    assert tokens["scope"] == "write:issue read:user"  # no scope asked: all this server offers

    # 7. MCP with our token: initialize, then issue_list, acting at Gitea as the user who signed in.
    received.requests.clear()
    initialized = server.mcp(tokens["access_token"], "initialize", _INITIALIZE)
    assert initialized.status_code == 200 and initialized.json()["result"]["serverInfo"]["name"]
    listed = server.issue_list(tokens["access_token"])
    assert listed.status_code == 200, listed.text
    result = listed.json()["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["total"] > 0 and rows_of(result["structuredContent"])
    _gitea_saw_its_own_token(received, standin, tokens["access_token"])

    # 8. A refresh: new tokens that work; the refresh token used is refused when replayed.
    refreshed = server.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=client_id)
    assert refreshed.status_code == 200, refreshed.text
    again = refreshed.json()
    assert again["access_token"].startswith("gmcp.a.") and again["access_token"] != tokens["access_token"]
    assert again["refresh_token"].startswith("gmcp.r.") and again["refresh_token"] != tokens["refresh_token"]
    assert server.issue_list(again["access_token"]).json()["result"]["isError"] is False
    server.clock.advance(REFRESH_GRACE + 1)  # within it, the same refresh is taken for its client's retry
    replayed = server.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=client_id)
    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
    assert "already used" in replayed.json()["error_description"]
    # A replay means a copy is about: the whole sign-in ends (RFC 9700 §4.14.2), its newest refresh token too.
    newest = server.token(grant_type="refresh_token", refresh_token=again["refresh_token"], client_id=client_id)
    assert newest.status_code == 400 and newest.json()["error"] == "invalid_grant"
    assert "ended" in newest.json()["error_description"] and "sign in again" in newest.json()["error_description"]
    assert server.issue_list(again["access_token"]).status_code == 401  # and its access tokens with it


_INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "flow-test", "version": "1"},
}


def _gitea_saw_its_own_token(received: Received, standin: StandIn, ours: str) -> None:
    """Every API request the tool made carried a Gitea OAuth token of the signed-in user; ours reached Gitea in
    no header, query or body."""
    api = [request for request in received.requests if request.raw_path.startswith("/api/v1/")]
    assert api, "the tool made no request to Gitea"
    for request in api:
        assert request.authorization is not None
        scheme, _, token = request.authorization.partition(" ")
        assert scheme.lower() in ("token", "bearer") and not token.startswith("gmcp.")
        assert claims_of(token)["tt"] == 0  # a Gitea access token (the stand-in's JWT), not a refresh token
        assert standin.api.login_for(request.authorization) == LOGIN
    assert ours not in received.text() and "gmcp." not in received.text()
    assert json.dumps(ours) not in received.text()
