"""GITEA_ALLOWED_OWNERS entries that can never match an owner stop the start, naming the entry (issue 20, item 13)."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from gitea_mcp.cli.main import main, parse_args, settings_from
from gitea_mcp.settings import ConfigError, Settings, parse_owner_list

NEVER_MATCH = [
    ("\u0430cme", r"'\u0430cme'"),  # Cyrillic а: looks like acme, is not
    ("acme.", "'acme.'"),  # Gitea refuses a trailing '.', '-' or '_'
    ("acme\u200b", r"'acme\u200b'"),  # a zero-width space pasted with the name
    ("ac--me", "'ac--me'"),  # two separators in a row
    ("-acme", "'-acme'"),  # a name starts with a letter or digit
    ("acme/widgets", "'acme/widgets'"),  # a repository, not an owner
    ("x" * 101, "'" + "x" * 100 + "'"),  # longer than any Gitea name
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ["GITEA_URL", "GITEA_HOST", "GITEA_TOKEN", "GITEA_ACCESS_TOKEN", "GITEA_ALLOWED_OWNERS"]:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("entry", "named"), NEVER_MATCH)
def test_an_entry_that_can_never_match_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, entry: str, named: str
) -> None:
    monkeypatch.setenv("GITEA_URL", "https://g.example")
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", f"alice, {entry}")
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args([]))
    message = str(refused.value)
    assert f"GITEA_ALLOWED_OWNERS entry {named} is not a Gitea owner name" in message
    assert "letters and digits" in message and message.count(". ") == 0, "one sentence, with the rule"


@pytest.mark.parametrize(("entry", "named"), NEVER_MATCH[:3])
def test_the_cli_exits_2_naming_the_entry(capfd: pytest.CaptureFixture[str], entry: str, named: str) -> None:
    assert main(["check", "--url", "https://g.example", "--allowed-owners", f"{entry},bob"]) == 2
    out, err = capfd.readouterr()
    assert out == "" and f"entry {named} is not a Gitea owner name" in err and err.count("\n") == 1


@pytest.mark.parametrize("raw", ["*", "acme", "Acme, alice", "my.org, a_b-c, x1", "X" * 100, " acme , ", "*,acme"])
def test_names_gitea_accepts_still_pass(raw: str) -> None:
    settings = Settings(url="https://g.example", allowed_owners=parse_owner_list(raw))
    assert settings.allowed_owners == frozenset(part.strip().lower() for part in raw.split(",") if part.strip())


@pytest.mark.parametrize(("entry", "named"), NEVER_MATCH)
def test_settings_refuses_the_entry(entry: str, named: str) -> None:
    with pytest.raises(ValidationError, match=f"entry {re.escape(named)} is not a Gitea owner name"):
        Settings(url="https://g.example", allowed_owners=frozenset({"alice", entry}))
