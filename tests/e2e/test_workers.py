"""--workers: one port, several processes serving it, all stopped by one SIGTERM (gitea_mcp.server.workers)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gitea_mcp.server.http import GRACE
from gitea_mcp.server.workers import MARGIN
from gitea_mcp.standin import StandIn
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http import call
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow  # bounded by its own waits (at most some 20 s)
CALLS = 40


@pytest.fixture
def server(forge: StandIn) -> Iterator[HttpServer]:
    env = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme,demo"}
    started = HttpServer(env, args=("--workers", "2", "--read-only"))
    yield started
    started.stop()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_calls_spread_over_the_workers_and_one_sigterm_stops_them_all(server: HttpServer) -> None:
    workers = server.children()
    assert len(workers) == 2
    before = {pid: cpu_seconds(pid) for pid in workers}
    arguments = {"owner": "acme", "name": "widgets", "limit": 5}
    # Each call its own connection (requests.post without a session): the kernel hands each to one worker.
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: call(server.url, "issue_list", arguments), range(CALLS)))
    assert len(answers) == CALLS and not any(answer.get("isError") for answer in answers)
    used = {pid: cpu_seconds(pid) - before[pid] for pid in workers}
    assert all(seconds >= 0.05 for seconds in used.values()), f"a worker served nothing: {used}"
    assert sum(1 for line in server.err if "serving MCP" in line) == 1, "the start-up line once"

    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=GRACE + MARGIN + 5)
    assert time.monotonic() - started < GRACE + MARGIN + 1
    assert server.process.returncode == 128 + signal.SIGTERM
    assert all(gone(pid) for pid in workers), "no worker left behind"


def test_a_worker_that_dies_is_said_and_the_other_serves(server: HttpServer) -> None:
    first, second = server.children()
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: any(f"worker process {first}" in line for line in server.err), 10, "the death said")
    said = [line for line in server.err if f"worker process {first}" in line]
    assert said == [
        f"gitea-issues-mcp: worker process {first} was killed by signal 9; 1 still serving; it is not restarted\n"
    ]
    assert server.children() == [second]
    for _ in range(5):
        assert not call(server.url, "issue_list", {"owner": "acme", "name": "widgets", "limit": 1}).get("isError")
