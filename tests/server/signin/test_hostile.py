"""The sign-in under attack, in process against the stand-in's Gitea: forged, replayed, misdirected and expired
values, another browser's cookie, another site's form, a flood of registrations. Each is refused with the OAuth
error a client can act on (JSON at /token, the client's redirect URI at /authorize once the client is trusted),
or with our own error page and no Location where the client or its redirect cannot be trusted; and a refusal
keeps nothing (no mark spent, no cookie set, the genuine request still goes through afterwards).
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from starlette.types import Message, Scope

from gitea_mcp.gitea.oauth import TOKEN_PATH
from gitea_mcp.server.signin import context
from gitea_mcp.server.signin.context import CODE_TTL, PENDING_TTL, sealer_for
from gitea_mcp.server.signin.marks import MemoryMarks
from gitea_mcp.standin import DEMO_ALL_TOKEN, DEMO_TOKEN, Fault, StandIn
from tests.contract.oauth_flow import pkce, query_of
from tests.server.signin.flow_driver import (
    CLIENT_REDIRECT,
    LOGIN,
    PUBLIC,
    GiteaApp,
    GiteaBrowser,
    Received,
    Server,
    Signer,
    Started,
    cookie_of,
    gitea_app,
    pending_of,
)


@pytest.fixture(autouse=True)
def no_faults_left(standin: StandIn) -> Iterator[None]:
    yield
    standin.clear_faults()


@pytest.fixture
def app(standin: StandIn) -> GiteaApp:
    return gitea_app(standin)


@pytest.fixture
def server(standin: StandIn, app: GiteaApp) -> Iterator[Server]:
    started = Server.start(standin, app)
    yield started
    started.close()


@pytest.fixture
def signer(server: Server, standin: StandIn) -> Signer:
    return Signer.new(server, standin)


def _spent(server: Server) -> dict[str, float]:
    """The marks of codes and refresh tokens spent (a sign-in's state, spent at its /callback, is not one)."""
    marks = server.signin.marks
    assert isinstance(marks, MemoryMarks)
    return {jti: until for jti, until in marks._spent.items() if not jti.startswith("state:")}


def _oauth_error(answer: Any, error: str, status: int = 400) -> str:
    """A /token or /register refusal: JSON with `error` and `error_description`, readable cross-origin, never
    cached. Its description."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["access-control-allow-origin"] == "*" and answer.headers["cache-control"] == "no-store"
    body = answer.json()
    assert set(body) == {"error", "error_description"} and body["error"] == error, body
    assert body["error_description"] and "gmcp." not in body["error_description"]
    return str(body["error_description"])


def _error_page(answer: Any, status: int) -> str:
    """Our own page: the sign-in stopped here, sent nowhere, nothing set in the browser."""
    assert answer.status_code == status, answer.text[:300]
    assert "location" not in answer.headers and "set-cookie" not in answer.headers
    assert answer.headers["content-type"].startswith("text/html") and "Sign-in stopped" in answer.text
    return str(answer.text)


def _forged(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(80)


def _tampered(value: str) -> str:
    """One character of the sealed part changed (a base64 letter for another)."""
    at = len(value) // 2
    return value[:at] + ("A" if value[at] != "A" else "B") + value[at + 1 :]


# -- /token: codes --------------------------------------------------------------------------------------------


def _other_client(signer: Signer) -> dict[str, str]:
    other = signer.server.register(client_name="Another client")
    assert other.status_code == 201
    return {"client_id": other.json()["client_id"]}


CODE_REFUSALS: list[Any] = [
    pytest.param(lambda signer, code: {"code": _forged("gmcp.k.")}, "invalid_grant", "not issued", id="forged-code"),
    pytest.param(lambda signer, code: {"code": _tampered(code)}, "invalid_grant", "altered", id="tampered-code"),
    pytest.param(lambda signer, code: _other_client(signer), "invalid_grant", "another client", id="other-client"),
    pytest.param(lambda signer, code: {"code_verifier": pkce()[0]}, "invalid_grant", "PKCE", id="wrong-verifier"),
    pytest.param(lambda signer, code: {"code_verifier": "short"}, "invalid_grant", "PKCE", id="malformed-verifier"),
    pytest.param(
        lambda signer, code: {"redirect_uri": "http://127.0.0.1:33418/elsewhere"},
        "invalid_grant",
        "redirect_uri",
        id="other-redirect",
    ),
    pytest.param(
        lambda signer, code: {"resource": "https://other.example/mcp"},
        "invalid_target",
        "tokens for http://127.0.0.1:8790/mcp only",
        id="resource-of-another-server",
    ),
    pytest.param(lambda signer, code: {"client_id": ""}, "invalid_request", "client_id", id="no-client-id"),
    pytest.param(
        lambda signer, code: {"grant_type": "password"}, "unsupported_grant_type", "grant_type", id="password-grant"
    ),
]


@pytest.mark.parametrize(("change", "error", "said"), CODE_REFUSALS)
def test_a_code_exchange_that_is_not_the_clients_own_is_refused_and_spends_nothing(
    signer: Signer, change: Callable[[Signer, str], dict[str, str]], error: str, said: str
) -> None:
    code, started = signer.code()
    refused = signer.exchange(code, started.verifier, **change(signer, code))
    assert said in _oauth_error(refused, error)
    assert _spent(signer.server) == {}
    assert signer.exchange(code, started.verifier).status_code == 200  # the genuine exchange still goes through


def test_a_code_is_exchanged_once(signer: Signer) -> None:
    code, started = signer.code()
    assert signer.exchange(code, started.verifier).status_code == 200
    marks = _spent(signer.server)
    assert "already used" in _oauth_error(signer.exchange(code, started.verifier), "invalid_grant")
    assert _spent(signer.server) == marks  # the replay marked nothing more


def test_an_expired_code_is_refused(signer: Signer) -> None:
    code, started = signer.code()
    signer.server.clock.advance(CODE_TTL + 1)
    assert "expired" in _oauth_error(signer.exchange(code, started.verifier), "invalid_grant")
    assert _spent(signer.server) == {}


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param("grant_type=authorization_code&code=é".encode(), "invalid_request", id="not-ascii"),
        pytest.param(b"grant_type=refresh_token&refresh_token=" + b"r" * 20_000, "invalid_request", id="oversized"),
        pytest.param(b"grant_type=x&grant_type=refresh_token", "invalid_request", id="field-twice"),
        pytest.param(b'{"grant_type": "authorization_code"}', "unsupported_grant_type", id="json"),
    ],
)
def test_a_token_request_that_is_no_form_is_refused_as_json(server: Server, body: bytes, error: str) -> None:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    _oauth_error(server.request("POST", "/token", content=body, headers=headers), error)


# -- /token: refresh ---------------------------------------------------------------------------------------------


REFRESH_REFUSALS: list[Any] = [
    pytest.param(lambda tokens: tokens["access_token"], "is not a refresh token", id="access-token-as-refresh"),
    pytest.param(lambda tokens: _forged("gmcp.r."), "not issued", id="forged"),
    pytest.param(lambda tokens: _tampered(tokens["refresh_token"]), "altered", id="tampered"),
]


@pytest.mark.parametrize(("sent", "said"), REFRESH_REFUSALS)
def test_a_refresh_with_what_is_no_refresh_token_of_ours_is_refused(
    signer: Signer, sent: Callable[[dict[str, Any]], str], said: str
) -> None:
    tokens = signer.tokens()
    spent = _spent(signer.server)
    assert said in _oauth_error(signer.refresh(sent(tokens)), "invalid_grant")
    assert _spent(signer.server) == spent
    assert signer.refresh(tokens["refresh_token"]).status_code == 200


def test_a_refresh_by_another_client_is_refused(signer: Signer) -> None:
    tokens = signer.tokens()
    refused = signer.refresh(tokens["refresh_token"], **_other_client(signer))
    assert "another client" in _oauth_error(refused, "invalid_grant")
    assert signer.refresh(tokens["refresh_token"]).status_code == 200


def test_a_refresh_for_another_resource_is_refused(signer: Signer) -> None:
    tokens = signer.tokens()
    refused = signer.refresh(tokens["refresh_token"], resource="https://other.example/mcp")
    _oauth_error(refused, "invalid_target")
    assert signer.refresh(tokens["refresh_token"]).status_code == 200


def _revoke(standin: StandIn, app: GiteaApp) -> None:
    """The user revokes the application in Gitea's settings: its grant, and every token under it, are gone."""
    oauth = standin.store.oauth
    with standin.store.lock:
        grant = oauth.grant_of(oauth.apps[app.client_id], LOGIN)
        assert grant is not None
        oauth.revoke(grant)


def _delete(standin: StandIn, app: GiteaApp) -> None:
    """The operator deletes the application in Gitea."""
    import requests

    deleted = requests.delete(
        f"{standin.url}/api/v1/user/applications/oauth2/{app.id}",
        headers={"Authorization": f"token {DEMO_ALL_TOKEN}"},
        timeout=10,
    )
    assert deleted.status_code == 204


@pytest.mark.parametrize("ended", [_revoke, _delete], ids=["grant-revoked", "app-deleted"])
def test_when_gitea_refuses_the_refresh_the_client_is_told_to_sign_in_again(
    signer: Signer, standin: StandIn, app: GiteaApp, ended: Callable[[StandIn, GiteaApp], None]
) -> None:
    tokens = signer.tokens()
    ended(standin, app)
    assert "sign in again" in _oauth_error(signer.refresh(tokens["refresh_token"]), "invalid_grant")


# -- /authorize --------------------------------------------------------------------------------------------------


REDIRECTED: list[Any] = [
    pytest.param({"code_challenge": None, "code_challenge_method": None}, "invalid_request", id="no-pkce"),
    pytest.param({"code_challenge_method": "plain"}, "invalid_request", id="plain-pkce"),
    pytest.param({"code_challenge_method": None}, "invalid_request", id="no-method"),
    pytest.param({"resource": "https://other.example/mcp"}, "invalid_target", id="resource-of-another-server"),
    pytest.param({"response_type": "token"}, "unsupported_response_type", id="implicit"),
    pytest.param({"scope": "write:admin"}, "invalid_scope", id="unknown-scope"),
]


@pytest.mark.parametrize(("changes", "error"), REDIRECTED)
def test_a_bad_request_from_a_known_client_goes_back_to_it_with_the_error(
    signer: Signer, changes: dict[str, str | None], error: str
) -> None:
    answer = signer.authorize(pkce()[1], "st-9", **changes)
    assert answer.status_code == 303 and "set-cookie" not in answer.headers
    location = answer.headers["location"]
    assert location.startswith(CLIENT_REDIRECT + "?")
    back = query_of(location)
    assert (back["error"], back["state"], back["iss"]) == (error, "st-9", PUBLIC) and back["error_description"]
    assert "code" not in back


@pytest.mark.parametrize(
    ("asked", "shown"),
    [
        ("read:issue", ["read:issue"]),  # covered by the write:issue offered: a client that only reads
        ("read:issue write:issue", ["write:issue"]),  # write implies read
        ("read:user", ["read:user"]),
        (None, ["write:issue", "read:user"]),  # none asked: all that is offered
    ],
)
def test_the_consent_page_lists_the_scopes_asked_without_those_implied(
    signer: Signer, asked: str | None, shown: list[str]
) -> None:
    answer = signer.authorize(pkce()[1], "st-9", scope=asked)
    assert answer.status_code == 200, answer.text
    assert re.findall(r"<li><code>([^<]+)</code></li>", answer.text) == shown


def test_a_client_that_asked_to_read_cannot_write_though_gitea_was_asked_for_all(signer: Signer) -> None:
    verifier, challenge = pkce()
    page = signer.authorize(challenge, "st-r", scope="read:issue")
    started = Started(signer.client_id, verifier, "st-r", cookie_of(page), pending_of(page))
    approved = signer.decide(started)
    # Gitea keeps one grant per user and application: it is always asked for everything the tools need.
    assert query_of(approved.headers["location"])["scope"] == "write:issue read:user"
    code, _ = signer.code(started)
    tokens = signer.exchange(code, verifier).json()
    assert tokens["scope"] == "read:issue"
    assert signer.server.issue_list(tokens["access_token"]).json()["result"]["isError"] is False
    create = {"name": "issue_create", "arguments": {"owner": "acme", "name": "widgets", "title": "Never filed"}}
    result = signer.server.mcp(tokens["access_token"], "tools/call", create).json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "This client was granted read:issue when it signed in, and issue_create needs write:issue and read:user: "
        "sign in again from the client, asking for write:issue and read:user."
    )


