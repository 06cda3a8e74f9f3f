"""A redis-server of its own on 127.0.0.1 (Debian's, from PATH): a password, no persistence, stopped by its pid.

Shared by the tests that run replicas against a real Redis; each caller skips, saying so, when `REDIS_SERVER` is
None (CI has no redis-server).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests.e2e.conftest import free_port

REDIS_SERVER = shutil.which("redis-server")
MISSING = "redis-server is not installed (apt-get install redis-server): the real-Redis tests need it"


@contextmanager
def running_redis(directory: Path, password: str) -> Iterator[str]:
    """The URL (GITEA_MCP_REDIS_URL) of a redis-server started for the caller and stopped after it."""
    assert REDIS_SERVER is not None, MISSING
    port = free_port()
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    command += ["--requirepass", password, "--dir", str(directory)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port, password=password, socket_timeout=1)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert process.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        client.close()
        yield f"redis://:{password}@127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
