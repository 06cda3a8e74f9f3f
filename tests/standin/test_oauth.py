"""The stand-in's OAuth2 provider where the contract suite cannot reach: settings and times a live server here does not
have (INVALIDATE_REFRESH_TOKENS on, an hour passing), revocation, the ID token, and the scope rules read from
Gitea 1.25.4's source. What a live Gitea does is in tests/contract/test_oauth.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from gitea_mcp.standin import StandIn
from gitea_mcp.standin.oauth.model import ACCESS_SECONDS, api_scopes
from gitea_mcp.standin.profile import Profile
from tests.contract.oauth_flow import App, Browser, bearer, claims_of, pkce, token

LOGIN, PASSWORD = "signer", "a-password"


def _standin(profile: Profile) -> StandIn:
    standin = StandIn(profile=profile, seed=False)
    standin.store.add_user(LOGIN)
    standin.store.oauth.passwords[LOGIN] = PASSWORD
    return standin


@pytest.fixture
def invalidating() -> Iterator[StandIn]:
    with _standin(Profile(invalidate_refresh_tokens=True)) as standin:
        yield standin


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with _standin(Profile()) as standin:
        yield standin


def _app(standin: StandIn, uris: list[str], confidential: bool = True) -> App:
    made, secret = standin.store.oauth.create_app(LOGIN, "probe", uris, confidential)
    return App(made.id, made.client_id, secret, confidential, uris[0])


def _tokens(standin: StandIn, app: App, scope: str = "read:issue read:user") -> dict[str, str]:
    browser = Browser(standin.url)
    browser.sign_in(LOGIN, PASSWORD)
    verifier, challenge = pkce()
    page = browser.authorize(app, code_challenge=challenge, code_challenge_method="S256", scope=scope)
    code = _consented(browser, page)  # a first consent: the page is shown
    form = {"grant_type": "authorization_code", "client_id": app.client_id, "client_secret": app.secret,
            "code": code, "code_verifier": verifier}  # fmt: skip
    answer = token(standin.url, form)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _consented(browser: Browser, page: requests.Response) -> str:
    back = browser.consent(page)
    assert back.status_code == 303
    return back.headers["Location"].split("code=")[1].split("&")[0]


def _refresh(standin: StandIn, app: App, refresh_token: str) -> requests.Response:
    form = {"grant_type": "refresh_token", "client_id": app.client_id, "client_secret": app.secret,
            "refresh_token": refresh_token}  # fmt: skip
    return token(standin.url, form)


def test_with_invalidation_on_a_refresh_token_works_once(invalidating: StandIn) -> None:
    """INVALIDATE_REFRESH_TOKENS=true (read from source): the grant's counter moves at each answer, and a refresh
    token carrying an older count is refused."""
    app = _app(invalidating, ["http://127.0.0.1:9999/cb"])
    first = _tokens(invalidating, app)
    assert claims_of(first["refresh_token"])["cnt"] == 1
    second = _refresh(invalidating, app, first["refresh_token"])
    assert second.status_code == 200 and claims_of(second.json()["refresh_token"])["cnt"] == 2
    again = _refresh(invalidating, app, first["refresh_token"])
    assert again.json() == {"error": "unauthorized_client", "error_description": "token was already used"}
    assert _refresh(invalidating, app, second.json()["refresh_token"]).status_code == 200


def test_without_invalidation_a_refresh_token_carries_no_count(standin: StandIn) -> None:
    app = _app(standin, ["http://127.0.0.1:9999/cb"])
    first = _tokens(standin, app)
    assert "cnt" not in claims_of(first["refresh_token"])  # as measured: Gitea inserts the grant with counter 0
    assert _refresh(standin, app, first["refresh_token"]).status_code == 200
    assert _refresh(standin, app, first["refresh_token"]).status_code == 200


def test_an_access_token_expires_after_an_hour(standin: StandIn) -> None:
    found = _tokens(standin, _app(standin, ["http://127.0.0.1:9999/cb"]))
    me = f"{standin.url}/api/v1/user"
    assert requests.get(me, headers=bearer(found["access_token"]), timeout=10).status_code == 200
    now = standin.store.oauth.clock()
    standin.store.oauth.clock = lambda: now + ACCESS_SECONDS + 1
    assert requests.get(me, headers=bearer(found["access_token"]), timeout=10).status_code == 401


def test_a_refresh_token_is_no_bearer_token(standin: StandIn) -> None:
    found = _tokens(standin, _app(standin, ["http://127.0.0.1:9999/cb"]))
    answer = requests.get(f"{standin.url}/api/v1/user", headers=bearer(found["refresh_token"]), timeout=10)
    assert answer.status_code == 401


def test_revoking_the_grant_ends_its_tokens(standin: StandIn) -> None:
    app = _app(standin, ["http://127.0.0.1:9999/cb"])
    found = _tokens(standin, app)
    provider = standin.store.oauth
    grant = next(iter(provider.grants.values()))
    provider.revoke(grant)
    answer = requests.get(f"{standin.url}/api/v1/user", headers=bearer(found["access_token"]), timeout=10)
    assert answer.status_code == 401
    refused = _refresh(standin, app, found["refresh_token"])
    assert refused.json() == {"error": "invalid_grant", "error_description": "grant does not exist"}


def test_openid_adds_an_id_token_for_the_client(standin: StandIn) -> None:
    app = _app(standin, ["http://127.0.0.1:9999/cb"])
    found = _tokens(standin, app, scope="openid profile read:issue")
    claims = claims_of(found["id_token"])
    assert claims["aud"] == [app.client_id] and claims["iss"] == standin.url
    assert claims["preferred_username"] == LOGIN


def test_an_ipv6_loopback_never_takes_another_port(standin: StandIn) -> None:
    """Go strips the port into a bare `::1` host, which no registered `http://[::1]/…` equals (read from source)."""
    app = _app(standin, ["http://[::1]/cb"], confidential=False)
    browser = Browser(standin.url)
    browser.sign_in(LOGIN, PASSWORD)
    _, challenge = pkce()
    refused = browser.authorize(app, "http://[::1]:5555/cb", code_challenge=challenge, code_challenge_method="S256")
    assert refused.status_code == 400
    exact = browser.authorize(app, "http://[::1]/cb", code_challenge=challenge, code_challenge_method="S256")
    assert exact.status_code == 200


@pytest.mark.parametrize(
    ("asked", "kept"),
    [
        ("read:issue read:user", ("read:issue", "read:user")),
        ("read:user write:issue read:issue", ("write:issue", "read:user")),  # write implies read; Gitea's order
        ("openid profile email", ("all",)),  # nothing but OpenID: full access
        ("", ("all",)),
        ("read:issues", ("all",)),  # a scope Gitea does not know: full access, as 1.22 had
        ("public-only read:repository", ("public-only", "read:repository")),
    ],
)
def test_the_api_scopes_of_a_grant(asked: str, kept: tuple[str, ...]) -> None:
    assert api_scopes(asked) == kept


def test_full_access_before_gitea_1_23() -> None:
    """Gitea 1.22 and Forgejo: the grant's scopes do not narrow the token (measured on 1.22.6; Forgejo not)."""
    with _standin(Profile("1.22.6")) as old:
        old.store.add_repo(LOGIN, "signin")
        found = _tokens(old, _app(old, ["http://127.0.0.1:9999/cb"]), scope="read:issue")
        issues = f"{old.url}/api/v1/repos/{LOGIN}/signin/issues"
        created = requests.post(issues, headers=bearer(found["access_token"]), json={"title": "t"}, timeout=10)
        assert created.status_code == 201, created.text


@pytest.mark.parametrize(("version", "name"), [("1.22.6", ""), ("1.25.4", LOGIN)])
def test_userinfo_names_a_user_without_a_full_name(version: str, name: str) -> None:
    """Gitea 1.22 answers the empty full name, later releases the login (both measured; the contract's probe user
    on the stand-in has a full name)."""
    with _standin(Profile(version)) as standin:
        user = standin.store.user(LOGIN)
        assert user is not None
        user.full_name = ""
        found = _tokens(standin, _app(standin, ["http://127.0.0.1:9999/cb"]))
        info = requests.get(f"{standin.url}/login/oauth/userinfo", headers=bearer(found["access_token"]), timeout=10)
        assert info.status_code == 200 and info.json()["name"] == name
