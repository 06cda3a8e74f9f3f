"""Streamable HTTP: stateless across replicas, a token on every request, Host checks, a bounded load test."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from gitea_mcp.standin import ALICE_TOKEN, DEMO_TOKEN, StandIn
from tests.e2e.conftest import HttpServer
from tests.support.results import rows_of

PROTOCOL = "2025-11-25"


def rpc(
    base: str, method: str, params: dict[str, Any] | None = None, token: str | None = DEMO_TOKEN, **headers: str
) -> requests.Response:
    sent = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL, **headers}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return requests.post(f"{base}/mcp", json=body, headers=sent, timeout=30)


def call(base: str, tool: str, arguments: dict[str, Any], token: str | None = DEMO_TOKEN) -> dict[str, Any]:
    response = rpc(base, "tools/call", {"name": tool, "arguments": arguments}, token)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


INIT = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}


@pytest.fixture
def servers(forge: StandIn) -> Iterator[list[HttpServer]]:
    env = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme,demo"}
    pair = [HttpServer(env), HttpServer(env)]
    yield pair
    for server in pair:
        server.stop()


def test_two_replicas_alternately(servers: list[HttpServer], forge: StandIn) -> None:
    a, b = (s.url for s in servers)
    assert rpc(a, "initialize", INIT).status_code == 200
    assert {t["name"] for t in rpc(b, "tools/list").json()["result"]["tools"]} >= {"issue_list", "issue_create"}
    created = call(a, "issue_create", {"owner": "acme", "name": "widgets", "title": "Filed via A", "body": "x"})
    number = created["structuredContent"]["number"]
    again = call(b, "issue_create", {"owner": "acme", "name": "widgets", "title": "Filed via A", "body": "x"})
    assert again["structuredContent"] == {**created["structuredContent"], "outcome": "already_existed"}
    got = call(a, "issue_get", {"owner": "acme", "name": "widgets", "number": number})
    assert got["structuredContent"]["title"] == "Filed via A"
    listed = call(b, "issue_list", {"owner": "acme", "name": "widgets", "limit": 1})
    assert rows_of(listed["structuredContent"])[0]["number"] == number


def test_each_request_acts_with_its_own_token(servers: list[HttpServer]) -> None:
    base = servers[0].url
    mine = call(base, "issue_create", {"owner": "acme", "name": "widgets", "title": "Alice's", "body": ""}, ALICE_TOKEN)
    assert mine["structuredContent"]["author"] == "alice"
    bad = rpc(base, "tools/call", {"name": "issue_list", "arguments": {"owner": "acme", "name": "widgets"}},
              "not-a-real-token")  # fmt: skip
    assert bad.status_code == 401 and "refused by Gitea" in bad.json()["error"], "refused at the gate, for the caller"


@pytest.mark.parametrize(
    ("kwargs", "status"),
    [
        pytest.param({"token": None}, 401, id="no-token"),
        pytest.param({"token": None, "Authorization": "Basic YWxpY2U6cHc="}, 401, id="wrong-scheme"),
        pytest.param({"Host": "evil.example"}, 421, id="bad-host"),
        pytest.param({"Origin": "http://evil.example"}, 403, id="bad-origin"),
    ],
)
def test_rejected_requests(servers: list[HttpServer], forge: StandIn, kwargs: dict[str, Any], status: int) -> None:
    kwargs = dict(kwargs)
    token = kwargs.pop("token", DEMO_TOKEN)
    response = rpc(servers[0].url, "tools/list", None, token, **kwargs)
    assert response.status_code == status, response.text
    assert forge.requests == []


def test_refused_owner_never_reaches_gitea(servers: list[HttpServer], forge: StandIn) -> None:
    result = call(servers[0].url, "issue_list", {"owner": "other", "name": "secret"})
    assert result["isError"] and "not allowed" in result["content"][0]["text"]
    assert [r.path for r in forge.requests] == ["/api/v1/user"], "only the gate's check of the token"


def test_server_token_only_behind_the_secret(forge: StandIn) -> None:
    env = {
        "GITEA_URL": forge.url,
        "GITEA_ALLOWED_OWNERS": "acme",
        "GITEA_TOKEN": DEMO_TOKEN,
        "GITEA_MCP_HTTP_SECRET": "s3cret-for-ops",
    }
    server = HttpServer(env)
    create = {"name": "issue_create", "arguments": {"owner": "acme", "name": "widgets", "title": "ops", "body": ""}}
    try:
        unlocked = rpc(server.url, "tools/call", create, None, **{"X-Gitea-MCP-Secret": "s3cret-for-ops"})
        assert unlocked.json()["result"]["structuredContent"]["author"] == "demo"
        forge.clear_requests()
        guessed = rpc(server.url, "tools/call", create, None, **{"X-Gitea-MCP-Secret": "wrong-secret"})
        assert guessed.status_code == 401 and "wrong operator secret (X-Gitea-MCP-Secret)" in guessed.text
        as_token = rpc(server.url, "tools/call", create, "s3cret-for-ops")
        assert as_token.status_code == 401, "the secret is no token: sent as a bearer it is just a wrong Gitea token"
        assert all(r.authorized_as is None for r in forge.requests), "a wrong secret never acts as anyone"
        assert rpc(server.url, "tools/list", token=None).status_code == 401
    finally:
        server.stop()


def test_stateless_get_is_refused_at_once(servers: list[HttpServer]) -> None:
    """A GET would open a server-to-client stream that a stateless server never uses, held open indefinitely."""
    started = time.monotonic()
    response = requests.get(f"{servers[0].url}/mcp", headers={"Authorization": f"Bearer {DEMO_TOKEN}"}, timeout=10)
    assert response.status_code == 405 and response.headers["Allow"] == "POST"
    assert time.monotonic() - started < 5


@pytest.fixture
def unlimited(forge: StandIn) -> Iterator[list[HttpServer]]:
    """Two replicas without the per-user limit and the forge budget: one token's 640 calls in 4 s is a load test
    here, where in use it is one runaway user (tests/e2e/test_limits.py)."""
    env = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme,demo", **NO_RATE_LIMITS}
    pair = [HttpServer(env), HttpServer(env)]
    yield pair
    for server in pair:
        server.stop()


NO_RATE_LIMITS = {"GITEA_MCP_CALLS_PER_MINUTE": "0", "GITEA_MCP_FORGE_REQUESTS_PER_MINUTE": "0"}


def test_bounded_load_32_clients(unlimited: list[HttpServer]) -> None:
    """32 concurrent clients over two replicas for at most a few seconds: zero errors."""
    targets = itertools.cycle(s.url for s in unlimited)
    urls = [next(targets) for _ in range(32)]
    deadline = time.monotonic() + 4

    def client(base: str) -> tuple[int, int]:
        done = errors = 0
        while time.monotonic() < deadline and done < 20:
            result = call(base, "issue_list", {"owner": "acme", "name": "widgets", "limit": 10})
            errors += bool(result.get("isError"))
            done += 1
        return done, errors

    with ThreadPoolExecutor(max_workers=32) as pool:
        outcomes = list(pool.map(client, urls))
    assert sum(e for _, e in outcomes) == 0
    assert all(done >= 1 for done, _ in outcomes)
