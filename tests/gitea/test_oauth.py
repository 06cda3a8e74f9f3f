"""gitea/oauth.py against a mocked Gitea (responses; a mock registered and never used fails the test, as `mocked`
does everywhere). The answers are the ones tests/contract/test_oauth.py measured on Gitea 1.25.4: the token
endpoint is no part of the API, so the OpenAPI spec cannot check them. Every request is sent once, whatever
comes back, and nothing it carried (the code, the verifier, the secret, a refresh token) is in an error's words."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import pytest
import requests
import responses

from gitea_mcp.gitea.client import GiteaClient, Unreadable
from gitea_mcp.gitea.errors import GiteaError, NoAnswer, NotSent
from gitea_mcp.gitea.oauth import OPENID, TOKEN_PATH, GiteaOAuth, GiteaTokens, OAuthRefused
from tests.support import TOKEN
from tests.support.gitea_json import ROOT
from tests.support.mocks import refused_connection

CODE = "gta_code_never_shown_0123456789"
VERIFIER = "verifier-never-shown-" + "v" * 40
SECRET = "gto_secret_never_shown_0123456789"
REFRESH = "refresh-never-shown-0123456789"
CLIENT_ID = "5b2c3e9a-0f1d-4c7e-9a8b-2d6f1e0c4b3a"
CALLBACK = "https://mcp.example.com/callback"
TOKENS = {"access_token": "gitea-access", "token_type": "bearer", "expires_in": 3600, "refresh_token": "gitea-refresh"}
JSON = "application/json;charset=utf-8"  # as Gitea labels its token answers


def oauth(secret: str | None = None) -> GiteaOAuth:
    # The default retry policy (three attempts): what is checked is that these requests never use it.
    return GiteaOAuth(GiteaClient(ROOT, TOKEN, timeout=5), CLIENT_ID, secret, CALLBACK)


def sent_form(rsps: responses.RequestsMock) -> dict[str, str]:
    assert len(rsps.calls) == 1, "sent once"
    request = rsps.calls[0].request
    assert request.method == "POST" and request.url == ROOT + TOKEN_PATH
    assert "Authorization" not in request.headers, "no token of ours goes to the token endpoint"
    body = request.body
    text = body.decode() if isinstance(body, bytes) else str(body)
    pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True)  # an empty client_secret= counts too
    assert len(pairs) == len(dict(pairs)), "each field once"
    return dict(pairs)


def words(exc: BaseException) -> str:
    message = str(exc)
    for secret in (CODE, VERIFIER, SECRET, REFRESH, TOKEN):
        assert secret not in message, "an error quotes what the request carried"
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize(
    ("secret", "extra"), [(None, {}), (SECRET, {"client_secret": SECRET})], ids=["public", "confidential"]
)
def test_an_exchange_posts_the_form_once(
    mocked: responses.RequestsMock, secret: str | None, extra: dict[str, str]
) -> None:
    mocked.post(ROOT + TOKEN_PATH, json=TOKENS, content_type=JSON)
    assert oauth(secret).exchange(CODE, VERIFIER) == GiteaTokens("gitea-access", "gitea-refresh", 3600)
    assert sent_form(mocked) == {"grant_type": "authorization_code", "code": CODE, "code_verifier": VERIFIER,
                                 "redirect_uri": CALLBACK, "client_id": CLIENT_ID, **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("secret", "extra"), [(None, {}), (SECRET, {"client_secret": SECRET})], ids=["public", "confidential"]
)
def test_a_refresh_posts_the_form_once(
    mocked: responses.RequestsMock, secret: str | None, extra: dict[str, str]
) -> None:
    mocked.post(ROOT + TOKEN_PATH, json=TOKENS, content_type=JSON)
    assert oauth(secret).refresh(REFRESH).refresh == "gitea-refresh"
    assert sent_form(mocked) == {"grant_type": "refresh_token", "refresh_token": REFRESH, "client_id": CLIENT_ID,
                                 **extra}  # fmt: skip


REFUSALS = [
    (400, "invalid_grant", "the code is invalid or has expired"),
    (400, "unauthorized_client", "failed PKCE code challenge"),
    (400, "unauthorized_client", "invalid client secret"),
    (401, "invalid_client", "cannot load client with client id: 'nope'"),
]


@pytest.mark.parametrize(("status", "error", "description"), REFUSALS)
def test_gitea_saying_no_is_oauth_refused_with_its_error(
    mocked: responses.RequestsMock, status: int, error: str, description: str
) -> None:
    mocked.post(ROOT + TOKEN_PATH, json={"error": error, "error_description": description}, status=status)
    with pytest.raises(OAuthRefused) as caught:
        oauth(SECRET).exchange(CODE, VERIFIER)
    assert (caught.value.error, caught.value.description, caught.value.status) == (error, description, status)
    assert words(caught.value) == f"Gitea refused the sign-in ({error}): {description}"
    assert len(mocked.calls) == 1


def test_a_refusal_is_cut_short(mocked: responses.RequestsMock) -> None:
    mocked.post(ROOT + TOKEN_PATH, json={"error": "e" * 500, "error_description": "d" * 5000}, status=400)
    with pytest.raises(OAuthRefused) as caught:
        oauth().refresh(REFRESH)
    assert len(caught.value.error) == 64 and len(caught.value.description) == 200


NOT_A_TOKEN: list[tuple[int, dict[str, Any]]] = [
    (500, {"json": {"error": "server_error", "error_description": "boom"}}),
    (502, {"body": "<html><body>Bad Gateway</body></html>", "content_type": "text/html"}),
    (200, {"body": "<html><body>Sign in</body></html>", "content_type": "text/html"}),
    (200, {"json": {"token_type": "bearer"}}),
    (200, {"json": {**TOKENS, "expires_in": "3600"}}),
    (200, {"json": [TOKENS]}),
    (400, {"body": "<html>Bad Request</html>", "content_type": "text/html"}),
    (400, {"json": {"message": "bad request"}}),
    (400, {"json": {"error": 42}}),
    (302, {"body": "", "headers": {"Location": ROOT + "/user/login"}}),
]


@pytest.mark.parametrize(("status", "answer"), NOT_A_TOKEN, ids=[f"{s}-{a}"[:50] for s, a in NOT_A_TOKEN])
def test_an_answer_that_is_no_token_is_unreadable(
    mocked: responses.RequestsMock, status: int, answer: dict[str, Any]
) -> None:
    mocked.post(ROOT + TOKEN_PATH, status=status, **answer)
    with pytest.raises(Unreadable) as caught:
        oauth(SECRET).exchange(CODE, VERIFIER)
    assert not isinstance(caught.value, OAuthRefused)
    assert TOKEN_PATH in words(caught.value) and caught.value.status == status
    assert len(mocked.calls) == 1, "not retried"


@pytest.mark.parametrize(
    ("failure", "kind"),
    [(refused_connection(), NotSent), (requests.ReadTimeout("read timed out"), NoAnswer),
     (requests.ConnectionError("Connection aborted."), NoAnswer)],
    ids=["refused", "read-timeout", "reset"],
)  # fmt: skip
def test_a_transport_failure_is_the_clients_own_error_and_not_retried(
    mocked: responses.RequestsMock, failure: Exception, kind: type[GiteaError]
) -> None:
    mocked.post(ROOT + TOKEN_PATH, body=failure)
    with pytest.raises(kind) as caught:
        oauth(SECRET).exchange(CODE, VERIFIER)
    words(caught.value)
    assert len(mocked.calls) == 1, "a code may not survive a second try"


# -- where the browser is sent -----------------------------------------------------------------------------------

DISCOVERY = {"issuer": "https://git.example", "authorization_endpoint": "https://git.example/login/oauth/authorize",
             "token_endpoint": "https://git.example/login/oauth/access_token"}  # fmt: skip


def test_the_authorize_endpoint_is_read_once_and_kept(mocked: responses.RequestsMock) -> None:
    mocked.get(ROOT + OPENID, json=DISCOVERY)
    provider = oauth()
    assert provider.authorize_endpoint() == "https://git.example/login/oauth/authorize"  # Gitea's ROOT_URL's
    assert provider.authorize_endpoint() == "https://git.example/login/oauth/authorize"
    assert len(mocked.calls) == 1


@pytest.mark.parametrize(
    ("status", "answer"),
    [(404, {"body": "404 page not found", "content_type": "text/plain"}), (200, {"json": {"issuer": "x"}}),
     (200, {"json": {**DISCOVERY, "authorization_endpoint": "javascript:alert(1)"}}), (200, {"json": ["x"]}),
     (500, {"json": DISCOVERY})],
    ids=["404", "no-endpoint", "not-http", "array", "500"],
)  # fmt: skip
def test_no_provider_document_names_the_setting(
    mocked: responses.RequestsMock, status: int, answer: dict[str, Any]
) -> None:
    mocked.get(ROOT + OPENID, status=status, **answer)
    with pytest.raises(Unreadable) as caught:
        oauth().authorize_endpoint()
    assert "[oauth2] ENABLED = true" in words(caught.value) and f"with {status}" in str(caught.value)


def test_a_failed_discovery_is_not_kept(mocked: responses.RequestsMock) -> None:
    """Gitea's provider switched on after this server started is found without a restart."""
    mocked.get(ROOT + OPENID, status=404, body="404 page not found")
    mocked.get(ROOT + OPENID, json=DISCOVERY)
    provider = oauth()
    with pytest.raises(Unreadable):
        provider.authorize_endpoint()
    assert provider.authorize_endpoint() == DISCOVERY["authorization_endpoint"]
    assert len(mocked.calls) == 2


