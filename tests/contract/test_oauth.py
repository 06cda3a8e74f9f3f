"""Gitea's OAuth2 provider: what a client of it sees, probe by probe, on a live server and on the stand-in.

Measured on live Gitea 1.25.4 and 1.22.6 with `[oauth2] ENABLED=true` and the other [oauth2] settings at their
defaults (RS256 keys, INVALIDATE_REFRESH_TOKENS=false). What differs by release is stated per release (`old_gitea`:
1.22; which release between 1.22.6 and 1.25.4 changed each is not known); Forgejo, not running here, is held to
what 1.25.4 does unless said otherwise.
The probes seed their own user and applications (through the API), not the contract lab; the sign-in and the
consent are driven over plain HTTP (tests/contract/oauth_flow.py), so no browser is needed.

Live: set GITEA_LIVE_OAUTH_INVALIDATE_REFRESH_TOKENS=true for a server configured so (default false).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from tests.contract.lab import PASSWORD, LiveSeeder, StandInSeeder, new_run
from tests.contract.oauth_flow import App, Browser, bearer, claims_of, pkce, query_of, token
from tests.contract.target import Http, Target

PUBLIC_URIS = ["http://127.0.0.1/callback", "https://client.example/cb", "http://192.0.2.10/cb"]
CONFIDENTIAL_URIS = ["http://127.0.0.1:9999/cb"]
NOT_AUTHORIZED = {"error": "unauthorized_client", "error_description": "client is not authorized"}
FAILED_PKCE = {"error": "unauthorized_client", "error_description": "failed PKCE code challenge"}


def old_gitea(target: Target) -> bool:
    """Gitea 1.22, whose provider answers otherwise than 1.25 in the probes that say so (both measured)."""
    return target.version.gitea(high=(1, 22))


@dataclass(frozen=True)
class Account:
    """The probes' own user: signs in on the web form, owns a repository and the applications."""

    url: str
    login: str
    token: str  # the user's personal token, every scope: registers applications
    user_id: int
    repo: str
    invalidate_refresh_tokens: bool


def oauth_enabled(url: str) -> bool:
    """Gitea with [oauth2] ENABLED=false serves no discovery document (404); Forgejo serves it whatever the setting
    and refuses the provider's routes instead (403 at /login/oauth/authorize, where an enabled one redirects or
    answers an error page)."""
    if requests.get(f"{url}/.well-known/openid-configuration", timeout=10).status_code == 404:
        return False
    return requests.get(f"{url}/login/oauth/authorize", timeout=10, allow_redirects=False).status_code != 403


@pytest.fixture(scope="module")
def account(target: Target) -> Iterator[Account]:
    http = Http(target.url)
    if not target.standin and not oauth_enabled(target.url):
        pytest.skip(f"{target.url} runs with [oauth2] ENABLED=false (its OAuth routes are refused)")
    login = f"s{new_run()}"
    seeder: LiveSeeder | StandInSeeder = (
        StandInSeeder(target.standin) if target.standin else LiveSeeder(http, target.admin_token)
    )
    try:
        seeder.user(login)
        personal = seeder.token(login, ["all"])
        seeder.repo(login, "signin")
        invalidate = (
            target.standin.profile.invalidate_refresh_tokens
            if target.standin
            else os.environ.get("GITEA_LIVE_OAUTH_INVALIDATE_REFRESH_TOKENS", "false") == "true"
        )
        user_id = int(http.ok("GET", "/user", personal)["id"])
        yield Account(target.url.rstrip("/"), login, personal, user_id, "signin", invalidate)
    finally:
        seeder.cleanup()


@pytest.fixture
def new_app(account: Account, http: Http) -> Callable[..., App]:
    """A fresh application per probe: a grant (and its scope) belongs to one user and one application."""

    def make(confidential: bool = False, uris: list[str] | None = None, skip: bool = False) -> App:
        uris = uris or (CONFIDENTIAL_URIS if confidential else PUBLIC_URIS)
        body = {"name": f"probe-{secrets.token_hex(3)}", "redirect_uris": uris, "confidential_client": confidential,
                "skip_secondary_authorization": skip}  # fmt: skip
        made = http.ok("POST", "/user/applications/oauth2", account.token, json=body)
        return App(int(made["id"]), made["client_id"], made["client_secret"], confidential, uris[0])

    return make


