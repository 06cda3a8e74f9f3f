"""GITEA_MCP_WORKERS (--workers): a whole number, HTTP only, and more than one only where nothing unshared is at
stake (read-only without sign-in) or Redis holds it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitea_mcp.cli.main import parse_args, settings_from
from gitea_mcp.server.http import startup_line
from gitea_mcp.server.limits import Limits, limits, share
from gitea_mcp.settings import ConfigError

BASE = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}
REDIS = ["--redis-url", "redis://127.0.0.1:6379/0"]
HTTP = ["--transport", "http"]
SIGNIN = [
    "--public-url",
    "http://127.0.0.1:8000",
    "--oauth-client-id",
    "0b3c5f2e-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
    "--oauth-key-file",
    "oauth.key",  # written by the fixture below into the test's own directory
]


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "oauth.key").write_text("A" * 43 + "=\n")
    for key, value in BASE.items():
        monkeypatch.setenv(key, value)
    for key in ("GITEA_MCP_REDIS_URL", "GITEA_MCP_WORKERS", "GITEA_READ_ONLY", "GITEA_MCP_TRANSPORT"):
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize(
    ("argv", "phrase"),
    [
        (["--workers", "0", *HTTP, "--read-only"], "--workers '0' is not a whole number from 1 to 64"),
        (["--workers", "-1", *HTTP, "--read-only"], "--workers '-1' is not a whole number from 1 to 64"),
        (["--workers", "x", *HTTP, "--read-only"], "--workers 'x' is not a whole number from 1 to 64"),
        (["--workers", "65", *HTTP, "--read-only", *REDIS], "is not a whole number from 1 to 64"),
        (["--workers", "2", "--read-only"], "GITEA_MCP_WORKERS=2 needs the HTTP transport"),
        (["--workers", "2", *HTTP], "GITEA_MCP_WORKERS=2 with write tools needs GITEA_MCP_REDIS_URL"),
        (
            ["--workers", "3", *HTTP, "--read-only", *SIGNIN],
            "GITEA_MCP_WORKERS=3 with sign-in needs GITEA_MCP_REDIS_URL",
        ),
    ],
)
def test_refused(argv: list[str], phrase: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from(parse_args(argv))
    assert phrase in str(caught.value)
    assert str(caught.value).count(". ") == 0, "one sentence"


@pytest.mark.parametrize(
    ("argv", "workers"),
    [
        ([], 1),
        (["--workers", "1"], 1),  # one on stdio is today's server
        (["--workers", "2", *HTTP, "--read-only"], 2),
        (["--workers", "2", *HTTP, *REDIS], 2),
        (["--workers", "4", *HTTP, "--read-only", *SIGNIN, *REDIS], 4),
    ],
)
def test_allowed(argv: list[str], workers: int) -> None:
    assert settings_from(parse_args(argv)).workers == workers


def test_refused_where_there_is_no_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "fork")
    with pytest.raises(ConfigError) as caught:
        settings_from(parse_args(["--workers", "2", *HTTP, "--read-only"]))
    assert "GITEA_MCP_WORKERS=2 needs os.fork, which this system lacks (Windows)" in str(caught.value)
    assert settings_from(parse_args(["--workers", "1", *HTTP])).workers == 1


def test_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_MCP_WORKERS", "3")
    monkeypatch.setenv("GITEA_MCP_TRANSPORT", "http")
    monkeypatch.setenv("GITEA_READ_ONLY", "true")
    assert settings_from(parse_args([])).workers == 3


@pytest.mark.parametrize(
    ("connections", "requests", "workers", "each"),
    [
        (1_000, 32, 1, (1_000, 32)),
        (1_000, 32, 2, (500, 16)),
        (1_000, 32, 3, (333, 10)),
        (1, 1, 4, (1, 1)),  # at least one of each
    ],
)
def test_each_worker_takes_its_share(connections: int, requests: int, workers: int, each: tuple[int, int]) -> None:
    whole = Limits(connections, requests, 1_024, 1.0, 1.0)
    mine = share(whole, workers)
    assert (mine.connections, mine.requests) == each
    assert (mine.body, mine.header_timeout) == (whole.body, whole.header_timeout)


def test_the_startup_line_says_the_workers() -> None:
    one = settings_from(parse_args(HTTP))
    two = settings_from(parse_args([*HTTP, "--read-only", "--workers", "2"]))
    assert "worker" not in startup_line(one, 8000)
    line = startup_line(two, 8000, limits(two))
    assert "32 requests at once" in line
    assert line.endswith("; 2 worker processes (500 connections and 16 requests at once each)")