ERROR_PAGES: list[Any] = [
    pytest.param({"redirect_uri": "https://attacker.example/cb"}, "not one this client registered", id="unregistered"),
    *(
        pytest.param({"redirect_uri": uri}, "not one this client registered", id=name)
        for name, uri in [
            ("loopback-other-path", "http://127.0.0.1:40000/oauth/callback/../evil"),
            ("loopback-other-query", "http://127.0.0.1:40000/oauth/callback?next=https://attacker.example"),
            ("loopback-with-fragment", "http://127.0.0.1:40000/oauth/callback#x"),
            ("loopback-userinfo-host", "http://127.0.0.1:33418@attacker.example/oauth/callback"),
            ("loopback-with-user", "http://user@127.0.0.1:40000/oauth/callback"),
            ("loopback-https", "https://127.0.0.1:33418/oauth/callback"),
            ("loopback-bad-port", "http://127.0.0.1:99999/oauth/callback"),
            ("localhost-for-127", "http://localhost:33418/oauth/callback"),
        ]
    ),
    pytest.param({"client_id": _forged("gmcp.c.")}, "not one this server registered", id="forged-client"),
    pytest.param({"client_id": "5b2c3e9a-0f1d-4c7e"}, "not one this server registered", id="unknown-client"),
    pytest.param({"client_id": None}, "names no client_id", id="no-client"),
    pytest.param({"client_id": "gmcp.a.not-a-client"}, "not one this server registered", id="other-kind"),
]


