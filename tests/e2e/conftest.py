"""End-to-end: the real server process, the real MCP protocol, real HTTP to the Gitea stand-in."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import pytest
import requests
from mcp_types import CallToolResult, TextContent

from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.stdio_client import stdio_session


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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class HttpServer:
    """`python -m gitea_mcp serve --transport http` as a subprocess on a free loopback port."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "gitea_mcp", "serve", "--transport", "http", "--port", str(self.port)]
        self.process = subprocess.Popen(
            command, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/healthz", timeout=1).ok:
                    return
            except requests.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("HTTP server did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
