"""Streamable HTTP's gate: exactly one well-formed credential, read one way by the gate and by the tools."""

from __future__ import annotations

import pytest
import responses
from pydantic import SecretStr
from starlette.testclient import TestClient

from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import Unauthorized
from gitea_mcp.server.credentials import Credential, credential
from gitea_mcp.server.http import RequireToken
from gitea_mcp.settings import Settings
from tests.support.gitea_json import API, ROOT

TOKEN = "4f0c6d5e8a7b9c1d2e3f405162738495a6b7c8d9"
SETTINGS = Settings(
    url="https://gitea.test", token=SecretStr("server-token"), allowed_owners=frozenset({"acme"}),
    transport="http", http_secret=SecretStr("ops-secret"),
)  # fmt: skip
LOCAL = "http://127.0.0.1:8000"  # a Host the loopback allowlist accepts
ONE = "send exactly one credential: 'Authorization: Bearer <your Gitea token>'"


PLAIN = SETTINGS.model_copy(update={"http_secret": None})  # no operator secret: its header is no way in
MALFORMED_SAID = f"malformed Authorization header: {ONE}"
WITH_SECRET = f"{ONE}, or the operator's secret in X-Gitea-MCP-Secret"
NO_SECRET = f"{ONE}; this server takes no operator secret"


@pytest.mark.parametrize(
    ("settings", "headers", "expected"),
    [
        pytest.param(SETTINGS, [("Authorization", f"Bearer {TOKEN}")], Credential(TOKEN, bearer=True), id="bearer"),
        pytest.param(SETTINGS, [("authorization", f"token {TOKEN}")], Credential(TOKEN, bearer=True),
                     id="gitea-scheme"),
        pytest.param(SETTINGS, [("X-Gitea-MCP-Secret", "ops-secret")], Credential("server-token"), id="secret"),
        pytest.param(SETTINGS, [], Credential(None, WITH_SECRET), id="none"),
        pytest.param(
            SETTINGS, [("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer other")],
            Credential(None, WITH_SECRET), id="two-authorizations",
        ),
        pytest.param(
            SETTINGS, [("Authorization", f"Bearer {TOKEN}"), ("X-Gitea-MCP-Secret", "ops-secret")],
            Credential(None, WITH_SECRET), id="token-and-secret",
        ),
        pytest.param(
            SETTINGS, [("Authorization", "Bearer abc def")], Credential(None, MALFORMED_SAID),
            id="space-inside",
        ),
        pytest.param(SETTINGS, [("Authorization", "Bearer")], Credential(None, MALFORMED_SAID),
                     id="empty"),
        pytest.param(SETTINGS, [("Authorization", f"Basic {TOKEN}")],
                     Credential(None, MALFORMED_SAID), id="basic"),
        pytest.param(SETTINGS, [("Authorization", "Bearer k\u212a")],
                     Credential(None, MALFORMED_SAID), id="kelvin-sign-folds-to-k"),
        pytest.param(SETTINGS, [("Authorization", f"BeArEr {TOKEN}")], Credential(TOKEN, bearer=True),
                     id="scheme-any-case"),
        pytest.param(SETTINGS, [("X-Gitea-MCP-Secret", "guess")],
                     Credential(None, "wrong operator secret (X-Gitea-MCP-Secret)"), id="wrong-secret-never-forwarded"),
        # Without a secret set, no 401 names its header: it is no way in here.
        pytest.param(PLAIN, [], Credential(None, ONE), id="no-secret-set:none"),
        pytest.param(PLAIN, [("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer other")],
                     Credential(None, ONE), id="no-secret-set:two-authorizations"),
        pytest.param(PLAIN, [("X-Gitea-MCP-Secret", "ops-secret")], Credential(None, NO_SECRET),
                     id="no-secret-set:secret-sent"),
        pytest.param(PLAIN, [("Authorization", f"Bearer {TOKEN}"), ("X-Gitea-MCP-Secret", "ops-secret")],
                     Credential(None, NO_SECRET), id="no-secret-set:token-and-secret"),
        pytest.param(PLAIN, [("Authorization", "Bearer a b")], Credential(None, MALFORMED_SAID),
                     id="no-secret-set:malformed"),
        pytest.param(PLAIN, [("Authorization", f"Bearer {TOKEN}")], Credential(TOKEN, bearer=True),
                     id="no-secret-set:bearer"),
    ],
)  # fmt: skip
def test_credential(settings: Settings, headers: list[tuple[str, str]], expected: Credential) -> None:
    assert credential(headers, settings) == expected