@pytest.mark.parametrize(("changes", "said"), ERROR_PAGES)
def test_an_untrusted_client_or_redirect_gets_our_page_and_is_sent_nowhere(
    signer: Signer, changes: dict[str, str | None], said: str
) -> None:
    # Even a request that is wrong in other ways too (no PKCE) is not sent to a redirect URI not known good.
    answer = signer.authorize(pkce()[1], "st-9", code_challenge_method="plain", **changes)
    assert said in _error_page(answer, 400)


def test_a_client_id_altered_by_hand_gets_our_page(signer: Signer) -> None:
    # Not sealed, since anyone may register anything: altered, it is unreadable, or another registration that is
    # checked again (its redirect URIs, now garbled, or not the one asked for), and so sent nowhere.
    answer = signer.authorize(pkce()[1], "st-9", client_id=_tampered(signer.client_id))
    assert "This sign-in cannot go on" in _error_page(answer, 400)


# -- the consent form ----------------------------------------------------------------------------------------------


def test_two_sign_ins_under_way_in_one_browser_both_finish(signer: Signer) -> None:
    first = signer.start("first")
    verifier, challenge = pkce()
    page = signer.authorize(challenge, "second", cookie=first.cookie)
    both = cookie_of(page)  # the browser's cookie now names both sign-ins
    assert both.split(".") == [first.cookie, both.split(".")[1]]
    second = Started(signer.client_id, verifier, "second", both, pending_of(page))
    assert signer.code(dataclasses.replace(first, cookie=both))[0].startswith("gmcp.k.")
    assert signer.code(second)[0].startswith("gmcp.k.")


