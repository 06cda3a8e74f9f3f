"""HTTP mode says once, on stderr, where it listens, who may call and which Host headers it accepts."""

from __future__ import annotations

import base64
import re
import signal
from pathlib import Path
from typing import Any

import pytest
import requests
from pydantic import SecretStr

from gitea_mcp.server.http import startup_line
from gitea_mcp.settings import Settings, public_url_unreachable
from tests.cli.process import CLOSED_GITEA, Running, clean_env
from tests.support.ports import refusing_port

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


IN_PROCESS = "rates: 60 tool calls a minute per user and 600 requests a minute to Gitea, kept in this process"
REDIS = SecretStr("redis://:s3cret@cache.internal:6380/0")


@pytest.mark.parametrize(
    ("changes", "phrases", "absent"),
    [
        pytest.param({}, ["; write guard: in process; ", f"; {IN_PROCESS}; limits: "], [], id="default"),
        pytest.param({"read_only": True}, [f"; {IN_PROCESS}; "], ["write guard"], id="read-only"),
        pytest.param({"toolsets": ("labels", "people")}, [f"; {IN_PROCESS}; "], ["write guard"], id="no-write-tool"),
        pytest.param(
            {"redis_url": REDIS},
            ["; write guard: Redis at redis://cache.internal:6380; ", "to Gitea, kept in Redis; limits: "],
            [],
            id="redis",
        ),
        pytest.param(
            {"redis_url": REDIS, "read_only": True},
            ["to Gitea, kept in Redis at redis://cache.internal:6380; limits: "],
            ["write guard"],
            id="redis-read-only",
        ),
        pytest.param(
            {"calls_per_minute": 5, "forge_requests_per_minute": 0},
            ["; rates: 5 tool calls a minute per user and no budget of requests to Gitea, kept in this process; "],
            [],
            id="no-forge-budget",
        ),
        pytest.param(
            {"calls_per_minute": 0, "forge_requests_per_minute": 0},
            ["; rates: no limit of tool calls per user and no budget of requests to Gitea; limits: "],
            ["kept in"],
            id="no-rates",
        ),
        pytest.param(
            {"read_only": True, "workers": 2},
            ["600 requests a minute to Gitea (300 per worker), kept in this process; "],
            ["write guard"],
            id="workers-divide-the-budget",
        ),
    ],
)
def test_startup_line_names_the_write_guard_and_the_rates(
    changes: dict[str, Any], phrases: list[str], absent: list[str]
) -> None:
    """Issue 39: the start line said nothing of the replicas' write guard, nor of the rates in force."""
    settings = Settings(url="https://g.example", allowed_owners=frozenset({"acme"}), transport="http", **changes)
    line = startup_line(settings, 8000)
    assert "\n" not in line and "s3cret" not in line
    for phrase in phrases:
        assert phrase in line, line
    for phrase in absent:
        assert phrase not in line, line


def test_http_mode_prints_exactly_one_line_once_listening() -> None:
    running = Running(["--transport", "http", "--port", "0"], clean_env(**CLOSED_GITEA, GITEA_TOKEN="t0k"))
    try:
        line = running.err_line()
        found = re.fullmatch(
            r"gitea-issues-mcp: serving MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+)/mcp; .*\n", line
        )
        assert found, line
        assert requests.get(f"{found.group(1)}/healthz", timeout=5).json() == {"status": "ok"}, "listening when said"
        assert f"{OWN} (GITEA_TOKEN unused" in line and f"; {LOOPBACK}; write guard: in process; " in line
        assert f"; {IN_PROCESS}; limits: " in line
        running.signal(signal.SIGTERM)
        assert running.stderr() == line, "the start-up line is the only one"
    finally:
        running.kill()


SIGNIN_ENV = {
    "GITEA_MCP_OAUTH_CLIENT_ID": "5b2c3e9a-0f1d-4c7e-9a8b-2d6f1e0c4b3a",
    "GITEA_MCP_OAUTH_KEY": base64.urlsafe_b64encode(bytes(range(32))).decode(),
}


@pytest.mark.parametrize("workers", [1, 2], ids=["one-process", "workers"])
def test_a_public_url_on_another_port_is_warned_about_once_listening(
    workers: int, request: pytest.FixtureRequest
) -> None:
    """Issue 39: GITEA_MCP_PUBLIC_URL on a port the server does not listen on started without a word, and every
    sign-in then led nowhere. With --port 0 the bound port is the one compared."""
    # Sign-in with workers needs the shared store; the guard is then named by the start line, never its password.
    redis = {"GITEA_MCP_REDIS_URL": request.getfixturevalue("redis_url")} if workers > 1 else {}
    with refusing_port() as other:
        public = f"http://127.0.0.1:{other}"
        env = clean_env(**CLOSED_GITEA, **SIGNIN_ENV, **redis, GITEA_MCP_PUBLIC_URL=public)
        running = Running(["--transport", "http", "--port", "0", "--workers", str(workers)], env)
        try:
            line = running.err_line()
            found = re.search(r" at http://127\.0\.0\.1:(\d+)/mcp; ", line)
            assert found, line
            port = found.group(1)
            assert f"auth: sign-in at {public} (tokens this server issues)" in line
            socket = redis["GITEA_MCP_REDIS_URL"].split("@", 1)[1].split("?")[0] if redis else ""
            assert (f"write guard: Redis at unix://{socket}; " if redis else "write guard: in process; ") in line
            assert "replica-guard-pw" not in line
            assert running.err_line() == (
                f"gitea-issues-mcp: warning: GITEA_MCP_PUBLIC_URL {public} names port {other}, but this server "
                f"listens on port {port}: clients, and Gitea's redirect after sign-in, would not reach it; set "
                f"GITEA_MCP_PUBLIC_URL=http://127.0.0.1:{port}, or listen on port {other} (--port, GITEA_MCP_PORT)\n"
            )
            running.signal(signal.SIGTERM, within=15)  # workers stop as one server does, 2 cores shared
        finally:
            running.kill()


def test_the_operators_guide_shows_the_lines_as_printed() -> None:
    """docs/operators.md quotes a start-up line and the public-URL warning: they are what the server prints."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "operators.md").read_text(encoding="utf-8")
    team = Settings(
        url="https://g.example",
        allowed_owners=frozenset({"acme"}),
        transport="http",
        host="0.0.0.0",
        allowed_hosts=("mcp.example.com:*",),
        redis_url=SecretStr("redis://redis.tools.svc:6379/0"),
    )
    assert f"\n{startup_line(team, 8000)}\n" in guide
    trial = Settings(
        url="https://g.example",
        allowed_owners=frozenset({"acme"}),
        transport="http",
        public_url="http://127.0.0.1:9000",
        oauth_client_id=SIGNIN_ENV["GITEA_MCP_OAUTH_CLIENT_ID"],
        oauth_key=SecretStr(SIGNIN_ENV["GITEA_MCP_OAUTH_KEY"]),
    )
    unreachable = public_url_unreachable(trial, 8000)
    assert unreachable is not None
    assert f"\ngitea-issues-mcp: warning: {'; '.join(unreachable)}\n" in guide
