"""HTTP mode says once, on stderr, where it listens, who may call and which Host headers it accepts."""

from __future__ import annotations

import re
import signal
from typing import Any

import pytest
import requests
from pydantic import SecretStr

from gitea_mcp.server.http import startup_line
from gitea_mcp.settings import Settings
from tests.cli.process import CLOSED_GITEA, Running, clean_env

LOOPBACK = "allowed hosts: 127.0.0.1:*, localhost:*, [::1]:*"
OWN = "auth: each request's own Gitea token (Authorization: Bearer)"


@pytest.mark.parametrize(
    ("changes", "phrases"),
    [
        pytest.param({}, ["at http://127.0.0.1:8000/mcp;", f"{OWN}; {LOOPBACK}"], id="default"),
        pytest.param({"token": SecretStr("t")}, ["GITEA_TOKEN unused: it needs GITEA_MCP_HTTP_SECRET"], id="token"),
        pytest.param(
            {"token": SecretStr("t"), "http_secret": SecretStr("s")},
            ["or the operator's secret (X-Gitea-MCP-Secret) to act with GITEA_TOKEN"],
            id="secret",
        ),
        pytest.param(
            {"host": "0.0.0.0"},
            ["at http://0.0.0.0:8000/mcp", f"{LOOPBACK} only (set GITEA_MCP_ALLOWED_HOSTS"],
            id="all-interfaces",
        ),
        pytest.param({"host": "::1"}, ["at http://[::1]:8000/mcp"], id="ipv6"),
        pytest.param({"allowed_hosts": ("mcp.example.com:*",)}, ["allowed hosts: mcp.example.com:*"], id="named"),
        pytest.param({"allowed_hosts": ("*",)}, ["allowed hosts: any (Host and Origin unchecked)"], id="any"),
    ],
)
def test_startup_line(changes: dict[str, Any], phrases: list[str]) -> None:
    settings = Settings(url="https://g.example", allowed_owners=frozenset({"acme"}), transport="http", **changes)
    line = startup_line(settings, 8000)
    assert "\n" not in line and "s3cret" not in line
    for phrase in phrases:
        assert phrase in line


def test_http_mode_prints_exactly_one_line_once_listening() -> None:
    running = Running(["--transport", "http", "--port", "0"], clean_env(**CLOSED_GITEA, GITEA_TOKEN="t0k"))
    try:
        line = running.err_line()
        found = re.fullmatch(
            r"gitea-issues-mcp: serving MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+)/mcp; .*\n", line
        )
        assert found, line
        assert requests.get(f"{found.group(1)}/healthz", timeout=5).json() == {"status": "ok"}, "listening when said"
        assert f"{OWN} (GITEA_TOKEN unused" in line and f"; {LOOPBACK}; limits: " in line
        running.signal(signal.SIGTERM)
        assert running.stderr() == line, "the start-up line is the only one"
    finally:
        running.kill()
