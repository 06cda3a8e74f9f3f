"""Ctrl-C, SIGTERM and stdin closing end the servers at once and quietly, with the documented exit codes."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator

import pytest

from gitea_mcp.cli.main import INTERRUPTED, OK, TERMINATED
from gitea_mcp.cli.serve import ON_A_TERMINAL
from tests.cli.process import CLOSED_GITEA, Running, clean_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and ptys")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def started_stdio(stdin: int | None = None) -> Running:
    """The stdio server, known to be serving: it has answered `initialize` (unless stdin is a terminal)."""
    running = Running(["serve"], clean_env(**CLOSED_GITEA), **({} if stdin is None else {"stdin": stdin}))
    if stdin is None:
        running.send(json.dumps(INITIALIZE) + "\n")
        assert json.loads(running.out_line())["id"] == 1
    return running


def started_http() -> Running:
    """The HTTP server, known to be listening: it has printed its start-up line."""
    running = Running(["serve", "--transport", "http", "--port", "0"], clean_env(**CLOSED_GITEA))
    assert "serving MCP (streamable HTTP) at http://127.0.0.1:" in running.err_line()
    return running


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[Running]:
    running = started_stdio() if request.param == "stdio" else started_http()
    yield running
    running.kill()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, INTERRUPTED), (signal.SIGTERM, TERMINATED)])
def test_a_signal_stops_the_server_quietly(server: Running, signum: signal.Signals, code: int) -> None:
    assert server.signal(signum, within=2.0) == code
    assert "Traceback" not in server.stderr()


def test_stdin_closing_ends_the_stdio_server_with_0() -> None:
    running = started_stdio()
    assert running.close_stdin(within=2.0) == OK
    assert running.stderr() == "", "off a terminal nothing is printed, and nothing when the client leaves"


def test_on_a_terminal_it_says_what_it_is_and_keeps_serving() -> None:
    main, replica = os.openpty()
    try:
        running = started_stdio(stdin=replica)
        try:
            line = running.err_line()
            assert line == ON_A_TERMINAL + "\n"
            assert "MCP on stdio" in line and "gitea-issues-mcp demo" in line and "gitea-issues-mcp --help" in line
            assert running.alive_after(0.5), "it serves on: the hint is no exit"
            assert running.signal(signal.SIGINT) == INTERRUPTED  # Ctrl-C on that terminal
            assert running.stderr() == line
        finally:
            running.kill()
    finally:
        os.close(main)
        os.close(replica)
