"""Replicas sharing a real redis-server (GITEA_MCP_REDIS_URL): the same create sent to two at once files once.

Needs Debian's redis-server (apt-get install redis-server); without it these tests are skipped, saying so.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import pytest
import redis
from pydantic import SecretStr

from gitea_mcp.cli.check import check_guard
from gitea_mcp.redaction import redis_display
from gitea_mcp.settings import Settings
from gitea_mcp.standin import Fault, StandIn
from gitea_mcp.toolkit.shared_flight import RELEASE, Store
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http import call
from tests.support.fake_redis import FakeRedis
from tests.support.ports import refusing_port
from tests.support.redis_server import PASSWORD
from tests.support.results import rows_of
from tests.support.waiting import wait_until

TITLE = "Slow create, retried on another replica"


@pytest.fixture(params=["stand-in", "redis-server"])
def store(request: pytest.FixtureRequest) -> Store:
    if request.param == "stand-in":
        return FakeRedis()
    url: str = request.getfixturevalue("redis_url")
    # Decoded to str (decode_responses), as the guard's Store says; redis-py's types cover bytes too.
    return cast(Store, redis.Redis.from_url(url, decode_responses=True))


def test_the_unit_tests_stand_in_answers_as_redis_does(store: Store) -> None:
    """The contract the unit tests rely on, run against both: SET NX PX, GET, expiry, the release script."""
    key = "gitea-mcp:contract"
    assert store.set(key, "first", px=5_000, nx=True) is True
    assert store.set(key, "second", px=5_000, nx=True) is None, "held: nil"
    assert store.get(key) == "first"
    assert store.eval(RELEASE, 1, key, "second") == 0 and store.get(key) == "first", "only its holder lets go"
    assert store.eval(RELEASE, 1, key, "first") == 1 and store.get(key) is None
    assert store.set(key, "short", px=100, nx=True) is True
    wait_until(lambda: store.get(key) is None, 5, "the lease of 100 ms ending")
    assert store.set(key, "again", px=100, nx=True) is True
    assert store.ping() is True


def create_on_both(servers: list[HttpServer]) -> list[dict[str, Any]]:
    arguments = {"owner": "acme", "name": "widgets", "title": TITLE, "body": "Filed once, asked twice."}
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda server: call(server.url, "issue_create", arguments), servers))


def filed(forge: StandIn) -> int:
    with forge.store.lock:
        return sum(issue.title == TITLE for issue in forge.store.issues.values())


def replicas(forge: StandIn, **env: str) -> list[HttpServer]:
    settings = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme,demo", **env}
    started = [HttpServer(settings)]
    try:
        started.append(HttpServer(settings))
    except BaseException:
        started[0].stop()
        raise
    return started


def test_the_same_create_sent_to_two_replicas_at_once_files_one_issue(forge: StandIn, redis_url: str) -> None:
    forge.inject(Fault("delay", method="POST", path_contains="/issues", seconds=2.0, times=2))  # a slow create
    servers = replicas(forge, GITEA_MCP_REDIS_URL=redis_url)
    try:
        answers = create_on_both(servers)
    finally:
        for server in servers:
            server.stop()
    assert filed(forge) == 1
    assert [a.get("isError", False) for a in answers] == [False, False], answers
    first, second = answers
    assert first["structuredContent"] == second["structuredContent"], "both name the same issue"
    assert first["content"] == second["content"], "and say the same"
    assert sum(r.method == "POST" and r.path.endswith("/issues") for r in forge.requests) == 1


def test_without_the_shared_guard_the_two_replicas_file_twice(forge: StandIn) -> None:
    """What the guard is for: the same calls with no GITEA_MCP_REDIS_URL file two issues."""
    forge.inject(Fault("delay", method="POST", path_contains="/issues", seconds=2.0, times=2))
    servers = replicas(forge)
    try:
        answers = create_on_both(servers)
    finally:
        for server in servers:
            server.stop()
    assert filed(forge) == 2
    assert answers[0]["structuredContent"]["number"] != answers[1]["structuredContent"]["number"]


def test_redis_down_refuses_writes_in_one_sentence_and_reads_still_work(forge: StandIn) -> None:
    with refusing_port() as port:  # held, never listening: refused
        env = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_MCP_REDIS_URL": _url(port)}
        server = HttpServer(env)
        try:
            refused = call(server.url, "issue_create", {"owner": "acme", "name": "widgets", "title": TITLE, "body": ""})
            listed = call(server.url, "issue_list", {"owner": "acme", "name": "widgets", "limit": 1})
        finally:
            server.stop()
    assert refused["isError"] and refused["content"][0]["text"] == (
        f"The shared write guard at redis://127.0.0.1:{port} cannot be reached (no connection: refused, or no such "
        "host), so nothing was sent; check GITEA_MCP_REDIS_URL and the Redis server."
    )
    assert not any(r.method == "POST" for r in forge.requests), "nothing was sent to Gitea"
    assert not listed.get("isError") and rows_of(listed["structuredContent"])


def test_check_reports_the_guard_it_reaches_and_a_wrong_password(redis_url: str) -> None:
    settings = Settings(url="http://g.example", allowed_owners=frozenset({"acme"}), redis_url=SecretStr(redis_url))
    line = check_guard(settings)
    assert line.mark == "ok" and line.text.startswith(f"shared write guard at {redis_display(redis_url)} ")
    wrong = settings.model_copy(update={"redis_url": SecretStr(redis_url.replace(PASSWORD, "not-the-password"))})
    refused = check_guard(wrong)
    assert refused.mark == "fail" and "(it refused the URL's user or password)" in refused.text
    none = settings.model_copy(update={"redis_url": SecretStr(redis_url.replace(f":{PASSWORD}@", ""))})
    assert check_guard(none).mark == "fail"
    assert PASSWORD not in line.text + refused.text + refused.fix


def test_the_stdio_path_never_imports_redis() -> None:
    code = (
        "import sys; from gitea_mcp.settings import Settings; from gitea_mcp.server.app import build_server; "
        "build_server(Settings(url='http://g.example', allowed_owners=frozenset({'acme'}))); "
        "print('redis' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.strip() == "False"


def _url(port: int) -> str:
    return f"redis://:{PASSWORD}@127.0.0.1:{port}/0"
