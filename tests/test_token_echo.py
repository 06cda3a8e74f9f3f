"""A Gitea token pasted into the wrong setting, or echoed back by the server, is never quoted (issue 20, item 11).

"Token-shaped" is defined once, in gitea_mcp/redaction.py: a run of 32 or more hex digits, or the configured token.
"""

from __future__ import annotations

import base64

import pytest
import responses

from gitea_mcp.cli.main import main, parse_args, settings_from
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.redaction import shown
from gitea_mcp.server.http import startup_line
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
    "GITEA_MCP_PUBLIC_URL",
    "GITEA_MCP_OAUTH_CLIENT_ID",
    "GITEA_MCP_OAUTH_CLIENT_SECRET",
    "GITEA_MCP_OAUTH_KEY",
    "GITEA_LOG_LEVEL",
    "GITEA_LOCKDOWN",
    "GITEA_LOCKDOWN_TRUSTED",
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
        ("check", "GITEA_LOCKDOWN_TRUSTED"),
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


# The sign-in secrets (issue 24): the Gitea app's client secret and the replicas' shared key. Neither is
# token-shaped, so only SecretStr and the sentences that never quote them keep them out of every output.
CLIENT_SECRET = "gto_q3vxk7m2pl9sw4ht8nb6cy1rj5fd0ga"
SHARED_KEY = base64.urlsafe_b64encode(b"0123456789abcdef0123456789ABCDEF").decode()
SIGNIN = {
    "GITEA_MCP_TRANSPORT": "http",
    "GITEA_MCP_PUBLIC_URL": "https://mcp.example.com",
    "GITEA_MCP_OAUTH_CLIENT_ID": "5b2c3e9a-0f1d-4c7e-9a8b-2d6f1e0c4b3a",
    "GITEA_MCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
    "GITEA_MCP_OAUTH_KEY": SHARED_KEY,
}


@pytest.mark.parametrize(
    "wrong",
    [
        {"GITEA_MCP_PORT": "99999"},  # another setting wrong, the secrets fine
        {"GITEA_MCP_TRANSPORT": "stdio"},  # sign-in refused as a whole
        {"GITEA_MCP_OAUTH_KEY": f"{SHARED_KEY},{SHARED_KEY[:20]}"},  # the key itself wrong
        {"GITEA_MCP_OAUTH_KEY": SHARED_KEY[:43]},
        {"GITEA_MCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET[:20] + " " + CLIENT_SECRET[20:]},
        {"GITEA_MCP_PUBLIC_URL": f"https://{CLIENT_SECRET}:{SHARED_KEY}@mcp.example.com"},
    ],
)
def test_the_sign_in_secrets_are_never_echoed(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], wrong: dict[str, str]
) -> None:
    for key, value in {**BASE, **SIGNIN, **wrong}.items():
        monkeypatch.setenv(key, value)
    # Should a refusal regress, the server must not start and listen inside the test.
    monkeypatch.setattr("gitea_mcp.cli.serve.run", lambda ns, settings: pytest.fail("the server started"))
    assert main(["serve"]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.startswith("gitea-issues-mcp: ")
    assert CLIENT_SECRET[:12] not in err and SHARED_KEY[:12] not in err


def test_the_sign_in_secrets_stay_out_of_the_settings_and_the_startup_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {**BASE, **SIGNIN}.items():
        monkeypatch.setenv(key, value)
    settings = settings_from(parse_args(["serve"]))
    shown_anywhere = repr(settings) + str(settings) + startup_line(settings, 8000) + settings.model_dump_json()
    assert settings.signin and CLIENT_SECRET not in shown_anywhere and SHARED_KEY not in shown_anywhere
