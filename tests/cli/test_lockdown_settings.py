"""GITEA_LOCKDOWN and GITEA_LOCKDOWN_TRUSTED: off by default, read from the flag or the environment, trusted logins
lower-case and checked (one sentence for a bad one, never echoing a token), and carried by `config`."""

from __future__ import annotations

import pytest

from gitea_mcp.cli.config import carried
from gitea_mcp.cli.main import parse_args, settings_from
from gitea_mcp.settings import ConfigError, Settings

BASE = ["--url", "https://git.example.com", "--allowed-owners", "acme"]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITEA_LOCKDOWN", "GITEA_LOCKDOWN_TRUSTED", "GITEA_URL", "GITEA_ALLOWED_OWNERS", "GITEA_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def read(*argv: str) -> Settings:
    return settings_from(parse_args([*BASE, *argv]))


def test_off_by_default() -> None:
    assert read().lockdown is False and read().lockdown_trusted == frozenset()


def test_the_flag_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert read("--lockdown", "--lockdown-trusted", "Bob, alice").lockdown_trusted == frozenset({"bob", "alice"})
    monkeypatch.setenv("GITEA_LOCKDOWN", "yes")
    monkeypatch.setenv("GITEA_LOCKDOWN_TRUSTED", "carol")
    said = read()
    assert said.lockdown is True and said.lockdown_trusted == frozenset({"carol"})


@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        ("GITEA_LOCKDOWN", "maybe", "GITEA_LOCKDOWN='maybe' is not true or false"),
        ("GITEA_LOCKDOWN_TRUSTED", "bob,bad name", "GITEA_LOCKDOWN_TRUSTED entry 'bad name' is not a Gitea login"),
        ("GITEA_LOCKDOWN_TRUSTED", "0123456789abcdef0123456789abcdef01234567", "looks like an access token"),
    ],
)
def test_a_bad_value_is_one_sentence(monkeypatch: pytest.MonkeyPatch, variable: str, value: str, sentence: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as raised:
        read()
    assert sentence in str(raised.value) and "0123456789abcdef" not in str(raised.value)
    assert "\n" not in str(raised.value)


def test_config_carries_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_LOCKDOWN_TRUSTED", "Bob,alice")
    found = dict(carried(parse_args(["config", "claude-code", "--lockdown"])))
    assert found["GITEA_LOCKDOWN"] == "true" and found["GITEA_LOCKDOWN_TRUSTED"] == "alice,bob"
