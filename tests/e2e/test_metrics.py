"""Metrics and the audit log of the real server process: with two HTTP workers the metrics port serves their sum
and counts the workers alive (a dead one's calls stay counted), the audit file holds one whole line per call from
both; and over stdio the same port and log, the client named by its clientInfo."""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from gitea_mcp.server import metrics
from gitea_mcp.standin import StandIn
from tests.e2e.conftest import HttpServer, env_for, over_stdio
from tests.e2e.test_http import call
from tests.support.ports import reserved_port
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow  # processes started; bounded by their own waits
CALLS = 40
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
METRICS_AT = re.compile(r"Prometheus metrics at (http://127\.0\.0\.1:\d+/metrics)")


def scraped(url: str) -> Samples:
    text = requests.get(url, timeout=5).text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def ok_calls(samples: Samples) -> float:
    return samples.get((metrics.TOOL_CALLS, frozenset({("tool", "issue_list"), ("outcome", "ok")})), 0.0)


def alive(samples: Samples) -> float:
    return samples[(metrics.WORKERS_ALIVE, frozenset())]


@pytest.fixture
def workers(forge: StandIn, tmp_path: Path) -> Iterator[tuple[HttpServer, str, Path]]:
    log = tmp_path / "audit.log"
    env = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme,demo", "GITEA_MCP_AUDIT_LOG": str(log)}
    args = ("--workers", "2", "--read-only", "--metrics-port", "0")
    started = HttpServer(env, args=args)
    try:
        found = [match.group(1) for line in started.err if (match := METRICS_AT.search(line))]
        assert len(found) == 1, started.err
        yield started, found[0], log
    finally:
        started.stop()


def test_two_workers_are_one_target_their_sum_and_a_dead_ones_calls_stay_counted(
    workers: tuple[HttpServer, str, Path],
) -> None:
    server, url, log = workers
    arguments = {"owner": "acme", "name": "widgets", "limit": 2}
    with ThreadPoolExecutor(8) as pool:  # each call its own connection: the kernel spreads them over the workers
        answers = list(pool.map(lambda _: call(server.url, "issue_list", arguments), range(CALLS)))
    assert not any(answer.get("isError") for answer in answers)
    samples = scraped(url)
    assert ok_calls(samples) == CALLS and alive(samples) == 2
    assert sum(n for (name, _), n in samples.items() if name == metrics.FORGE_REQUESTS) >= CALLS

    written = log.read_text(encoding="ascii").splitlines()
    assert len(written) == CALLS, "one line a call, none lost or torn across the workers"
    assert {json.loads(line)["tool"] for line in written} == {"issue_list"}

    first, _ = server.children()
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: alive(scraped(url)) == 1, 10, "the dead worker no longer counted alive")
    assert ok_calls(scraped(url)) == CALLS, "its calls stay counted"


def test_stdio_serves_metrics_and_names_its_client_in_the_audit_log(forge: StandIn, tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    with reserved_port() as port:
        env = env_for(forge, GITEA_MCP_METRICS_PORT=str(port), GITEA_MCP_AUDIT_LOG=str(log))
        seen: Samples = {}

        async def scenario(session: Any) -> None:
            for _ in range(3):
                await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "limit": 1})
            seen.update(await anyio.to_thread.run_sync(scraped, f"http://127.0.0.1:{port}/metrics"))

        over_stdio({**os.environ, **env}, scenario)
    assert ok_calls(seen) == 3 and alive(seen) == 1
    lines = [json.loads(line) for line in log.read_text(encoding="ascii").splitlines()]
    assert [line["outcome"] for line in lines] == ["ok"] * 3
    assert lines[0]["client"] and "python-requests" not in lines[0]["client"], "the clientInfo, not a User-Agent"
