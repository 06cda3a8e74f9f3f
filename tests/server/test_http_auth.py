"""Streamable HTTP's gate: exactly one well-formed credential, read one way by the gate and by the tools."""

from __future__ import annotations

import pytest
import responses
from pydantic import SecretStr
from starlette.testclient import TestClient

from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import Unauthorized
from gitea_mcp.server.http import Credential, RequireToken, credential
from gitea_mcp.settings import Settings
from tests.support.gitea_json import API, ROOT

TOKEN = "4f0c6d5e8a7b9c1d2e3f405162738495a6b7c8d9"
SETTINGS = Settings(
    url="https://gitea.test", token=SecretStr("server-token"), allowed_owners=frozenset({"acme"}),
    transport="http", http_secret=SecretStr("ops-secret"),
)  # fmt: skip
LOCAL = "http://127.0.0.1:8000"  # a Host the loopback allowlist accepts
ONE = "send exactly one credential: 'Authorization: Bearer <your Gitea token>'"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        pytest.param([("Authorization", f"Bearer {TOKEN}")], Credential(TOKEN, bearer=True), id="bearer"),
        pytest.param([("authorization", f"token {TOKEN}")], Credential(TOKEN, bearer=True), id="gitea-scheme"),
        pytest.param([("X-Gitea-MCP-Secret", "ops-secret")], Credential("server-token"), id="secret"),
        pytest.param([], Credential(None, f"{ONE}, or the operator's secret in X-Gitea-MCP-Secret"), id="none"),
        pytest.param(
            [("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer other")],
            Credential(None, f"{ONE}, or the operator's secret in X-Gitea-MCP-Secret"),
            id="two-authorizations",
        ),
        pytest.param(
            [("Authorization", f"Bearer {TOKEN}"), ("X-Gitea-MCP-Secret", "ops-secret")],
            Credential(None, f"{ONE}, or the operator's secret in X-Gitea-MCP-Secret"),
            id="token-and-secret",
        ),
        pytest.param(
            [("Authorization", "Bearer abc def")], Credential(None, f"malformed Authorization header: {ONE}"),
            id="space-inside",
        ),
        pytest.param([("Authorization", "Bearer")], Credential(None, f"malformed Authorization header: {ONE}"),
                     id="empty"),
        pytest.param([("Authorization", f"Basic {TOKEN}")], Credential(None, f"malformed Authorization header: {ONE}"),
                     id="basic"),
        pytest.param([("Authorization", "Bearer k\u212a")], Credential(None, f"malformed Authorization header: {ONE}"),
                     id="kelvin-sign-folds-to-k"),
        pytest.param([("Authorization", f"BeArEr {TOKEN}")], Credential(TOKEN, bearer=True), id="scheme-any-case"),
        pytest.param(
            [("X-Gitea-MCP-Secret", "guess")],
            Credential(None, "wrong or unconfigured operator secret (X-Gitea-MCP-Secret)"),
            id="wrong-secret-never-forwarded",
        ),
    ],
)  # fmt: skip
def test_credential(headers: list[tuple[str, str]], expected: Credential) -> None:
    assert credential(headers, SETTINGS) == expected


def test_the_secret_header_means_nothing_without_a_configured_secret() -> None:
    plain = SETTINGS.model_copy(update={"http_secret": None})
    assert credential([("X-Gitea-MCP-Secret", "ops-secret")], plain).token is None


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
