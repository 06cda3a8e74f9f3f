"""A real workstation's environment: the only credential sent is the token, CA settings of ours win, no cookies.

requests reads ~/.netrc, REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE on its own (trust_env); proxies must keep working.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import responses
from pydantic import SecretStr

from gitea_mcp.cli.main import main
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.server.app import make_client
from gitea_mcp.settings import ConfigError, Settings, parse_bool, parse_log_level
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT

VERSION = f"{API}/version"


@pytest.fixture
def netrc_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose ~/.netrc has a login for the forge, as many developer machines do."""
    netrc = tmp_path / ".netrc"
    netrc.write_text("machine gitea.test login bob password hunter2\n", encoding="utf-8")
    netrc.chmod(0o600)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NETRC", str(netrc))
    return tmp_path


def authorization_sent(token: str | None) -> str | None:
    with responses.RequestsMock() as rsps:
        rsps.get(VERSION, json={"version": "1.25.4"})
        GiteaClient(ROOT, token, timeout=5, retry=RetryPolicy(attempts=1)).get(["version"])
        return rsps.calls[0].request.headers.get("Authorization")


@pytest.mark.usefixtures("netrc_home")
@pytest.mark.parametrize(("token", "sent"), [(TOKEN, f"token {TOKEN}"), (None, None)])
def test_netrc_is_never_sent(token: str | None, sent: str | None) -> None:
    basic = "Basic " + base64.b64encode(b"bob:hunter2").decode()
    assert authorization_sent(token) == sent != basic


def test_the_netrc_fixture_would_be_used_by_plain_requests(netrc_home: Path) -> None:
    """Proves the test above can fail: requests itself does send the ~/.netrc login."""
    import requests

    with responses.RequestsMock() as rsps:
        rsps.get(VERSION, json={})
        requests.get(VERSION, timeout=5)
        assert rsps.calls[0].request.headers["Authorization"].startswith("Basic ")


def verify_used(settings: Settings) -> object:
    with responses.RequestsMock() as rsps:
        rsps.get(VERSION, json={"version": "1.25.4"})
        make_client(settings).get(["version"])
        return sent_with(rsps)["verify"]


def sent_with(rsps: responses.RequestsMock) -> dict[str, Any]:
    """The keyword arguments the first request was sent with: responses keeps them on it (its types do not say so)."""
    kwargs: dict[str, Any] = vars(rsps.calls[0].request)["req_kwargs"]
    return kwargs


def settings(**changes: object) -> Settings:
    values: dict[str, object] = {"url": ROOT, "token": SecretStr(TOKEN), "allowed_owners": frozenset({"acme"})}
    return Settings(**{**values, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_our_ca_settings_win_over_the_environment(
    variable: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, theirs = tmp_path / "ours.pem", tmp_path / "corporate.pem"
    ours.write_text("-", encoding="utf-8")
    theirs.write_text("-", encoding="utf-8")
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, str(theirs))
    assert verify_used(settings(ca_bundle=str(ours))) == str(ours)
    assert verify_used(settings(insecure=True)) is False
    assert verify_used(settings()) == str(theirs), "without a setting of ours, the machine's CA bundle applies"


def test_a_missing_ca_file_is_a_start_up_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"GITEA_CA_BUNDLE='.*nowhere\.pem' is not a readable file"):
        settings(ca_bundle=str(tmp_path / "nowhere.pem"))


def test_proxies_from_the_environment_still_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp:3128")
    monkeypatch.setenv("NO_PROXY", "")
    with responses.RequestsMock() as rsps:
        rsps.get(VERSION, json={"version": "1.25.4"})
        make_client(settings()).get(["version"])
        assert sent_with(rsps)["proxies"].get("https") == "http://proxy.corp:3128"


def test_cookies_are_never_replayed() -> None:
    """One session serves every caller over HTTP: a cookie set for one must not reach another."""
    client = GiteaClient(ROOT, TOKEN, timeout=5, retry=RetryPolicy(attempts=1))
    with responses.RequestsMock() as rsps:
        rsps.get(VERSION, json={"version": "1.25.4"}, headers={"Set-Cookie": "i_like_gitea=abc123; Path=/"})
        client.get(["version"])
        client.with_token("other-callers-token").get(["version"])
        assert "Cookie" not in rsps.calls[1].request.headers


@pytest.mark.parametrize(
    "url", ["https://bob:hunter2@gitea.test", "https://hunter2@gitea.test/", "http://bob:@gitea.test:3000"]
)
def test_credentials_in_the_url_are_refused_at_start(
    url: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITEA_URL", url)
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "acme")
    assert main(["check"]) == 2
    out, err = capfd.readouterr()
    assert "GITEA_URL contains a user name or password (user:pass@host); remove it" in err
    assert "hunter2" not in out + err and "bob" not in out + err


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(f"{TOKEN}\n", TOKEN), (f"  {TOKEN}\r\n", TOKEN), ("\n", None)],
)
def test_a_token_is_stripped(raw: str, expected: str | None) -> None:
    assert settings(token=SecretStr(raw)).token_value() == expected


@pytest.mark.parametrize("raw", [f"{TOKEN[:10]} {TOKEN[10:]}", f"token {TOKEN}", f"{TOKEN}\x00"])
def test_a_token_with_inner_whitespace_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="GITEA_TOKEN contains spaces or control characters") as info:
        settings(token=SecretStr(raw))
    assert TOKEN not in str(info.value)


@pytest.mark.parametrize(
    ("raw", "value"),
    [("true", True), ("TRUE", True), ("1", True), ("yes", True), ("on", True), (None, False), ("", False),
     ("false", False), ("0", False), ("no", False), ("Off", False)],
)  # fmt: skip
def test_booleans(raw: str | None, value: bool) -> None:
    assert parse_bool(raw, "GITEA_READ_ONLY") is value


@pytest.mark.parametrize("raw", ["treu", "y", "enabled", "2", "read-only"])
def test_booleans_fail_closed(raw: str) -> None:
    with pytest.raises(ConfigError, match=f"GITEA_READ_ONLY='{raw}' is not true or false"):
        parse_bool(raw, "GITEA_READ_ONLY")


def test_unknown_read_only_value_stops_the_server(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITEA_URL", ROOT)
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "acme")
    monkeypatch.setenv("GITEA_READ_ONLY", "treu")
    assert main(["serve"]) == 2
    assert "GITEA_READ_ONLY='treu' is not true or false" in capfd.readouterr().err


@pytest.mark.parametrize(("raw", "level"), [(None, "WARNING"), ("debug", "DEBUG"), (" Error ", "ERROR")])
def test_log_levels(raw: str | None, level: str) -> None:
    assert parse_log_level(raw) == level


def test_unknown_log_level_is_refused(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITEA_LOG_LEVEL", "LOUD")
    assert main(["config", "vscode"]) == 2
    assert "GITEA_LOG_LEVEL='LOUD' is not a log level; use one of DEBUG, INFO, WARNING, ERROR, CRITICAL" in (
        capfd.readouterr().err
    )
