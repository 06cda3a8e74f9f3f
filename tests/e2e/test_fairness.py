"""One caller cannot hold the server: the real HTTP server process, a slow stand-in, two tokens (issue 23, 3).

Caller A (the demo token) sends many calls to a repository whose every request the stand-in answers slowly;
caller B (alice) reads another repository, answered at once. B's call must not wait for A's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
import requests

from gitea_mcp.gitea.client import WORKERS
from gitea_mcp.settings import Settings
from gitea_mcp.standin import ALICE_TOKEN, DEMO_TOKEN, Fault, StandIn
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http import PROTOCOL, call
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow

SLOW = 4.0  # seconds the stand-in takes for each request to A's repository
A_READS = {"owner": "acme", "name": "widgets", "number": 1}
B_READS = {"owner": "acme", "name": "gadgets", "number": 1}


def _slow(forge: StandIn) -> None:
    forge.inject(Fault("delay", path_contains="/repos/acme/widgets/", seconds=SLOW, times=10_000))


def _send(base: str, token: str, timeout: float) -> dict[str, Any] | None:
    """A's call as a client that gives up after `timeout` (None then): the test never waits out A's calls."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "issue_get", "arguments": A_READS}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL}
    try:
        response = requests.post(
            f"{base}/mcp", json=body, headers={**headers, "Authorization": f"Bearer {token}"}, timeout=timeout
        )
    except requests.RequestException:
        return None
    if response.status_code != 200:  # the server's request cap: 503, retry shortly
        return None
    result: dict[str, Any] = response.json()["result"]
    return result


@pytest.fixture
def slow_server(forge: StandIn, request: pytest.FixtureRequest) -> Iterator[HttpServer]:
    env: dict[str, str] = getattr(request, "param", {})
    server = HttpServer({"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme", **env})
    try:
        call(server.url, "issue_get", B_READS, ALICE_TOKEN)  # warm: imports, the first connection
        _slow(forge)
        yield server
    finally:
        forge.clear_faults()  # what A still has queued is answered at once, so the server stops within its grace
        server.stop()


def _arrived(forge: StandIn, sent: list[Future[Any]]) -> None:
    """Until A's burst is in: as many of its reads at the slow repository as Gitea workers take (or the whole
    burst, if smaller), and, for a burst beyond one user's share of the request slots, A turned away at least
    once (503, answered at once): the cap is reached. How many are turned away depends on when the server learns
    whose the token is (fair share keys on the forge user), so the count is not asked. The rest wait for their
    turn inside the server, which nothing outside it can see."""
    burst = len(sent)
    some_turned_away = burst > ONE_USERS_SHARE

    def settled() -> bool:
        reads = sum("/repos/acme/widgets/" in r.path for r in list(forge.requests))
        return reads >= min(burst, WORKERS) and any(future.done() for future in sent) >= some_turned_away

    # Within A's clients' patience (SLOW + 2): a loaded machine may take longer than one slow read to let
    # 45 calls in, and a call that gave up would count as turned away.
    wait_until(settled, SLOW + 1.5, f"A's burst of {burst} calls settling in")


# The request slots one user may hold (server.http: all but the last quarter), the rest are answered 503 at once.
_MOST: int = Settings.model_fields["max_requests"].default
ONE_USERS_SHARE = _MOST - _MOST // 4


def _burst(pool: ThreadPoolExecutor, base: str, count: int, timeout: float) -> list[Future[dict[str, Any] | None]]:
    return [pool.submit(_send, base, DEMO_TOKEN, timeout) for _ in range(count)]


def _timed_b(base: str) -> tuple[float, dict[str, Any]]:
    began = time.monotonic()
    result = call(base, "issue_get", B_READS, ALICE_TOKEN)
    return time.monotonic() - began, result


@pytest.mark.parametrize("burst", [16, 45])
def test_another_callers_instant_call_does_not_wait_for_a_slow_burst(
    forge: StandIn, slow_server: HttpServer, burst: int
) -> None:
    """16 slow calls took every Gitea worker, 45 every tool thread: B's call waited about as long as A's."""
    with ThreadPoolExecutor(max_workers=burst) as pool:
        sent = _burst(pool, slow_server.url, burst, timeout=SLOW + 2)
        _arrived(forge, sent)
        took, result = _timed_b(slow_server.url)
        health = requests.get(f"{slow_server.url}/healthz", timeout=5).status_code
        for future in sent:
            future.result()
    assert not result.get("isError") and result["structuredContent"]["number"] == 1
    assert took < 2.0, f"B waited {took:.1f} s behind A's {burst} calls (each {SLOW:g} s)"
    assert health == 200


@pytest.mark.parametrize(
    "slow_server", [{"GITEA_MCP_CALLS_PER_TOKEN": "2", "GITEA_TIMEOUT": "2"}], indirect=True, ids=["cap-2"]
)
def test_a_caller_over_its_cap_is_told_the_server_is_busy(forge: StandIn, slow_server: HttpServer) -> None:
    """A's third call waits one GITEA_TIMEOUT (2 s) for one of A's two slots, then is refused in one sentence;
    B, meanwhile, is served at once."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        running = _burst(pool, slow_server.url, 2, timeout=30)
        _arrived(forge, running)  # both of A's slots taken
        began = time.monotonic()
        third = _send(slow_server.url, DEMO_TOKEN, timeout=30)
        refused_after = time.monotonic() - began
        took, b = _timed_b(slow_server.url)
        for future in running:
            future.result()
    assert third is not None and third.get("isError") is True
    assert third["content"][0]["text"] == (
        "gitea_mcp is busy with 2 calls of this user already (at most 2 run at once per user, all its tokens "
        "together), so this call was not started and nothing was sent; try again in a few seconds."
    )
    assert 1.5 < refused_after < 4.0, f"refused after {refused_after:.1f} s"
    assert not b.get("isError") and took < 2.0