NONE: list[tuple[str, str]] = []
MALFORMED = [("Authorization", "Bearer a b")]
GUESS = [("X-Gitea-MCP-Secret", "guess")]
BOTH = [("Authorization", f"Bearer {TOKEN}"), ("X-Gitea-MCP-Secret", "guess")]


@pytest.mark.parametrize(
    ("settings", "headers", "named"),
    [
        pytest.param(SETTINGS, NONE, True, id="secret-set:none"),
        pytest.param(SETTINGS, MALFORMED, False, id="secret-set:malformed"),  # about the Authorization header
        pytest.param(SETTINGS, GUESS, True, id="secret-set:wrong-secret"),
        pytest.param(SETTINGS, BOTH, True, id="secret-set:token-and-secret"),
        pytest.param(PLAIN, NONE, False, id="no-secret-set:none"),
        pytest.param(PLAIN, MALFORMED, False, id="no-secret-set:malformed"),
        pytest.param(PLAIN, GUESS, False, id="no-secret-set:secret-sent"),
        pytest.param(PLAIN, BOTH, False, id="no-secret-set:token-and-secret"),
    ],
)
def test_a_401_names_the_secret_header_only_where_a_secret_is_set(
    settings: Settings, headers: list[tuple[str, str]], named: bool
) -> None:
    """Through the gate, as a client reads it: the 401's body and its challenge."""
    answer = TestClient(RequireToken(_ok, settings), base_url=LOCAL).post("/mcp", headers=headers)
    assert answer.status_code == 401
    assert ("X-Gitea-MCP-Secret" in answer.text + answer.headers["WWW-Authenticate"]) is named, answer.text


def test_the_secret_header_means_nothing_without_a_configured_secret() -> None:
    assert credential([("X-Gitea-MCP-Secret", "ops-secret")], PLAIN).token is None


async def _ok(scope: object, receive: object, send: object) -> None:
    from starlette.responses import PlainTextResponse

    await PlainTextResponse("reached")(scope, receive, send)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "headers", "status"),
    [
        ("POST", [("Authorization", f"Bearer {TOKEN}")], 200),
        ("POST", [("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer x")], 401),
        ("POST", [("Authorization", "Bearer a b")], 401),
        ("POST", [], 401),
        ("GET", [("Authorization", f"Bearer {TOKEN}")], 405),
        ("DELETE", [("Authorization", f"Bearer {TOKEN}")], 405),
    ],
)
def test_the_gate(method: str, headers: list[tuple[str, str]], status: int) -> None:
    client = TestClient(RequireToken(_ok, SETTINGS), base_url=LOCAL)
    response = client.request(method, "/mcp", headers=headers)
    assert response.status_code == status
    if status == 200:
        assert response.text == "reached"


@pytest.mark.parametrize(
    ("bearer", "signed_in", "phrase"),
    [(True, False, "Authorization header"), (False, False, "Set GITEA_TOKEN"), (True, True, "sign in again")],
)
def test_a_refused_token_is_said_to_whoever_sent_it(
    mocked: responses.RequestsMock, bearer: bool, signed_in: bool, phrase: str
) -> None:
    """Over HTTP the token is the caller's: a 401 tells them what to send, not the operator what to set; a signed-in
    caller (a grant revoked in Gitea) is told to sign in again, not to send a token they never held."""
    mocked.get(f"{API}/user", status=401, json={"message": "invalid username, password or token"})
    retry = RetryPolicy(attempts=1)
    client = GiteaClient(ROOT, None, timeout=5, retry=retry).with_token("wrong", bearer=bearer, signed_in=signed_in)
    with pytest.raises(Unauthorized) as refused:
        client.get(["user"])
    assert phrase in str(refused.value) and ("GITEA_TOKEN" in str(refused.value)) is not bearer
    assert ("Authorization header" in str(refused.value)) is (bearer and not signed_in)