def test_the_consent_form_is_refused_without_this_browsers_cookie(signer: Signer) -> None:
    started, elsewhere = signer.start(), signer.start("other-browser")
    assert started.cookie != elsewhere.cookie
    assert "another browser" in _error_page(signer.decide(started, cookie=None), 403)
    assert "another browser" in _error_page(signer.decide(started, cookie=elsewhere.cookie), 403)
    assert signer.decide(started).status_code == 303  # this browser's own still goes on


@pytest.mark.parametrize("origin", ["https://attacker.example", "http://127.0.0.1:9999", "null"])
def test_the_consent_form_is_refused_from_another_site(signer: Signer, origin: str) -> None:
    started = signer.start()
    assert "another site" in _error_page(signer.decide(started, Origin=origin), 403)


def test_a_consent_form_posted_too_late_is_refused(signer: Signer) -> None:
    started = signer.start()
    signer.server.clock.advance(PENDING_TTL + 1)
    assert "expired" in _error_page(signer.decide(started), 400)


def test_gitea_answer_coming_too_late_is_refused(signer: Signer) -> None:
    started = signer.start()
    back = signer.to_callback(started)
    signer.server.clock.advance(PENDING_TTL + 1)
    assert "expired" in _error_page(signer.callback(back, started.cookie), 400)


