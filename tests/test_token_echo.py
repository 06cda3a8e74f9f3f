"""A Gitea token pasted into the wrong setting, or echoed back by the server, is never quoted (issue 20, item 11).

"Token-shaped" is defined once, in gitea_mcp/redaction.py: a run of 32 or more hex digits, or the configured token.
"""

from __future__ import annotations

import pytest
import responses

from gitea_mcp.cli.main import main, parse_args, settings_from
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.redaction import shown
from gitea_mcp.settings import ConfigError
from tests.support.gitea_json import API, ROOT

PASTED = "df66a1b2c3d4e5f60718293a4b5c6d7e8f901234"  # 40 hex digits, as Gitea shows a new token
SETTINGS = [
    "GITEA_URL",
    "GITEA_TOKEN",
    "GITEA_ALLOWED_OWNERS",
    "GITEA_READ_ONLY",
    "GITEA_TIMEOUT",
    "GITEA_CA_BUNDLE",
    "GITEA_INSECURE",
    "GITEA_MCP_TRANSPORT",
    "GITEA_MCP_PORT",
    "GITEA_MCP_HTTP_SECRET",
    "GITEA_MCP_CALLS_PER_TOKEN",
    "GITEA_LOG_LEVEL",
]
BASE = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [*SETTINGS, "GITEA_HOST", "GITEA_ACCESS_TOKEN", "GITEA_MCP_HOST", "GITEA_MCP_ALLOWED_HOSTS"]:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("token", [PASTED, PASTED.upper(), PASTED + "ff"])
def test_shown_never_quotes_a_token_shaped_run(token: str) -> None:
    assert token[:32] not in shown(token) and token[:32] not in shown(f"x{token}y", 200)


@pytest.mark.parametrize("name", sorted(set(SETTINGS) - {"GITEA_TOKEN", "GITEA_MCP_HTTP_SECRET", "GITEA_LOG_LEVEL"}))
def test_a_token_in_the_wrong_setting_is_refused_without_quoting_it(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    for key, value in {**BASE, name: PASTED}.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args([]))
    assert PASTED[:32] not in str(refused.value) and name in str(refused.value)


# check does not read GITEA_MCP_PORT (it serves nothing): the server, which does, refuses it the same way.
@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("check", "GITEA_ALLOWED_OWNERS"),
        ("check", "GITEA_READ_ONLY"),
        ("check", "GITEA_TIMEOUT"),
        ("serve", "GITEA_MCP_PORT"),
        ("check", "GITEA_LOG_LEVEL"),
    ],
)
def test_check_exits_2_and_prints_no_token(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], command: str, name: str
) -> None:
    for key, value in {**BASE, name: PASTED}.items():
        monkeypatch.setenv(key, value)
    assert main([command]) == 2
    out, err = capfd.readouterr()
    assert out == "" and PASTED[:32] not in err and name in err


@pytest.mark.parametrize(
    ("token", "echo"),
    [
        (PASTED, f"invalid Authorization header: token {PASTED}"),  # the token-shaped rule
        ("tok-not-hex-at-all", "invalid Authorization header: token tok-not-hex-at-all"),  # the configured token
        ("tok-not-hex-at-all", f"bad key {PASTED[:32]}"),  # any token-shaped run, whose ever
    ],
)
@pytest.mark.parametrize("status", [400, 401, 403, 409, 422, 500])
def test_an_upstream_message_that_echoes_the_token_is_quoted_without_it(token: str, echo: str, status: int) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(f"{API}/user", status=status, json={"message": echo, "errors": [echo]})
        with pytest.raises(GiteaError) as failed:
            GiteaClient(ROOT, token, timeout=5).get(["user"])
    secret = echo.rsplit(" ", 1)[1]
    assert secret not in str(failed.value) and secret not in failed.value.gitea_message
    assert not any(secret in error for error in failed.value.gitea_errors)
