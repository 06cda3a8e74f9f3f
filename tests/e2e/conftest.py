"""End-to-end: the real server process, the real MCP protocol, real HTTP to the Gitea stand-in."""

from __future__ import annotations

import functools
import os
import re
import resource
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import requests
from mcp_types import CallToolResult, TextContent

from gitea_mcp.cli.stdio_client import stdio_session
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.support.processes import open_files, stop
from tests.support.waiting import wait_until


@pytest.fixture
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


def env_for(forge: StandIn, token: str = DEMO_TOKEN, **extra: str) -> dict[str, str]:
    return {"GITEA_URL": forge.url, "GITEA_TOKEN": token, "GITEA_ALLOWED_OWNERS": "acme,demo", **extra}


def over_stdio(env: dict[str, str], scenario: Callable[[Any], Awaitable[None]], *args: str) -> None:
    """Start `python -m gitea_mcp` with `env`, connect the official client, run the scenario."""

    async def main() -> None:
        async with stdio_session(env, args) as session:
            await scenario(session)

    anyio.run(main)


def text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


STARTED = re.compile(r"serving MCP \(streamable HTTP\) at http://127\.0\.0\.1:(\d+)/")


class HttpServer:
    """`python -m gitea_mcp serve --transport http --port 0` as a subprocess: the port is the one its start-up line
    names, so no other test can take it between choosing and binding (a free port chosen here could be)."""

    def __init__(self, env: dict[str, str], files: int | None = None, args: tuple[str, ...] = ()) -> None:
        """`files`: the open-files limit (`ulimit -n`) the server runs under; `args`: more flags for serve."""
        command = [sys.executable, "-m", "gitea_mcp", "serve", "--transport", "http", "--port", "0", *args]
        self.err: list[str] = []  # every stderr line, as it comes
        self.process = subprocess.Popen(
            command,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=None if files is None else functools.partial(_limit_files, files),
        )
        self.port = self._bound_port(timeout=20)
        self.url = f"http://127.0.0.1:{self.port}"
        assert requests.get(f"{self.url}/healthz", timeout=5).ok

    def _bound_port(self, timeout: float) -> int:
        assert self.process.stderr is not None
        found: list[int] = []

        def read() -> None:  # every line, start-up line and all, so the pipe never fills
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.err.append(line)
                if not found and (match := STARTED.search(line)):
                    found.append(int(match.group(1)))

        threading.Thread(target=read, daemon=True).start()
        try:
            wait_until(lambda: found or self.process.poll() is not None, timeout, "the HTTP server's start-up line")
        finally:
            if not found:
                self.stop()
        if not found:
            raise RuntimeError("HTTP server did not start")
        return found[0]

    def stop(self) -> None:
        stop(self.process)

    def status(self, field: str) -> int:
        """A number from /proc/PID/status, e.g. VmHWM (peak resident memory, kB)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
        raise KeyError(field)

    def cpu_seconds(self) -> float:
        """User and system CPU time the server has used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def children(self) -> list[int]:
        """The server's child processes (its workers, with --workers)."""
        found = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return [int(pid) for pid in found]

    def open_files(self) -> int:
        return open_files(self.process.pid, self.port)


def _limit_files(files: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
