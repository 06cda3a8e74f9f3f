"""A real redis-server of the test's own: on a unix socket (port 0 turns Redis's TCP off, and a port chosen ahead
could be taken by another test before Redis binds it), a password, no persistence, stopped by its pid. Skipped,
saying why, where Debian's redis-server is not installed (CI has none). Tests using it start a process, so they
are marked slow."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import stop
from tests.support.waiting import wait_until

PASSWORD = "replica-guard-pw-7"
REDIS_SERVER = shutil.which("redis-server")
STARTS_WITHIN = 10.0  # seconds


@dataclass
class RedisServer:
    url: str  # unix://:PASSWORD@/path/redis.sock?db=0, GITEA_MCP_REDIS_URL's form
    socket: Path
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        stop(self.process, 5)


@contextmanager
def redis_server(directory: Path) -> Iterator[RedisServer]:
    """`directory`: Redis's working directory. The socket lives in a short directory of its own: a unix socket's
    path is limited to 107 bytes, which a pytest tmp_path can exceed."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server): the real-Redis tests need it")
    with tempfile.TemporaryDirectory(prefix="redis-") as short:
        path = Path(short) / "redis.sock"
        command = [REDIS_SERVER, "--port", "0", "--unixsocket", str(path), "--unixsocketperm", "700"]
        command += ["--save", "", "--appendonly", "no", "--requirepass", PASSWORD, "--dir", str(directory)]
        server = RedisServer(
            f"unix://:{PASSWORD}@{path}?db=0",
            path,
            subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        )
        try:
            wait_until(lambda: _answers(server), STARTS_WITHIN, "redis-server answering on its unix socket")
            yield server
        finally:
            server.stop()


def _answers(server: RedisServer) -> bool:
    import redis

    assert server.process.poll() is None, f"redis-server ended (exit {server.process.returncode})"
    client = redis.Redis(unix_socket_path=str(server.socket), password=PASSWORD, socket_timeout=1)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
    finally:
        client.close()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """The URL of a redis-server started for this test alone (GITEA_MCP_REDIS_URL's form, password included)."""
    with redis_server(tmp_path) as server:
        yield server.url
