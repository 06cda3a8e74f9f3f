"""A real redis-server of the test's own on 127.0.0.1: a free port, a password, no persistence, stopped by its
pid. Skipped, saying why, where Debian's redis-server is not installed (CI has none). Tests using it start a
process, so they are marked slow."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import free_port, stop

PASSWORD = "replica-guard-pw-7"
REDIS_SERVER = shutil.which("redis-server")
STARTS_WITHIN = 10.0  # seconds


@dataclass
class RedisServer:
    url: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        stop(self.process, 5)


@contextmanager
def redis_server(directory: Path) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server): the real-Redis tests need it")
    import redis

    port = free_port()
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    command += ["--requirepass", PASSWORD, "--dir", str(directory)]
    server = RedisServer(
        f"redis://:{PASSWORD}@127.0.0.1:{port}/0",
        subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    )
    try:
        client = redis.Redis(port=port, password=PASSWORD, socket_timeout=1)
        deadline = time.monotonic() + STARTS_WITHIN
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert server.process.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        client.close()
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """The URL of a redis-server started for this test alone (GITEA_MCP_REDIS_URL's form, password included)."""
    with redis_server(tmp_path) as server:
        yield server.url