def test_a_tampered_consent_form_is_refused(signer: Signer) -> None:
    started = signer.start()
    started = dataclasses.replace(started, pending=_tampered(started.pending))
    assert "altered" in _error_page(signer.decide(started), 400)


def test_deny_goes_back_to_the_client_with_access_denied(signer: Signer) -> None:
    started = signer.start("st-deny")
    denied = signer.decide(started, decision="deny")
    assert denied.status_code == 303
    back = query_of(denied.headers["location"])
    assert denied.headers["location"].startswith(CLIENT_REDIRECT + "?")
    assert (back["error"], back["state"], back["iss"]) == ("access_denied", "st-deny", PUBLIC) and "code" not in back


# -- /callback ---------------------------------------------------------------------------------------------------


def test_gitea_answer_is_refused_in_another_browser(signer: Signer) -> None:
    """A link to /callback carrying someone's Gitea code and state, opened in another browser (its own sign-in
    cookie, or none): refused before Gitea's code is spent, so the right browser still finishes."""
    started, elsewhere = signer.start(), signer.start("other-browser")
    back = signer.to_callback(started)
    assert "another browser" in _error_page(signer.callback(back, elsewhere.cookie), 403)
    assert "another browser" in _error_page(signer.server.request("GET", back.removeprefix(PUBLIC)), 403)
    finished = signer.callback(back, started.cookie)
    assert finished.status_code == 303 and query_of(finished.headers["location"])["code"].startswith("gmcp.k.")


def test_a_sign_in_cancelled_at_gitea_goes_back_to_the_client_with_access_denied(signer: Signer) -> None:
    started = signer.start("st-cancel")
    approved = signer.decide(started)
    gitea = signer.gitea
    assert gitea.get(approved.headers["location"]).status_code == 303  # sent to sign in
    consent = gitea.get(gitea.sign_in().headers["Location"])
    cancelled = gitea.consent(consent, granted="false")
    back = cancelled.headers["Location"]
    assert back.startswith(f"{PUBLIC}/callback?") and query_of(back)["error"] == "access_denied"
    answer = signer.callback(back, started.cookie)
    assert answer.status_code == 303 and answer.headers["location"].startswith(CLIENT_REDIRECT + "?")
    told = query_of(answer.headers["location"])
    assert (told["error"], told["state"]) == ("access_denied", "st-cancel") and "code" not in told


