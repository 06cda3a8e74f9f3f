"""Sign-in discovery (issue 24, first step): the two metadata documents, the 401 challenge naming them, and
nothing of the flow served yet. In process, through the same app HTTP mode serves.

The documents are compared whole with `golden/`; regenerate deliberately with `UPDATE_GOLDEN=1 pytest
tests/server/test_discovery.py` and review the diff.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gitea_mcp.server import http
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from tests.support.toolsets import with_other_toolsets

GOLDEN = Path(__file__).parent / "golden"
KEY = base64.urlsafe_b64encode(bytes(32)).decode()
PUBLIC = "https://mcp.example.com"
PLAIN = {"url": "http://127.0.0.1:9", "allowed_owners": frozenset({"acme"}), "transport": "http"}
SIGNIN = {**PLAIN, "public_url": PUBLIC + "/", "oauth_client_id": "5b2c3e9a-0f1d-4c7e-9a8b-2d6f1e0c4b3a",
          "oauth_key": KEY, "allowed_hosts": ("mcp.example.com",)}  # fmt: skip
RESOURCE = "/.well-known/oauth-protected-resource"
AUTHORITY = "/.well-known/oauth-authorization-server"
REALM = 'Bearer realm="gitea-mcp"'
NAMED = f'{REALM}, resource_metadata="{PUBLIC}{RESOURCE}/mcp"'


def _client(**settings: object) -> TestClient:
    configured = Settings.model_validate(settings)
    base = PUBLIC if configured.signin else "http://127.0.0.1:8000"
    return TestClient(http.app(build_server(configured), configured), base_url=base)


@pytest.fixture(scope="module")
def signin() -> TestClient:
    return _client(**SIGNIN)


def _golden(name: str, document: object) -> None:
    path = GOLDEN / f"{name}.json"
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed; UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (RESOURCE + "/mcp", "protected_resource"),
        (RESOURCE, "protected_resource"),  # the root document too, for clients that ask there
        (AUTHORITY, "authorization_server"),
    ],
)
def test_the_documents_need_no_token(signin: TestClient, path: str, name: str) -> None:
    answer = signin.get(path)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    _golden(name, answer.json())


def test_read_only_offers_only_the_read_scopes() -> None:
    answer = _client(**SIGNIN, read_only=True).get(RESOURCE + "/mcp").json()
    assert answer["scopes_supported"] == ["read:issue"]  # what the read tools declare (toolkit/scopes.py)


def test_the_scopes_offered_are_those_of_the_toolsets_served(monkeypatch: pytest.MonkeyPatch) -> None:
    with_other_toolsets(monkeypatch)  # labels: one read tool, needing read:issue alone
    answer = _client(**SIGNIN, toolsets=("labels",)).get(RESOURCE + "/mcp").json()
    assert answer["scopes_supported"] == ["read:issue"]


def test_the_documents_agree_with_each_other_and_the_mcp_client(signin: TestClient) -> None:
    """What the SDK's own OAuth client will check: the resource is this /mcp, its authority is this issuer."""
    resource, authority = signin.get(RESOURCE + "/mcp").json(), signin.get(AUTHORITY).json()
    assert resource["resource"] == f"{PUBLIC}/mcp" and resource["authorization_servers"] == [authority["issuer"]]
    assert authority["issuer"] == PUBLIC and authority["scopes_supported"] == resource["scopes_supported"]


METHODS = [("/token", 405, 400), ("/register", 405, 400), ("/callback", 400, 405)]


@pytest.mark.parametrize(("path", "get", "post"), METHODS)
def test_the_endpoints_are_served_by_their_methods(signin: TestClient, path: str, get: int, post: int) -> None:
    assert (signin.get(path).status_code, signin.post(path).status_code) == (get, post)


def test_this_server_is_no_openid_provider(signin: TestClient) -> None:
    assert signin.get("/.well-known/openid-configuration").status_code == 404


@pytest.mark.parametrize("path", [RESOURCE, RESOURCE + "/mcp", AUTHORITY])
def test_without_sign_in_there_is_no_discovery(path: str) -> None:
    assert _client(**PLAIN).get(path).status_code == 404


@pytest.mark.parametrize("path", [RESOURCE + "/mcp", AUTHORITY])
def test_the_documents_pass_the_host_allowlist(signin: TestClient, path: str) -> None:
    answer = signin.get(path, headers={"Host": "evil.example"})
    assert answer.status_code == 421 and "GITEA_MCP_ALLOWED_HOSTS" in answer.json()["error"]


@pytest.mark.parametrize(("settings", "challenge"), [(SIGNIN, NAMED), (PLAIN, REALM)], ids=["sign-in", "no-sign-in"])
def test_a_request_without_a_token_is_told_where_to_sign_in(settings: dict[str, object], challenge: str) -> None:
    answer = _client(**settings).post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert answer.status_code == 401 and answer.headers["WWW-Authenticate"] == challenge


def test_the_startup_line_says_where_users_sign_in() -> None:
    line = http.startup_line(Settings.model_validate(SIGNIN), 8000)
    assert f"auth: sign-in at {PUBLIC} (tokens this server issues), or each request's own Gitea token" in line
    assert "; sign-in: 16 requests at once, 4 per address; rates: " in line
