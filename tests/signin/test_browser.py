"""The browser user itself, against Gitea's own OAuth2 (no server of ours in between, so no `#approve` step): the
stand-in's provider always, a live Gitea when tests/signin/live.py's variables are set. The code it brings back is
exchanged for a token, so a redirect that only looked right fails."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
import requests

from gitea_mcp.standin import StandIn
from tests.contract.oauth_flow import pkce, query_of
from tests.signin import live
from tests.signin.browser import sign_in, unavailable

pytestmark = pytest.mark.slow

REDIRECT = "http://127.0.0.1:45999/callback"  # intercepted in the browser: nothing listens there
PASSWORD = "signin-e2e-pw"


@pytest.fixture(autouse=True)
def browser() -> None:
    reason = unavailable()
    if reason:
        pytest.skip(reason)


def authorize_url(gitea: str, client_id: str, challenge: str, state: str) -> str:
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": state,
             "code_challenge": challenge, "code_challenge_method": "S256", "scope": "read:issue read:user"}  # fmt: skip
    return f"{gitea}/login/oauth/authorize?{urlencode(query)}"


def exchange(gitea: str, client_id: str, code: str, verifier: str) -> requests.Response:
    form = {"grant_type": "authorization_code", "code": code, "client_id": client_id, "redirect_uri": REDIRECT,
            "code_verifier": verifier}  # fmt: skip
    return requests.post(f"{gitea}/login/oauth/access_token", data=form, timeout=30)


def signs_in_twice(gitea: str, client_id: str, login: str, password: str) -> None:
    """First sign-in and consent; then again in a fresh browser, where Gitea may skip its consent page."""
    for state in ("first", "second"):
        verifier, challenge = pkce()
        url = authorize_url(gitea, client_id, challenge, state)
        landed = sign_in(url, login, password, expect_redirect_prefix=REDIRECT, intercept=True, seconds=30)
        assert landed.startswith(REDIRECT + "?"), landed
        assert query_of(landed)["state"] == state
        answer = exchange(gitea, client_id, query_of(landed)["code"], verifier)
        assert answer.status_code == 200, answer.text
        assert answer.json()["token_type"].lower() == "bearer"


def test_signs_in_at_the_standin() -> None:
    with StandIn() as forge:
        forge.store.oauth.passwords["alice"] = PASSWORD
        app, _ = forge.store.oauth.create_app("alice", "signin-e2e", ["http://127.0.0.1/callback"], False)
        signs_in_twice(forge.url, app.client_id, "alice", PASSWORD)


def test_a_wrong_password_is_reported_with_the_page() -> None:
    with StandIn() as forge:
        forge.store.oauth.passwords["alice"] = PASSWORD
        app, _ = forge.store.oauth.create_app("alice", "signin-e2e", ["http://127.0.0.1/callback"], False)
        with pytest.raises(AssertionError, match="incorrect"):
            sign_in(authorize_url(forge.url, app.client_id, pkce()[1], "s"), "alice", "wrong",
                    expect_redirect_prefix=REDIRECT, intercept=True, seconds=5)  # fmt: skip


@pytest.fixture
def gitea() -> Iterator[tuple[live.LiveGitea, live.Account, live.OAuthApp]]:
    reason = live.missing()
    if reason:
        pytest.skip(reason)
    forge = live.LiveGitea.from_env()
    account = forge.user()
    app = forge.app(["http://127.0.0.1/callback"])
    yield forge, account, app
    forge.delete_app(app)
    forge.delete_user(account)


def test_signs_in_at_a_live_gitea(gitea: tuple[live.LiveGitea, live.Account, live.OAuthApp]) -> None:
    forge, account, app = gitea
    signs_in_twice(forge.url, app.client_id, account.login, account.password)