def test_gitea_answer_replayed_is_refused_and_gives_no_second_code(signer: Signer, standin: StandIn) -> None:
    """The /callback URL opened again with the cookie (a reload, or someone who has both): its state is spent, so
    it stops at our page, Gitea is not asked again, and the client gets no second code."""
    started = signer.start("st-again")
    back = signer.to_callback(started)
    assert signer.callback(back, started.cookie).status_code == 303
    with Received(standin) as received:
        again = signer.callback(back, started.cookie)
    assert "already finished" in _error_page(again, 400)
    assert received.requests == []


@pytest.mark.parametrize(
    "fault",
    [Fault("status", path_contains=TOKEN_PATH, status=502), Fault("drop", path_contains=TOKEN_PATH)],
    ids=["502", "dropped"],
)
def test_gitea_failing_at_the_callback_tells_the_client_to_try_later(
    signer: Signer, standin: StandIn, fault: Fault
) -> None:
    started = signer.start("st-down")
    back = signer.to_callback(started)
    standin.inject(fault)
    answer = signer.callback(back, started.cookie)
    told = query_of(answer.headers["location"])
    assert (told["error"], told["state"]) == ("temporarily_unavailable", "st-down") and "code" not in told


def test_gitea_failing_at_a_refresh_leaves_the_refresh_token_usable(signer: Signer, standin: StandIn) -> None:
    tokens = signer.tokens()
    spent = _spent(signer.server)
    standin.inject(Fault("status", path_contains=TOKEN_PATH, status=502))
    assert "try again" in _oauth_error(signer.refresh(tokens["refresh_token"]), "temporarily_unavailable", 503)
    assert _spent(signer.server) == spent
    assert signer.refresh(tokens["refresh_token"]).status_code == 200


def test_without_gitea_sign_in_page_the_consent_stops_at_our_page(signer: Signer, standin: StandIn) -> None:
    started = signer.start()
    standin.inject(Fault("status", path_contains="/.well-known/openid-configuration", status=404))
    assert "could not be found" in _error_page(signer.decide(started), 502)


@pytest.mark.parametrize(
    "state",
    [pytest.param(_tampered, id="tampered"), pytest.param(lambda s: _forged("gmcp.s."), id="forged")],
)
def test_a_callback_with_a_state_not_ours_gets_our_page(signer: Signer, state: Callable[[str], str]) -> None:
    started = signer.start()
    back = query_of(signer.to_callback(started))
    path = f"/callback?code={back['code']}&state={state(back['state'])}"
    assert "cannot be used" in _error_page(signer.server.request("GET", path, cookie=started.cookie), 400)


def test_the_consent_page_state_cannot_be_passed_off_as_gitea_state(signer: Signer) -> None:
    """Every sealed value names its kind: the consent page's own sealed request is no state for /callback."""
    started = signer.start()
    path = f"/callback?code=x&state={started.pending}"
    _error_page(signer.server.request("GET", path, cookie=started.cookie), 400)


# -- /mcp ----------------------------------------------------------------------------------------------------------


def _refused_bearer(server: Server, token: str) -> str:
    answer = server.issue_list(token)
    assert answer.status_code == 401, answer.text
    challenge = answer.headers["www-authenticate"]
    assert 'error="invalid_token"' in challenge
    assert f'resource_metadata="{PUBLIC}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert "gmcp." not in answer.text and "gmcp." not in challenge
    return str(answer.json()["error"])


BEARERS: list[Any] = [
    pytest.param(lambda tokens: _tampered(tokens["access_token"]), "altered", id="tampered"),
    pytest.param(lambda tokens: _forged("gmcp.a."), "not issued", id="forged"),
    pytest.param(lambda tokens: tokens["refresh_token"], "is not an access token", id="refresh-token-as-bearer"),
    pytest.param(lambda tokens: _forged("gmcp.k."), "is not an access token", id="code-as-bearer"),
]