@pytest.fixture
def browser(account: Account) -> Browser:
    """A browser signed in as the probes' user, with a session of its own (a `plain` PKCE challenge stays in a
    session and would reach a later consent of the same browser)."""
    signed_in = Browser(account.url)
    signed_in.sign_in(account.login, PASSWORD)
    return signed_in


def exchange(account: Account, app: App, code: str, verifier: str, **extra: str) -> requests.Response:
    form = {"grant_type": "authorization_code", "client_id": app.client_id, "code": code, "code_verifier": verifier}
    if app.confidential:
        form["client_secret"] = app.secret
    form.update(extra)
    return token(account.url, form)


def tokens(account: Account, app: App, browser: Browser, redirect: str | None = None) -> dict[str, Any]:
    verifier, challenge = pkce()
    answer = exchange(account, app, browser.code(app, challenge, redirect=redirect), verifier)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


# -- discovery and registration ---------------------------------------------------------------------------------


def test_discovery_names_the_endpoints_under_the_root_url(account: Account, target: Target) -> None:
    """The issuer is ROOT_URL with its trailing slash on Gitea 1.22, without it later; the endpoints never have
    one doubled."""
    answer = requests.get(f"{account.url}/.well-known/openid-configuration", timeout=30)
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/json"
    found = answer.json()
    base = account.url
    assert found["issuer"] == (base + "/" if old_gitea(target) else base)
    assert found["authorization_endpoint"] == f"{base}/login/oauth/authorize"
    assert found["token_endpoint"] == f"{base}/login/oauth/access_token"
    assert found["jwks_uri"] == f"{base}/login/oauth/keys"
    assert found["userinfo_endpoint"] == f"{base}/login/oauth/userinfo"
    assert found["code_challenge_methods_supported"] == ["plain", "S256"]
    assert found["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert found["response_types_supported"] == ["code", "id_token"]
    assert found["scopes_supported"] == ["openid", "profile", "email", "groups"]
    assert "registration_endpoint" not in found  # no dynamic client registration
    keys = requests.get(found["jwks_uri"], timeout=30).json()["keys"]
    assert [key["alg"] for key in keys] == found["id_token_signing_alg_values_supported"]
    assert all(key["use"] == "sig" for key in keys)


def test_there_is_no_authorization_server_metadata(account: Account) -> None:
    """RFC 8414's document is not served: a client must read the OpenID one."""
    assert requests.get(f"{account.url}/.well-known/oauth-authorization-server", timeout=30).status_code == 404


def test_an_application_registered_by_api_shows_its_secret_once(account: Account, http: Http, target: Target) -> None:
    """Gitea 1.22 has no `skip_secondary_authorization` (added after it): the answer lacks the field."""
    made = http.call("POST", "/user/applications/oauth2", account.token, json={"name": "probe", "redirect_uris": []})
    assert made.status == 201, made.text
    fields = {"id", "name", "client_id", "client_secret", "confidential_client", "redirect_uris", "created"}
    assert set(made.body) == (fields if old_gitea(target) else fields | {"skip_secondary_authorization"})
    assert made.body["client_secret"].startswith("gto_") and made.body["confidential_client"] is False
    nameless = http.call("POST", "/user/applications/oauth2", account.token, json={"redirect_uris": []})
    assert (nameless.status, nameless.message) == (422, "[Name]: Required")
    no_uris = http.call("POST", "/user/applications/oauth2", account.token, json={"name": "probe"})
    assert (no_uris.status, no_uris.message) == (422, "[RedirectURIs]: Required")
    assert http.call("DELETE", f"/user/applications/oauth2/{made.body['id']}", account.token).status == 204


def test_applications_are_listed_and_read_without_their_secret_and_an_update_makes_a_new_one(
    account: Account, http: Http, new_app: Callable[..., App]
) -> None:
    """What `signin-setup` relies on (issue 39): the list and `GET …/{id}` show `"client_secret": ""`, a PATCH
    replaces the fields, redirect URIs required as on creation, and answers with a new secret; the old one is
    refused from then on, which is why the command changes an existing application only when told to rotate."""
    app = new_app(confidential=True)
    listed = http.call("GET", "/user/applications/oauth2", account.token, params={"page": 1, "limit": 50})
    assert listed.status == 200 and listed.total is not None and listed.total >= 1 and "Link" not in listed.headers
    mine = next(row for row in listed.body if row["client_id"] == app.client_id)
    assert (
        mine["client_secret"] == "" and mine["confidential_client"] is True and mine["redirect_uris"] == [app.redirect]
    )
    one = http.call("GET", f"/user/applications/oauth2/{app.id}", account.token)
    assert one.status == 200 and one.body == mine
    uris = [app.redirect, "https://mcp.example.test/callback"]
    no_uris = http.call("PATCH", f"/user/applications/oauth2/{app.id}", account.token, json={"name": "x"})
    assert (no_uris.status, no_uris.message) == (422, "[RedirectURIs]: Required")
    body = {"name": "renamed", "redirect_uris": uris, "confidential_client": True}
    updated = http.call("PATCH", f"/user/applications/oauth2/{app.id}", account.token, json=body)
    assert updated.status == 200, updated.text
    assert updated.body["client_id"] == app.client_id and updated.body["redirect_uris"] == uris
    assert updated.body["client_secret"].startswith("gto_") and updated.body["client_secret"] != app.secret
    old = token(account.url, {"grant_type": "authorization_code", "client_id": app.client_id,
                              "client_secret": app.secret, "code": "none", "code_verifier": "x" * 43})  # fmt: skip
    assert old.status_code == 400 and old.json() == {
        "error": "unauthorized_client",
        "error_description": "invalid client secret",
    }
    missing = http.call("GET", "/user/applications/oauth2/999999999", account.token)
    assert missing.status == 404


# -- authorization code with PKCE ---------------------------------------------------------------------------------


def test_a_code_with_pkce_gives_a_bearer_token_for_the_api(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    app = new_app()
    verifier, challenge = pkce()
    page = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256")
    back = browser.consent(page)
    assert back.status_code == 303
    sent = query_of(back.headers["Location"])
    assert back.headers["Location"].startswith(app.redirect + "?")
    assert sent["state"] == "probe-state" and sent["code"].startswith("gta_")
    answer = exchange(account, app, sent["code"], verifier, redirect_uri=app.redirect)
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert set(found) == {"access_token", "token_type", "expires_in", "refresh_token"}  # no id_token without openid
    assert (found["token_type"], found["expires_in"]) == ("bearer", 3600)
    me = requests.get(f"{account.url}/api/v1/user", headers=bearer(found["access_token"]), timeout=30)
    assert me.status_code == 200 and me.json()["login"] == account.login
    # The token is not bound to anyone: no audience, no issuer (a resource server cannot tell it was not for it).
    assert not {"aud", "iss"} & set(claims_of(found["access_token"]))


def test_openid_adds_an_id_token_naming_the_discovery_issuer(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    """Its `iss` is the OpenID document's issuer, whatever the release (Gitea 1.22: with the trailing slash)."""
    app = new_app(confidential=True)
    verifier, challenge = pkce()
    page = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256", scope="openid profile")
    code = query_of(browser.consent(page).headers["Location"])["code"]
    answer = exchange(account, app, code, verifier)
    assert answer.status_code == 200, answer.text
    claims = claims_of(answer.json()["id_token"])
    issuer = requests.get(f"{account.url}/.well-known/openid-configuration", timeout=30).json()["issuer"]
    assert (claims["iss"], claims["aud"], claims["sub"]) == (issuer, [app.client_id], str(account.user_id))
    assert claims["preferred_username"] == account.login


def test_a_code_works_once(account: Account, new_app: Callable[..., App], browser: Browser) -> None:
    app = new_app()
    verifier, challenge = pkce()
    code = browser.code(app, challenge)
    assert exchange(account, app, code, verifier).status_code == 200
    replay = exchange(account, app, code, verifier)
    assert (replay.status_code, replay.json()) == (400, NOT_AUTHORIZED)
    forged = exchange(account, app, "gta_" + "a" * 52, verifier)
    assert (forged.status_code, forged.json()) == (400, NOT_AUTHORIZED)


def test_a_wrong_plain_verifier_is_refused_and_the_code_stays_usable(
    account: Account, new_app: Callable[..., App], browser: Browser, target: Target
) -> None:
    """Gitea 1.22 keeps a plain challenge in the session under the method's name, so the consent page's code has a
    method it does not know: no verifier passes, not even the right one (measured on 1.22.6)."""
    app = new_app()
    challenge = secrets.token_urlsafe(40)
    code = browser.code(app, challenge, method="plain")
    wrong = exchange(account, app, code, "not-the-verifier")
    assert (wrong.status_code, wrong.json()) == (400, FAILED_PKCE)
    right = exchange(account, app, code, challenge)  # checked before the code is spent
    if old_gitea(target):
        assert (right.status_code, right.json()) == (400, FAILED_PKCE)
    else:
        assert right.status_code == 200, right.text


def test_a_wrong_s256_verifier_is_refused_once_consent_was_given(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    """A confidential client the user consented to before is sent back at once, with the challenge of this request:
    that code checks its S256 verifier."""
    app = new_app(confidential=True)
    tokens(account, app, browser)  # the first consent
    verifier, challenge = pkce()
    again = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256")
    assert again.status_code == 303, "no consent page the second time"
    code = query_of(again.headers["Location"])["code"]
    wrong = exchange(account, app, code, "not-the-verifier")
    assert (wrong.status_code, wrong.json()) == (400, FAILED_PKCE)
    assert exchange(account, app, code, verifier).status_code == 200


def test_a_public_client_may_skip_the_second_consent_after_gitea_1_22(
    account: Account, new_app: Callable[..., App], browser: Browser, target: Target
) -> None:
    """`skip_secondary_authorization` sends a public client the user consented to back at once, as a confidential
    one is; Gitea 1.22 has no such setting (ignored when sent) and shows the consent page again."""
    app = new_app(skip=True)
    tokens(account, app, browser)  # the first consent
    _, challenge = pkce()
    again = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256")
    if old_gitea(target):
        assert again.status_code == 200 and "/login/oauth/grant" in again.text
    else:
        assert again.status_code == 303 and "code" in query_of(again.headers["Location"])


def test_a_code_given_on_the_consent_page_checks_no_s256_verifier(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    """Gitea 1.25.4 keeps only a `plain` challenge in the session for the consent page, so an S256 code from it
    takes any verifier (measured; routers/web/auth/oauth2_provider.go). PKCE against Gitea protects nothing there:
    whoever holds such a code can spend it. The same on 1.22.6 (measured)."""
    app = new_app()
    _, challenge = pkce()
    code = browser.code(app, challenge)
    assert exchange(account, app, code, "any verifier at all").status_code == 200


@pytest.mark.parametrize(
    ("method", "verifier", "taken"),
    [
        ("plain", None, False),  # no code_verifier at all
        ("plain", "a-verifier-of-another-sign-in-" + "x" * 20, False),
        ("S256", None, True),  # the consent page kept no S256 challenge: nothing to check
        ("S256", "a-verifier-of-another-sign-in-" + "x" * 20, True),
    ],
    ids=["plain-none", "plain-other", "s256-none", "s256-other"],
)
def test_a_consent_page_code_is_spent_with_another_verifier_only_under_s256(
    account: Account, new_app: Callable[..., App], browser: Browser, method: str, verifier: str | None, taken: bool
) -> None:
    """What a stolen code from Gitea's consent page is worth to someone without its verifier (issue 35, finding 1):
    under `plain` Gitea refuses it, without a verifier or with another one, and keeps it for the right one; under
    S256 (Gitea 1.25.4) it is spent whatever is sent. Gitea 1.22 refuses every plain code from the page."""
    app = new_app()
    right, challenge = pkce()
    if method == "plain":
        challenge = right
    code = browser.code(app, challenge, method=method)
    form = {"grant_type": "authorization_code", "client_id": app.client_id, "code": code}
    if verifier is not None:
        form["code_verifier"] = verifier
    answer = token(account.url, form)
    if taken:
        assert answer.status_code == 200, answer.text
    else:
        assert (answer.status_code, answer.json()) == (400, FAILED_PKCE)


def test_a_plain_challenge_stays_in_the_browser_session(
    account: Account, new_app: Callable[..., App], browser: Browser, target: Target
) -> None:
    """After a `plain` authorization, the same browser's S256 consent is checked against the old plain challenge;
    on Gitea 1.22, against a method no verifier passes: that browser's later consents give no usable code."""
    app = new_app()
    plain = secrets.token_urlsafe(40)
    first = exchange(account, app, browser.code(app, plain, method="plain"), plain)
    assert first.status_code == (400 if old_gitea(target) else 200), first.text
    verifier, challenge = pkce()
    code = browser.code(app, challenge)
    later = exchange(account, app, code, verifier)
    assert (later.status_code, later.json()) == (400, FAILED_PKCE)
    with_plain = exchange(account, app, code, plain)
    if old_gitea(target):
        assert (with_plain.status_code, with_plain.json()) == (400, FAILED_PKCE)
    else:
        assert with_plain.status_code == 200, with_plain.text


# -- redirect URIs ------------------------------------------------------------------------------------------------

ACCEPTED = [
    "http://127.0.0.1:5555/callback",  # a loopback IP with any port, for a public client (RFC 8252)
    "http://127.0.0.1:61234/callback",
    "http://127.0.0.1/callback/",  # one trailing slash
    "HTTP://127.0.0.1/CALLBACK",  # case
    "https://client.example/cb",
]
REFUSED = [
    "http://evil.example/callback",
    "http://localhost:5555/callback",  # a loopback name is not a loopback IP
    "http://[::1]:5555/callback",
    "http://127.0.0.2:5555/callback",  # another loopback address than registered
    "http://192.0.2.10:5555/cb",  # an IP that is not loopback keeps its port
    "https://client.example:8443/cb",  # only http loopback may change its port
    "https://client.example/cb/more",
    "",
]


def test_a_registered_redirect_uri_gets_the_consent_page(new_app: Callable[..., App], browser: Browser) -> None:
    app = new_app()
    _, challenge = pkce()
    for redirect in ACCEPTED:
        page = browser.authorize(app, redirect, code_challenge=challenge, code_challenge_method="S256")
        assert page.status_code == 200 and "/login/oauth/grant" in page.text, redirect


def test_an_unregistered_redirect_uri_is_refused_on_a_page(new_app: Callable[..., App], browser: Browser) -> None:
    """Never a redirect to it: a page of Gitea's says why."""
    app = new_app()
    _, challenge = pkce()
    for redirect in REFUSED:
        asked = {"redirect_uri": redirect or None, "code_challenge": challenge, "code_challenge_method": "S256"}
        page = browser.authorize(app, **asked)  # "": no redirect_uri at all
        assert page.status_code == 400 and "Location" not in page.headers, redirect
        assert page.headers["Content-Type"].startswith("text/html") and "Unregistered Redirect URI" in page.text


def test_a_confidential_client_gets_no_loopback_port_freedom(new_app: Callable[..., App], browser: Browser) -> None:
    _, challenge = pkce()
    page = browser.authorize(new_app(confidential=True, uris=["http://127.0.0.1/cb"]), "http://127.0.0.1:9998/cb",
                             code_challenge=challenge, code_challenge_method="S256")  # fmt: skip
    assert page.status_code == 400 and "Unregistered Redirect URI" in page.text


def test_the_token_endpoint_checks_a_redirect_uri_only_against_the_application(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    """A redirect URI sent with the code must be one of the application's, not the one the code was given for.
    (An S256 code: a plain one from the consent page is unusable on Gitea 1.22, see above.)"""
    app = new_app()
    verifier, challenge = pkce()
    code = browser.code(app, challenge)
    elsewhere = exchange(account, app, code, verifier, redirect_uri="http://evil.example/callback")
    assert elsewhere.json() == {"error": "unauthorized_client", "error_description": "unexpected redirect URI"}
    other_port = exchange(account, app, code, verifier, redirect_uri="http://127.0.0.1:7777/callback")
    assert other_port.status_code == 200, other_port.text


# -- the authorize page's other answers --------------------------------------------------------------------------


def _back_with(answer: requests.Response, redirect: str) -> dict[str, str]:
    assert answer.status_code == 303, answer.text[:200]
    assert answer.headers["Location"].startswith(redirect + "?")
    return query_of(answer.headers["Location"])


def test_a_public_client_without_pkce_is_sent_back_with_an_error(new_app: Callable[..., App], browser: Browser) -> None:
    app = new_app()
    sent = _back_with(browser.authorize(app), app.redirect)
    assert sent == {"error": "invalid_request", "error_description": "PKCE is required for public clients",
                    "state": "probe-state"}  # fmt: skip
    odd = _back_with(browser.authorize(app, code_challenge="x" * 43, code_challenge_method="S512"), app.redirect)
    assert odd["error_description"] == "unsupported code challenge method"
    implicit = _back_with(browser.authorize(app, response_type="token", code_challenge="x" * 43), app.redirect)
    assert (implicit["error"], implicit["error_description"]) == (
        "unsupported_response_type", "Only code response type is supported.",
    )  # fmt: skip


def test_an_unknown_client_is_refused_on_a_page(new_app: Callable[..., App], browser: Browser) -> None:
    unknown = App(0, "no-such-client", "", False, PUBLIC_URIS[0])
    page = browser.authorize(unknown, code_challenge="x" * 43, code_challenge_method="S256")
    assert page.status_code == 400 and "Client ID not registered" in page.text


def test_an_anonymous_browser_is_sent_to_sign_in_and_back(account: Account, new_app: Callable[..., App]) -> None:
    anonymous = Browser(account.url)
    app = new_app()
    _, challenge = pkce()
    answer = anonymous.authorize(app, code_challenge=challenge, code_challenge_method="S256")
    assert (answer.status_code, answer.headers["Location"]) == (303, "/user/login")
    form = {"user_name": account.login, "password": PASSWORD}
    signed = anonymous.session.post(f"{account.url}/user/login", data=form, allow_redirects=False, timeout=30)
    assert signed.status_code == 303 and signed.headers["Location"].startswith("/login/oauth/authorize?")
    page = anonymous.session.get(account.url + signed.headers["Location"], allow_redirects=False, timeout=30)
    assert page.status_code == 200 and "/login/oauth/grant" in page.text


def test_consent_refused_or_tampered(new_app: Callable[..., App], browser: Browser) -> None:
    app = new_app()
    _, challenge = pkce()
    page = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256")
    denied = _back_with(browser.consent(page, granted="false"), app.redirect)
    assert denied == {"error": "access_denied", "error_description": "the request is denied", "state": "probe-state"}
    page = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256")
    tampered = browser.consent(page, redirect_uri="http://evil.example/callback")
    assert (tampered.status_code, tampered.text) == (400, "Bad Request\n")


def test_a_grant_keeps_the_scope_of_its_first_consent(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    """Asking the same user again with other scopes fails at consent: the user must revoke the app first."""
    app = new_app()
    tokens(account, app, browser)
    _, challenge = pkce()
    page = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256", scope="read:issue")
    sent = _back_with(browser.consent(page), app.redirect)
    assert (sent["error"], sent["error_description"]) == ("server_error", "a grant exists with different scope")


# -- the token endpoint's errors ----------------------------------------------------------------------------------


def test_token_endpoint_errors_as_gitea_words_them(
    account: Account, new_app: Callable[..., App], target: Target
) -> None:
    """An Authorization header of another scheme than Basic is refused after Gitea 1.22; 1.22 ignores it, and
    the client is then the form's (none here)."""
    public, confidential = new_app(), new_app(confidential=True)
    code = {"grant_type": "authorization_code", "code": "gta_none"}
    cases: list[tuple[dict[str, str], tuple[str, str] | None, str, str]] = [
        ({"grant_type": "password", "client_id": public.client_id}, None, "unsupported_grant_type",
         "Only refresh_token or authorization_code grant type is supported"),
        ({**code, "client_id": "nope"}, None, "invalid_client", "cannot load client with client id: 'nope'"),
        ({**code, "client_id": confidential.client_id}, None, "unauthorized_client", "invalid empty client secret"),
        ({**code, "client_id": confidential.client_id, "client_secret": "x"}, None, "unauthorized_client",
         "invalid client secret"),
        ({**code, "client_id": public.client_id}, None, "unauthorized_client", "client is not authorized"),
        ({**code, "client_id": "other"}, (confidential.client_id, confidential.secret), "invalid_request",
         "client_id in request body inconsistent with Authorization header"),
        ({"grant_type": "refresh_token", "client_id": "nope", "refresh_token": "x"}, None, "invalid_client",
         'cannot load client with client id: "nope"'),
        ({"grant_type": "refresh_token", "client_id": public.client_id, "refresh_token": "x"}, None,
         "unauthorized_client", "unable to parse refresh token"),
        ({"grant_type": "refresh_token", "client_id": confidential.client_id, "refresh_token": "x"}, None,
         "invalid_client", "invalid empty client secret"),
    ]  # fmt: skip
    for form, basic, error, description in cases:
        answer = token(account.url, form, basic)
        assert answer.status_code == 400, (form, answer.text)
        assert answer.headers["Content-Type"] == "application/json;charset=utf-8"
        assert answer.json() == {"error": error, "error_description": description}, form
    garbled = token(account.url, code, headers={"Authorization": "Bearer x"})
    unparsed = {"error": "invalid_request", "error_description": "cannot parse basic auth header"}
    no_client = {"error": "invalid_client", "error_description": "cannot load client with client id: ''"}
    assert garbled.json() == (no_client if old_gitea(target) else unparsed)
    undecodable = token(account.url, code, headers={"Authorization": "Basic !!!"})
    assert undecodable.json() == unparsed
    assert requests.get(f"{account.url}/login/oauth/access_token", timeout=30).status_code == 405


def test_a_confidential_client_authenticates_by_basic_auth_or_by_form(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    app = new_app(confidential=True)
    tokens(account, app, browser)  # by form
    verifier, challenge = pkce()
    code = browser.code(app, challenge)
    form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
    by_basic = token(account.url, form, (app.client_id, app.secret))
    assert by_basic.status_code == 200, by_basic.text


# -- refresh --------------------------------------------------------------------------------------------------


def test_a_refresh_token_gives_a_working_access_token(
    account: Account, new_app: Callable[..., App], browser: Browser
) -> None:
    """Whether a used refresh token is refused is the server's INVALIDATE_REFRESH_TOKENS (off by default: it keeps
    working, and a refresh in the same second as the last answers the same tokens, measured)."""
    app = new_app(confidential=True)
    first = tokens(account, app, browser)
    form = {"grant_type": "refresh_token", "client_id": app.client_id, "client_secret": app.secret}
    renewed = token(account.url, {**form, "refresh_token": first["refresh_token"]})
    assert renewed.status_code == 200, renewed.text
    me = requests.get(f"{account.url}/api/v1/user", headers=bearer(renewed.json()["access_token"]), timeout=30)
    assert me.status_code == 200 and me.json()["login"] == account.login
    again = token(account.url, {**form, "refresh_token": first["refresh_token"]})
    if account.invalidate_refresh_tokens:
        assert again.json() == {"error": "unauthorized_client", "error_description": "token was already used"}
    else:
        assert again.status_code == 200, again.text


def test_deleting_the_application_ends_its_tokens(
    account: Account, http: Http, new_app: Callable[..., App], browser: Browser, target: Target
) -> None:
    """The API's 401 is Gitea 1.22's for any token it cannot place (no user found), one sentence later."""
    app = new_app(confidential=True)
    found = tokens(account, app, browser)
    assert http.call("DELETE", f"/user/applications/oauth2/{app.id}", account.token).status == 204
    me = requests.get(f"{account.url}/api/v1/user", headers=bearer(found["access_token"]), timeout=30)
    refusal = "user does not exist [uid: 0, name: ]" if old_gitea(target) else "invalid username, password or token"
    assert me.status_code == 401 and me.json()["message"] == refusal
    form = {"grant_type": "refresh_token", "client_id": app.client_id, "client_secret": app.secret,
            "refresh_token": found["refresh_token"]}  # fmt: skip
    refused = token(account.url, form)
    assert refused.json() == {"error": "invalid_client",
                              "error_description": f'cannot load client with client id: "{app.client_id}"'}  # fmt: skip


# -- what the token may do -------------------------------------------------------------------------------------


def test_scopes_narrow_an_oauth_token_from_gitea_1_23(
    account: Account, new_app: Callable[..., App], browser: Browser, target: Target
) -> None:
    """Asked for `read:issue read:user`: reads issues; creating one needs write:issue. Gitea 1.22 and Forgejo give
    OAuth tokens full access (measured on 1.22.6; Forgejo as issue 24 and Gitea's source say)."""
    found = tokens(account, new_app(), browser)
    headers = bearer(found["access_token"])
    issues = f"{account.url}/api/v1/repos/{account.login}/{account.repo}/issues"
    assert requests.get(issues, headers=headers, timeout=30).status_code == 200
    created = requests.post(issues, headers=headers, json={"title": "Filed by an OAuth token"}, timeout=30)
    if target.version.gitea((1, 23)):
        assert created.status_code == 403
        assert created.json()["message"] == (
            "token does not have at least one of required scope(s), required=[write:issue], "
            "token scope=read:issue,read:user"
        )
    else:
        assert created.status_code == 201, created.text


def test_userinfo_answers_for_a_token_and_challenges_without(
    account: Account, http: Http, new_app: Callable[..., App], browser: Browser, target: Target
) -> None:
    """`name` is the full name; for a user without one Gitea 1.22 leaves it empty, later releases give the login.
    Gitea 1.22 names no realm, and words the refusal of a bad token otherwise."""
    old = old_gitea(target)
    found = tokens(account, new_app(), browser)
    info = requests.get(f"{account.url}/login/oauth/userinfo", headers=bearer(found["access_token"]), timeout=30)
    assert info.status_code == 200
    body = info.json()
    assert (body["sub"], body["preferred_username"]) == (str(account.user_id), account.login)
    assert set(body) == {"sub", "name", "preferred_username", "email", "picture", "groups"}
    full_name = http.ok("GET", "/user", account.token)["full_name"]  # none on a live server, the stand-in's own
    assert body["name"] == (full_name or ("" if old else account.login))
    anonymous = requests.get(f"{account.url}/login/oauth/userinfo", timeout=30)
    assert (anonymous.status_code, anonymous.text) == (401, "no valid authorization")
    assert anonymous.headers["WWW-Authenticate"] == ('Bearer realm=""' if old else 'Bearer realm="Gitea OAuth2"')
    forged = requests.get(f"{account.url}/login/oauth/userinfo", headers=bearer("not-a-token"), timeout=30)
    assert (forged.status_code, forged.text) == (401, "Verify\n" if old else "Failed to authenticate user\n")
    assert "WWW-Authenticate" not in forged.headers