# -- the PKCE method a forge keeps on its consent page ------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "method"),
    [
        ("1.22.6", "S256"),  # plain is stored as the method there: no verifier passes (measured)
        ("1.23.5", "S256"),
        ("1.23.6", "plain"),  # go-gitea/gitea#33956 fixed
        ("1.25.4", "plain"),  # the consent page keeps plain only (measured)
        ("1.25.5", "S256"),  # GHSA-m5ch-ppfx-xv3v fixed: S256 kept too
        ("1.26.0", "S256"),
        ("11.0.3+gitea-1.22.0", "S256"),  # Forgejo before 12: not known, the method that works everywhere
        ("12.0.4+gitea-1.22.0", "plain"),  # Forgejo 12.0.4: the consent page's code read from source, as 1.25.4
        ("not a version", "plain"),  # unreadable: the newest Gitea verified (1.25)
    ],
)
def test_the_pkce_method_is_the_one_the_forge_keeps_for_a_consent_page_code(
    mocked: responses.RequestsMock, version: str, method: str
) -> None:
    mocked.get(ROOT + "/api/v1/version", json={"version": version})
    sign_in = oauth(SECRET)
    assert sign_in.pkce_method() == method
    assert sign_in.pkce_method() == method  # asked once
    assert len(mocked.calls) == 1 and "Authorization" not in mocked.calls[0].request.headers