@pytest.mark.parametrize(("bearer", "said"), BEARERS)
def test_a_bearer_that_is_not_our_access_token_is_refused(
    signer: Signer, bearer: Callable[[dict[str, Any]], str], said: str
) -> None:
    tokens = signer.tokens()
    assert said in _refused_bearer(signer.server, bearer(tokens))


def test_a_client_id_is_no_bearer(signer: Signer) -> None:
    assert "is not an access token" in _refused_bearer(signer.server, signer.client_id)


def test_an_access_token_of_another_server_with_the_same_key_is_refused(signer: Signer) -> None:
    """Two servers an operator runs with one key: a token of the one is for its own resource, not this one's."""
    tokens = signer.tokens()
    other = signer.server.settings.model_copy(update={"public_url": "http://127.0.0.1:8791"})
    theirs = sealer_for(other).seal("access", signer.server.signin.sealer.open("access", tokens["access_token"]), 600)
    assert "issued for another resource" in _refused_bearer(signer.server, theirs)


def test_an_expired_access_token_is_refused(signer: Signer) -> None:
    tokens = signer.tokens()
    assert signer.server.issue_list(tokens["access_token"]).json()["result"]["isError"] is False
    signer.server.clock.advance(tokens["expires_in"] + 1)
    assert "expired" in _refused_bearer(signer.server, tokens["access_token"])


def test_a_gitea_oauth_token_is_refused_even_one_gitea_accepts(signer: Signer, standin: StandIn) -> None:
    """The MCP authorization spec forbids passing a token through that was not issued for this server: a Gitea
    OAuth2 token of some other application (here: a live one of our own application, taken at Gitea) is refused
    here, though Gitea itself would take it."""
    signer.tokens()
    oauth = standin.store.oauth
    with standin.store.lock:
        app = next(app for app in oauth.apps.values() if app.client_id == signer.server.settings.oauth_client_id)
        grant = oauth.grant_of(app, LOGIN)
        assert grant is not None
        gitea_token = oauth.token_response(grant, False)["access_token"]
    assert standin.api.login_for(f"Bearer {gitea_token}") == LOGIN  # Gitea accepts it
    assert "Gitea OAuth2 token is not accepted" in _refused_bearer(signer.server, gitea_token)


def test_a_personal_access_token_still_works_with_sign_in_on(server: Server) -> None:
    listed = server.issue_list(DEMO_TOKEN)
    assert listed.status_code == 200 and listed.json()["result"]["isError"] is False


# -- /register -----------------------------------------------------------------------------------------------------


def _state_sizes(server: Server) -> dict[str, int]:
    """How many things each part of the SignIn holds: every container among their attributes, by name (and the
    sealers cached per key and clock)."""
    sizes: dict[str, int] = {"sealers": context._sealer.cache_info().currsize}
    for part in dataclasses.fields(server.signin):
        value = getattr(server.signin, part.name)
        for name, held in vars(value).items() if hasattr(value, "__dict__") else []:
            if isinstance(held, dict | list | set | tuple | frozenset):
                sizes[f"{part.name}.{name}"] = len(held)
    return sizes


def test_a_flood_of_registrations_keeps_nothing(server: Server) -> None:
    before = _state_sizes(server)
    assert "marks._spent" in before  # the walk reaches the one store the sign-in has
    answers = [server.register(client_name=f"flood {n}").status_code for n in range(500)]
    assert answers == [201] * 500
    assert _spent(server) == {} and _state_sizes(server) == before


