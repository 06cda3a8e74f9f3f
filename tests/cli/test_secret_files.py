"""Secrets come from the environment or from files their flags name, never from the command line (issue 35): the
file flags read, and what is wrong with a file said without what it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitea_mcp.cli.main import SECRET_FILE_BYTES, parse_args, settings_from
from gitea_mcp.settings import ConfigError

TOKEN = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITEA_TOKEN", "GITEA_ACCESS_TOKEN", "GITEA_MCP_HTTP_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITEA_URL", "https://g.example")
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "acme")


def test_the_token_file_is_read_its_line_break_dropped(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\r\n")
    token = settings_from(parse_args(["--token-file", str(path)])).token
    assert token is not None and token.get_secret_value() == TOKEN


def test_the_file_flag_wins_over_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_TOKEN", "from-the-environment")
    (tmp_path / "token").write_text(TOKEN)
    token = settings_from(parse_args(["--token-file", str(tmp_path / "token")])).token
    assert token is not None and token.get_secret_value() == TOKEN


@pytest.mark.parametrize(
    ("content", "said"),
    [
        pytest.param(None, "cannot be read (No such file or directory)", id="missing"),
        pytest.param(b"x" * (SECRET_FILE_BYTES + 1), "is not a file holding a secret alone", id="too-long"),
        pytest.param(TOKEN.encode() + b"\0", "is not a file holding a secret alone", id="binary"),
    ],
)
def test_a_file_that_holds_no_secret_is_said_without_its_content(
    tmp_path: Path, content: bytes | None, said: str
) -> None:
    path = tmp_path / "secret"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args(["--transport", "http", "--http-secret-file", str(path)]))
    assert str(refused.value).startswith(f"--http-secret-file '{path}' ") and said in str(refused.value)
    assert TOKEN not in str(refused.value)
