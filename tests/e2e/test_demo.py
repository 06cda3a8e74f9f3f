"""The newcomer's first command: `demo` runs a whole session out of the box; `demo --serve` serves MCP (stdio, HTTP)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from gitea_mcp.cli.demo import SCRIPT
from gitea_mcp.cli.main import INTERRUPTED
from gitea_mcp.standin import DEMO_TOKEN
from gitea_mcp.toolkit import registry
from tests.cli.process import Running
from tests.cli.test_demo import read_back
from tests.e2e.test_http import rpc

LOCAL = "http://127.0.0.1"
# The start-up line, from its start: where the server listens, on the port it was given (0: the one it got).
STARTED = re.compile(r"gitea-issues-mcp: serving MCP \(streamable HTTP\) at http://127\.0\.0\.1:(\d+)/mcp;")


def test_demo_runs_a_scripted_session_without_configuration() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITEA_")}
    done = subprocess.run(
        [sys.executable, "-m", "gitea_mcp", "demo"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"server up over stdio: {len(registry.every())} tools" in out  # every tool: the demo serves them all
    assert "acme/widgets issues (state=open): " in out
    assert "label 'bugz' does not exist in acme/widgets" in out
    assert "help: open it: issue_get owner=acme name=widgets number=215" in out
    assert "created: CSV export fails on an empty table" in out
    assert "already existed" in out
    assert "owner 'other' is not allowed" in out
    assert "Traceback" not in out + done.stderr
    # Every call it shows is a `call` command line: pasted after `gitea-issues-mcp call`, it makes the same call.
    shown = [read_back(line.removeprefix("→ ")) for line in out.splitlines() if line.startswith("→ ")]
    assert shown == [(tool, arguments) for tool, arguments, _ in SCRIPT]


def test_demo_serve_speaks_mcp_on_stdio() -> None:
    async def scenario() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "gitea_mcp", "demo", "--serve"], env={})
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("issue_get", {"owner": "acme", "name": "widgets", "number": 320})
                assert not result.is_error
                assert result.structured_content is not None
                assert result.structured_content["title"].startswith("Crash when opening the date picker")

    anyio.run(scenario)


def test_demo_serve_speaks_streamable_http() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITEA_")}
    argv = ["demo", "--serve", "--transport", "http", "--port", "0"]  # the port the start-up line names
    running = Running(argv, env)
    try:
        said = running.err_line()
        assert "over HTTP (each request sends 'Authorization: Bearer " in said
        started = STARTED.match(running.err_line())
        assert started is not None, "the start-up line names where it serves"
        port = int(started.group(1))
        call = {"name": "issue_get", "arguments": {"owner": "acme", "name": "widgets", "number": 320}}
        result = rpc(f"{LOCAL}:{port}", "tools/call", call, DEMO_TOKEN).json()["result"]
        assert result["structuredContent"]["title"].startswith("Crash when opening the date picker")
        assert running.signal(signal.SIGINT) == INTERRUPTED
        assert "Traceback" not in running.stderr()
    finally:
        running.kill()


def test_demo_into_a_reader_that_leaves_early_is_no_traceback(tmp_path: Path) -> None:
    """`demo | head -1`: the reader closes the pipe while the MCP client still writes (the BrokenPipeError arrives
    inside the client's task group); the program ends quietly, exit 0, nothing on stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITEA_")}
    shell = f"{sys.executable} -m gitea_mcp demo 2>demo.err | head -1 >/dev/null; echo ${{PIPESTATUS[0]}} >demo.rc"
    subprocess.run(["bash", "-c", shell], env=env, cwd=tmp_path, timeout=120, check=True)
    assert (tmp_path / "demo.err").read_text() == ""
    assert (tmp_path / "demo.rc").read_text().split() == ["0"]