REGISTRATION_REFUSALS: list[Any] = [
    pytest.param(b"{not json", "invalid_client_metadata", "not JSON", id="malformed-json"),
    pytest.param(b"", "invalid_client_metadata", "at most 8,000 bytes", id="empty"),
    pytest.param(
        json.dumps({"redirect_uris": [CLIENT_REDIRECT], "client_name": "x" * 9_000}).encode(),
        "invalid_client_metadata",
        "at most 8,000 bytes",
        id="oversized",
    ),
    pytest.param(b"[]", "invalid_client_metadata", "JSON object", id="not-an-object"),
    pytest.param(b'{"client_name": "no uris"}', "invalid_redirect_uri", "redirect_uris", id="no-redirects"),
    pytest.param(
        json.dumps({"redirect_uris": ["javascript:alert(1)"]}).encode(), "invalid_redirect_uri", "", id="javascript"
    ),
]


@pytest.mark.parametrize(("body", "error", "said"), REGISTRATION_REFUSALS)
def test_a_registration_that_is_not_client_metadata_is_refused(
    server: Server, body: bytes, error: str, said: str
) -> None:
    answer = server.request("POST", "/register", content=body, headers={"Content-Type": "application/json"})
    assert said in _oauth_error(answer, error)


@pytest.mark.parametrize("path", ["/register", "/token", "/authorize"])
def test_a_chunked_body_is_read_no_further_than_its_cap(server: Server, path: str) -> None:
    """No Content-Length (chunked): the endpoint stops reading once the body passes its cap, and refuses it.
    /register used to read the whole body before looking at its size: 2,000 chunks of 64 KB were 128 MB held."""
    read, status = anyio.run(_chunked, server, path)
    assert status == 400 and read == 1  # the first 64 KB chunk is past every cap already


async def _chunked(server: Server, path: str) -> tuple[int, int]:
    read = 0
    statuses: list[int] = []
    headers = [(b"host", b"127.0.0.1:8790"), (b"content-type", b"application/x-www-form-urlencoded")]
    scope: Scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": headers, "scheme": "http", "server": ("127.0.0.1", 8790), "client": ("127.0.0.1", 50000),
             "http_version": "1.1", "root_path": "", "asgi": {"version": "3.0"}}  # fmt: skip

    async def receive() -> Message:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": b"x" * 65_536, "more_body": read < 2_000}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await server.client.app(scope, receive, send)
    return read, statuses[0]


# -- Host ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/authorize"), ("POST", "/authorize"), ("GET", "/callback"), ("POST", "/token"), ("POST", "/register")],
)
def test_the_sign_in_endpoints_answer_only_to_allowed_hosts(server: Server, method: str, path: str) -> None:
    answer = server.request(method, path, headers={"Host": "attacker.example"})
    assert answer.status_code == 421 and "GITEA_MCP_ALLOWED_HOSTS" in answer.json()["error"]
    assert "location" not in answer.headers and "set-cookie" not in answer.headers


def test_a_loopback_redirect_may_use_any_port(signer: Signer) -> None:
    """The contrast to the table above (RFC 8252 §7.3): only the port of a loopback redirect URI may differ."""
    page = signer.authorize(pkce()[1], "st-port", redirect_uri="http://127.0.0.1:40000/oauth/callback")
    assert page.status_code == 200 and 'id="approve"' in page.text


SCRIPT = '<script>alert("x")</script>'


def test_a_client_name_is_shown_escaped_on_the_consent_page(server: Server, standin: StandIn) -> None:
    registered = server.register(client_name=f"Evil {SCRIPT}")
    assert registered.status_code == 201
    signer = Signer(server, GiteaBrowser(standin), registered.json()["client_id"])
    page = signer.authorize(pkce()[1], "st-xss")
    assert page.status_code == 200 and "Evil &lt;script&gt;" in page.text and SCRIPT not in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]


def test_a_redirect_uri_is_shown_escaped_on_the_error_page(signer: Signer) -> None:
    answer = signer.authorize(pkce()[1], "st-xss", redirect_uri=f"https://attacker.example/{SCRIPT}")
    assert SCRIPT not in _error_page(answer, 400) and "&lt;script&gt;" in answer.text
