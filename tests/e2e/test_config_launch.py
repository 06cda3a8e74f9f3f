"""What `config CLIENT` writes, launched as the client launches it: its command, its arguments, only the environment
the file names (the token put where the client puts it) and a GUI client's short PATH. The settings it carried
must take effect: written with --read-only, the server offers only the read tools.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from gitea_mcp.cli import client_entries
from gitea_mcp.cli.stdio_client import stdio_session
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit import registry

pytestmark = pytest.mark.slow

READ_TOOLS = [spec.name for spec in registry.offered(read_only=True)]
SHORT_PATH = "/usr/bin:/bin"  # what macOS gives an app started from the Dock; a Linux desktop's is no longer


@pytest.fixture(scope="module")
def forge() -> Iterator[str]:
    with StandIn() as running:
        yield running.url


def written_entry(client: str, *argv: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "gitea_mcp", "config", client, *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if client == "codex":
        return dict(tomllib.loads(done.stdout)["mcp_servers"]["gitea"])
    table = {"vscode": "servers", "zed": "context_servers"}.get(client, "mcpServers")  # each client's own key
    return dict(json.loads(done.stdout)[table]["gitea"])


def client_environment(entry: dict[str, Any]) -> dict[str, str]:
    """The environment the client gives the server: the file's, with its token reference filled in (Codex forwards
    the variables it names from its own environment)."""
    env = {key: str(value) for key, value in entry["env"].items()}
    env.update({name: DEMO_TOKEN for name in entry.get("env_vars", [])})
    if client_entries.TOKEN_ENV in env:
        env[client_entries.TOKEN_ENV] = DEMO_TOKEN
    return {**env, "PATH": SHORT_PATH}


@pytest.mark.parametrize("client", client_entries.CLIENTS)
def test_written_configuration_launches_with_its_settings(client: str, forge: str) -> None:
    entry = written_entry(client, "--url", forge, "--allowed-owners", "acme", "--read-only", "--timeout", "7")
    env = client_environment(entry)
    assert env["GITEA_READ_ONLY"] == "true" and env["GITEA_TIMEOUT"] == "7"

    async def tools() -> list[str]:
        async with stdio_session(env, command=[entry["command"], *entry["args"]], cwd=os.path.expanduser("~")) as s:
            listed = [tool.name for tool in (await s.list_tools()).tools]
            answer = await s.call_tool("issue_get", {"owner": "acme", "name": "widgets", "number": 320})
            assert not answer.is_error, answer.content
            return listed

    assert anyio.run(tools) == READ_TOOLS
