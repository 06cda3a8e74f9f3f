"""POST /register through the app HTTP mode serves: a body that is not the client's metadata is one JSON refusal
(RFC 7591 §3.2.2), whatever it is, never a server error."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from gitea_mcp.server import http
from gitea_mcp.server.app import build_server
from gitea_mcp.server.signin.clients import MAX_METADATA
from gitea_mcp.settings import Settings

PUBLIC = "https://mcp.example.com"
SIGNIN = {"url": "http://127.0.0.1:9", "allowed_owners": frozenset({"acme"}), "transport": "http",
          "public_url": PUBLIC + "/", "oauth_client_id": "5b2c3e9a-0f1d-4c7e-9a8b-2d6f1e0c4b3a",
          "oauth_key": base64.urlsafe_b64encode(bytes(32)).decode(), "allowed_hosts": ("mcp.example.com",)}  # fmt: skip


@pytest.fixture(scope="module")
def app() -> Iterator[TestClient]:
    settings = Settings.model_validate(SIGNIN)
    with TestClient(http.app(build_server(settings), settings), base_url=PUBLIC, raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize(
    ("body", "error", "said"),
    [
        (b"", "invalid_client_metadata", "at most"),
        (b"{" + b" " * MAX_METADATA + b"}", "invalid_client_metadata", "at most"),
        (b"not json", "invalid_client_metadata", "not JSON"),
        (b"\xff\xfe", "invalid_client_metadata", "not JSON"),
        (b"[" * (MAX_METADATA - 10), "invalid_client_metadata", "not JSON"),  # deeper than Python's stack
        (b"[]", "invalid_client_metadata", "JSON object"),
        (b'{"redirect_uris": ["javascript:alert(1)"]}', "invalid_redirect_uri", "a browser would run"),
    ],
    ids=["empty", "oversize", "not-json", "not-utf8", "deep", "array", "bad-redirect"],
)
def test_a_body_that_is_not_metadata_is_refused_in_json(app: TestClient, body: bytes, error: str, said: str) -> None:
    answer = app.post("/register", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == error and said in answer.json()["error_description"]


def test_good_metadata_is_registered(app: TestClient) -> None:
    answer = app.post("/register", json={"client_name": "App", "redirect_uris": ["http://127.0.0.1/cb"]})
    assert answer.status_code == 201 and answer.json()["client_id"].startswith("gmcp.c.")
