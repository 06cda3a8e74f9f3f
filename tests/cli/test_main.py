"""Configuration from flags and environment, including the Go server's variable names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gitea_mcp.cli.main import main, parse_args, settings_from
from gitea_mcp.settings import ConfigError

ENV_NAMES = [
    "GITEA_URL",
    "GITEA_HOST",
    "GITEA_TOKEN",
    "GITEA_ACCESS_TOKEN",
    "GITEA_ALLOWED_OWNERS",
    "GITEA_READ_ONLY",
    "GITEA_TIMEOUT",
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)


def settings(argv: list[str]) -> object:
    return settings_from(parse_args(argv))


def test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_URL", "https://git.example.com/api/v1/")
    monkeypatch.setenv("GITEA_TOKEN", "s3cret-token")
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "Acme, alice")
    monkeypatch.setenv("GITEA_READ_ONLY", "true")
    monkeypatch.setenv("GITEA_TIMEOUT", "7.5")
    s = settings_from(parse_args([]))
    assert s.url == "https://git.example.com"
    assert s.token_value() == "s3cret-token"
    assert s.allowed_owners == frozenset({"acme", "alice"})
    assert s.read_only is True and s.timeout == 7.5
    assert "s3cret-token" not in repr(s) and "s3cret-token" not in str(s)


def test_go_server_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_HOST", "https://git.example.com")
    monkeypatch.setenv("GITEA_ACCESS_TOKEN", "tok")
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "*")
    s = settings_from(parse_args([]))
    assert s.url == "https://git.example.com" and s.token_value() == "tok" and s.allow_all_owners


def test_flags_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_URL", "https://env.example.com")
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "env")
    s = settings_from(
        parse_args(["--url", "https://flag.example.com", "--allowed-owners", "flag", "--read-only", "--timeout", "3"])
    )
    assert s.url == "https://flag.example.com" and s.allowed_owners == frozenset({"flag"})
    assert s.read_only and s.timeout == 3


@pytest.mark.parametrize(
    ("env", "phrase"),
    [
        ({"GITEA_ALLOWED_OWNERS": "acme"}, "GITEA_URL is not set"),
        ({"GITEA_URL": "https://g.example"}, "GITEA_ALLOWED_OWNERS is not set"),
        ({"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": " , "}, "GITEA_ALLOWED_OWNERS is not set"),
        ({"GITEA_URL": "ftp://g.example", "GITEA_ALLOWED_OWNERS": "acme"}, "must start with http"),
        ({"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": "a", "GITEA_TIMEOUT": "0"}, "positive"),
        ({"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": "a", "GITEA_TIMEOUT": "soon"}, "not a number"),
    ],
)
def test_refuses_to_start(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], phrase: str) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError, match=phrase):
        settings_from(parse_args([]))


def test_main_exits_2_with_message(capfd: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    captured = capfd.readouterr()
    assert captured.out == "", "stdout is the protocol channel"
    assert "GITEA_URL and GITEA_ALLOWED_OWNERS are not set" in captured.err


def test_help_names_every_log_level(capfd: pytest.CaptureFixture[str]) -> None:
    from gitea_mcp.settings import LOG_LEVELS

    with pytest.raises(SystemExit):
        main(["--help"])
    helped = " ".join(capfd.readouterr().out.split())  # argparse wraps the help text anywhere
    assert [level for level in LOG_LEVELS if level not in helped] == []


@pytest.mark.slow
def test_help_lists_every_setting() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gitea_mcp", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for name in ["GITEA_URL", "GITEA_TOKEN", "GITEA_ALLOWED_OWNERS", "GITEA_READ_ONLY", "GITEA_TIMEOUT", "GITEA_HOST"]:
        assert name in out
