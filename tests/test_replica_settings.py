"""GITEA_MCP_REDIS_URL (--redis-url): checked at start, never echoed with its credentials, reported by `check`."""

from __future__ import annotations

import sys

import pytest
from pydantic import SecretStr

from gitea_mcp.cli.check import check_guard
from gitea_mcp.cli.main import main, parse_args, settings_from
from gitea_mcp.server.app import shared_flights
from gitea_mcp.settings import ConfigError, Settings
from tests.support.ports import refusing_port

BASE = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}
PASSWORD = "hunter2-redis-pw"


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in BASE.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITEA_MCP_REDIS_URL", raising=False)


@pytest.mark.parametrize(
    ("url", "where"),
    [
        (f"redis://:{PASSWORD}@redis.example:6380/0", "redis://redis.example:6380"),
        (f"rediss://ops:{PASSWORD}@redis.example/1", "rediss://redis.example:6379"),
        (f"unix:///run/redis.sock?db=0&password={PASSWORD}", "unix:///run/redis.sock"),
    ],
)
def test_a_redis_url_with_a_password_from_the_environment_alone(
    monkeypatch: pytest.MonkeyPatch, url: str, where: str
) -> None:
    """On the command line its password would be in every user's `ps` (issue 35): the flag is refused for it."""
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args(["--redis-url", url]))
    assert str(refused.value) == (
        "--redis-url carries a password, which every user of this machine can read on the command line (ps); set "
        "GITEA_MCP_REDIS_URL in the environment instead."
    )
    monkeypatch.setenv("GITEA_MCP_REDIS_URL", url)
    settings = settings_from(parse_args([]))
    assert settings.redis_url is not None and settings.redis_url.get_secret_value() == url
    assert PASSWORD not in repr(settings)
    guard = shared_flights(settings)
    assert guard is not None and guard.where == where
    assert guard.lease > 4 * settings.timeout, "longer than a call's budget"


@pytest.mark.parametrize(
    ("url", "phrase"),
    [
        (f"http://:{PASSWORD}@redis.example:6379", "must start with redis://, rediss:// or unix:// (got 'http://redis"),
        (f"{PASSWORD}@redis.example", "must start with redis://, rediss:// or unix://, e.g."),
        (f"redis://ops:{PASSWORD}/0", "has a port that is not a number"),  # the @host forgotten
        (f"redis://:{PASSWORD}@/0", "names no server"),
    ],
)
def test_a_wrong_redis_url_stops_the_start_without_showing_its_password(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], url: str, phrase: str
) -> None:
    monkeypatch.setenv("GITEA_MCP_REDIS_URL", url)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args([]))
    assert phrase in str(refused.value) and PASSWORD not in str(refused.value)
    assert main(["serve"]) == 2
    out, err = capfd.readouterr()
    assert out == "" and "GITEA_MCP_REDIS_URL" in err and PASSWORD not in err


def test_check_says_when_the_guard_cannot_be_reached() -> None:
    with refusing_port() as port:
        settings = Settings(url="http://g.example", allowed_owners=frozenset({"acme"}), redis_url=_url(port))
        line = check_guard(settings)
    assert line.mark == "fail" and PASSWORD not in line.text + line.fix
    assert line.text == (
        f"shared write guard at redis://127.0.0.1:{port} cannot be reached (no connection: refused, or no such "
        "host): every write would be refused"
    )
    assert "GITEA_MCP_REDIS_URL" in line.fix


def test_check_skips_the_guard_where_nothing_writes() -> None:
    settings = Settings(url="http://g.example", allowed_owners=frozenset({"acme"}), redis_url=_url(1), read_only=True)
    assert check_guard(settings).mark == "skip"


def test_without_the_redis_package_the_url_is_refused_in_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)  # as if not installed: importing it raises ImportError
    settings = Settings(url="http://g.example", allowed_owners=frozenset({"acme"}), redis_url=_url(1))
    # The lines that work from a clone (the package is on no index): pipx's reinstall with the extra, a venv's pip.
    said = r"not installed: install gitea-issues-mcp with its redis extra.*pipx install --force '\.\[redis\]'"
    with pytest.raises(ConfigError, match=said):
        shared_flights(settings)
    assert check_guard(settings).mark == "fail"


def _url(port: int) -> SecretStr:
    return SecretStr(f"redis://:{PASSWORD}@127.0.0.1:{port}/0")
