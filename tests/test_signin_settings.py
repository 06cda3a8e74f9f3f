"""The sign-in settings (issue 24, first step): each mistake one sentence naming the setting, checked at start."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path

import pytest
from pydantic import SecretStr

from gitea_mcp.cli.main import main, parse_args, settings_from
from gitea_mcp.settings import ConfigError, Settings, public_url_unreachable

KEY = base64.urlsafe_b64encode(bytes(range(32))).decode()
OLD_KEY = base64.urlsafe_b64encode(bytes(range(32, 64))).decode()
SHORT_KEY = base64.urlsafe_b64encode(bytes(16)).decode()
CLIENT_ID = "5b2c3e9a-0f1d-4c7e-9a8b-2d6f1e0c4b3a"
BASE = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme", "GITEA_MCP_TRANSPORT": "http"}
SIGNIN = {"GITEA_MCP_PUBLIC_URL": "https://mcp.example.com", "GITEA_MCP_OAUTH_CLIENT_ID": CLIENT_ID,
          "GITEA_MCP_OAUTH_KEY": KEY}  # fmt: skip
NAMES = [*BASE, *SIGNIN, "GITEA_MCP_OAUTH_CLIENT_SECRET", "GITEA_TOKEN", "GITEA_MCP_HTTP_SECRET",
         "GITEA_MCP_CLIENT_METADATA_DOCUMENTS"]  # fmt: skip
MAKE_KEY = "make one with python3 -c 'import base64, os; print(base64.urlsafe_b64encode(os.urandom(32)).decode())'"
ORIGIN = "write it as https://mcp.example.com (or http://127.0.0.1:PORT for a trial)"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)


def _settings(
    monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str | None], argv: list[str] | None = None
) -> Settings:
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    return settings_from(parse_args(argv or []))


@pytest.mark.parametrize(
    ("env", "sentence"),
    [
        pytest.param({"GITEA_MCP_TRANSPORT": None}, "GITEA_MCP_PUBLIC_URL is set but the transport is stdio: "
                     "sign-in is for the HTTP server; set GITEA_MCP_TRANSPORT=http (--transport http), or remove "
                     "the sign-in settings.", id="stdio"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": None}, "GITEA_MCP_OAUTH_CLIENT_ID is set but GITEA_MCP_PUBLIC_URL is "
                     "not: sign-in needs GITEA_MCP_PUBLIC_URL and GITEA_MCP_OAUTH_CLIENT_ID together; set both, or "
                     "remove the sign-in settings", id="no-public-url"),
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_ID": None}, "GITEA_MCP_PUBLIC_URL is set but GITEA_MCP_OAUTH_CLIENT_ID "
                     "is not: sign-in needs GITEA_MCP_PUBLIC_URL and GITEA_MCP_OAUTH_CLIENT_ID together; set both, or "
                     "remove the sign-in settings", id="no-client-id"),
        pytest.param({"GITEA_MCP_OAUTH_KEY": None}, "sign-in is on but GITEA_MCP_OAUTH_KEY is not set: give every "
                     f"replica the same key, {MAKE_KEY.replace('make one', 'made')}", id="no-key"),
        pytest.param({"GITEA_MCP_OAUTH_KEY": SHORT_KEY}, "GITEA_MCP_OAUTH_KEY key is not 32 bytes in URL-safe base64 "
                     f"(44 characters); {MAKE_KEY}", id="short-key"),
        pytest.param({"GITEA_MCP_OAUTH_KEY": "not base64 at all!"}, "GITEA_MCP_OAUTH_KEY key is not 32 bytes in "
                     f"URL-safe base64 (44 characters); {MAKE_KEY}", id="not-base64"),
        pytest.param({"GITEA_MCP_OAUTH_KEY": f"{KEY},{SHORT_KEY}"}, "GITEA_MCP_OAUTH_KEY entry 2 of 2 is not 32 bytes "
                     f"in URL-safe base64 (44 characters); {MAKE_KEY}", id="second-key-short"),
        pytest.param({"GITEA_MCP_OAUTH_KEY": f"{KEY},"}, "GITEA_MCP_OAUTH_KEY entry 2 of 2 is not 32 bytes in URL-safe "
                     f"base64 (44 characters); {MAKE_KEY}", id="trailing-comma"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "http://mcp.example.com"}, "GITEA_MCP_PUBLIC_URL "
                     "'http://mcp.example.com' is plain http on a host other than 127.0.0.1: sign-in codes and tokens "
                     "would cross the network in the clear; use https (a TLS proxy in front), or "
                     "http://127.0.0.1:PORT for a trial", id="plain-http"),
        # Issue 39: localhost is loopback, so "in the clear" was the wrong reason; the name's two addresses are the
        # right one.
        pytest.param({"GITEA_MCP_PUBLIC_URL": "http://localhost:8000"}, "GITEA_MCP_PUBLIC_URL 'http://localhost:8000' "
                     "names localhost, which a browser or client may resolve to ::1 or to 127.0.0.1 while the server "
                     "listens on one of them, and Gitea matches the redirect URI as written; write the address itself: "
                     "http://127.0.0.1:PORT", id="plain-http-localhost"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "mcp.example.com"}, "GITEA_MCP_PUBLIC_URL must be an origin such as "
                     "https://mcp.example.com (or http://127.0.0.1:PORT for a trial) (got 'mcp.example.com')",
                     id="no-scheme"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "https://mcp.example.com/mcp"}, "GITEA_MCP_PUBLIC_URL must be the origin "
                     "alone, without a path, query or fragment (the server serves /mcp and its sign-in pages at the "
                     f"root): {ORIGIN}", id="path"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "https://mcp.example.com/?a=1"}, "GITEA_MCP_PUBLIC_URL must be the "
                     "origin alone, without a path, query or fragment (the server serves /mcp and its sign-in pages "
                     f"at the root): {ORIGIN}", id="query"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "https://mcp.example.com#top"}, "GITEA_MCP_PUBLIC_URL must be the "
                     "origin alone, without a path, query or fragment (the server serves /mcp and its sign-in pages "
                     f"at the root): {ORIGIN}", id="fragment"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "https://mcp.example.com:x"}, "GITEA_MCP_PUBLIC_URL has a port that is "
                     f"not a number; {ORIGIN}", id="port"),
        pytest.param({"GITEA_MCP_PUBLIC_URL": "https://ops:hunter2@mcp.example.com"}, "GITEA_MCP_PUBLIC_URL contains "
                     "a user name or password (user:pass@host); remove it", id="credentials"),
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_ID": "abc def"}, "GITEA_MCP_OAUTH_CLIENT_ID is not a client ID (it holds "
                     "spaces or control characters, or is over 255 characters); paste the Client ID Gitea showed for "
                     "the OAuth2 application", id="client-id-space"),
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_ID": "df66a1b2c3d4e5f60718293a4b5c6d7e8f901234"},
                     "GITEA_MCP_OAUTH_CLIENT_ID looks like an access token (a long run of hex digits); paste the "
                     "Client ID of the OAuth2 application (a UUID) here, and keep tokens out of it",
                     id="client-id-token"),
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_SECRET": "gto_abc def"}, "GITEA_MCP_OAUTH_CLIENT_SECRET contains spaces "
                     "or control characters inside it; paste the Client Secret Gitea showed, alone",
                     id="secret-space"),
    ],
)  # fmt: skip
def test_each_mistake_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str | None], sentence: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        _settings(monkeypatch, {**BASE, **SIGNIN, **env})
    assert str(refused.value).removesuffix(".") == sentence.removesuffix(".")
    assert "hunter2" not in str(refused.value)


@pytest.mark.parametrize(
    ("public_url", "kept"),
    [
        ("https://mcp.example.com", "https://mcp.example.com"),
        ("https://MCP.Example.com/", "https://mcp.example.com"),
        ("https://mcp.example.com:8443", "https://mcp.example.com:8443"),
        (" http://127.0.0.1:8000/\n", "http://127.0.0.1:8000"),
    ],
)
def test_sign_in_is_on_with_a_public_url_a_client_id_and_a_key(
    monkeypatch: pytest.MonkeyPatch, public_url: str, kept: str
) -> None:
    settings = _settings(monkeypatch, {**BASE, **SIGNIN, "GITEA_MCP_PUBLIC_URL": public_url})
    assert settings.signin is True and settings.public_url == kept


def test_the_first_key_signs_and_every_key_is_kept_for_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _settings(monkeypatch, {**BASE, **SIGNIN, "GITEA_MCP_OAUTH_KEY": f" {KEY} , {OLD_KEY}\n"})
    assert settings.signin_keys() == [bytes(range(32)), bytes(range(32, 64))]


def test_sign_in_is_off_without_its_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _settings(monkeypatch, BASE)
    assert settings.signin is False and settings.signin_keys() == []


def test_each_setting_has_its_equal_flag(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The secrets by the files their flags name (never on the command line: issue 35)."""
    (tmp_path / "secret").write_text("gto_secret\n")
    (tmp_path / "key").write_text(KEY)
    files = ["--oauth-client-secret-file", str(tmp_path / "secret"), "--oauth-key-file", str(tmp_path / "key")]
    argv = ["serve", "--public-url", "https://mcp.example.com", f"--oauth-client-id={CLIENT_ID}", *files]
    settings = _settings(monkeypatch, BASE, argv)
    assert settings.public_url == "https://mcp.example.com"
    assert settings.oauth_client_id == CLIENT_ID
    secret = settings.oauth_client_secret
    assert secret is not None and secret.get_secret_value() == "gto_secret"
    assert settings.signin_keys() == [bytes(range(32))]


@pytest.mark.parametrize("command", ["call", "config"])  # check takes them too: it verifies the set-up
def test_only_the_server_and_check_take_them(capfd: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit) as usage:
        main([command, "--public-url", "https://mcp.example.com"])
    assert usage.value.code == 2
    assert f"--public-url does nothing for {command}" in capfd.readouterr().err


GITEA_SECRET = "gto_" + "k7q3xw2mvb5nd4zr6tyh8pfj2cl3gs7a9ueo4wbd6mqi5xnz2rtq"  # Gitea's shape: gto_ + 52 base32


@pytest.mark.parametrize(
    ("env", "said"),
    [
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_ID": GITEA_SECRET}, "looks like a client secret (it begins gto_",
                     id="gitea-secret-as-id"),
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_ID": GITEA_SECRET.upper()}, "looks like a client secret",
                     id="upper-case"),
        pytest.param({"GITEA_MCP_OAUTH_CLIENT_ID": CLIENT_ID, "GITEA_MCP_OAUTH_CLIENT_SECRET": CLIENT_ID},
                     "is the same as GITEA_MCP_OAUTH_CLIENT_SECRET", id="id-equals-secret"),
    ],
)  # fmt: skip
def test_a_client_secret_pasted_as_the_client_id_is_refused_never_sent_to_a_browser(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], env: dict[str, str], said: str
) -> None:
    """The client ID travels in every sign-in's URL to Gitea, through each user's browser (issue 35, finding 13): a
    secret there would be shown to all of them. Refused at start, in a sentence that does not quote it."""
    with pytest.raises(ConfigError) as refused:
        _settings(monkeypatch, {**BASE, **SIGNIN, **env})
    assert said in str(refused.value)
    assert env["GITEA_MCP_OAUTH_CLIENT_ID"] not in str(refused.value)
    assert main(["serve"]) == 2  # serve stops at once, saying why, never quoting it
    assert GITEA_SECRET not in capfd.readouterr().err


@pytest.mark.parametrize(
    ("raw", "documents"), [(None, True), ("true", True), ("false", False), ("off", False), ("0", False)]
)
def test_client_metadata_documents_are_on_unless_turned_off(
    monkeypatch: pytest.MonkeyPatch, raw: str | None, documents: bool
) -> None:
    settings = _settings(monkeypatch, {**BASE, **SIGNIN, "GITEA_MCP_CLIENT_METADATA_DOCUMENTS": raw})
    assert settings.client_metadata_documents is documents
    from gitea_mcp.server.discovery import server_metadata

    assert server_metadata(settings)["client_id_metadata_document_supported"] is documents


def test_a_doubtful_client_metadata_documents_stops_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="GITEA_MCP_CLIENT_METADATA_DOCUMENTS='treu' is not true or false"):
        _settings(monkeypatch, {**BASE, **SIGNIN, "GITEA_MCP_CLIENT_METADATA_DOCUMENTS": "treu"})


OTHER_PORT = "names port 9000, but this server listens on port 8000"
TLS_ON_PLAIN = "is https on the port this server listens on (8000), but the server speaks plain HTTP there"


@pytest.mark.parametrize(
    ("public_url", "host", "port", "said"),
    [
        pytest.param("http://127.0.0.1:8000", "127.0.0.1", 8000, None, id="http-same-port"),
        pytest.param("http://127.0.0.1:9000", "127.0.0.1", 8000, OTHER_PORT, id="http-other-port"),
        pytest.param("http://127.0.0.1", "127.0.0.1", 8000, OTHER_PORT.replace("9000", "80"), id="http-on-80"),
        pytest.param("http://127.0.0.1:80", "127.0.0.1", 80, None, id="http-80-on-80"),
        pytest.param("http://127.0.0.1:9000", "0.0.0.0", 8000, OTHER_PORT, id="http-loopback-all-interfaces"),
        pytest.param("https://127.0.0.1:8000", "127.0.0.1", 8000, TLS_ON_PLAIN, id="https-own-port"),
        pytest.param("https://localhost:8000", "127.0.0.1", 8000, TLS_ON_PLAIN, id="https-localhost-own-port"),
        pytest.param("https://[::1]:8000", "::1", 8000, TLS_ON_PLAIN, id="https-ipv6-own-port"),
        pytest.param("https://10.0.0.5:8000", "10.0.0.5", 8000, TLS_ON_PLAIN, id="https-listen-address-own-port"),
        pytest.param("https://MCP.example.com:8000", "mcp.Example.com", 8000, TLS_ON_PLAIN, id="https-listen-name"),
        pytest.param("https://localhost", "127.0.0.1", 443, TLS_ON_PLAIN.replace("8000", "443"), id="https-on-443"),
        # A TLS proxy on this machine, on a port of its own: how sign-in is meant to be run.
        pytest.param("https://127.0.0.1:8443", "127.0.0.1", 8000, None, id="https-local-proxy"),
        pytest.param("https://localhost", "127.0.0.1", 8000, None, id="https-local-proxy-443"),
        pytest.param("https://10.0.0.5:8443", "10.0.0.5", 8000, None, id="https-listen-address-other-port"),
        # Another host is a proxy's, which may serve any scheme on any port.
        pytest.param("https://mcp.example.com", "0.0.0.0", 8000, None, id="proxy"),
        pytest.param("https://mcp.example.com:8000", "0.0.0.0", 8000, None, id="proxy-same-port-number"),
        pytest.param("https://mcp.example.com:8000", "10.0.0.5", 8000, None, id="proxy-other-host"),
        # Any free port: nothing to compare with until it is bound.
        pytest.param("http://127.0.0.1:9000", "127.0.0.1", 0, None, id="any-free-port"),
    ],
)
def test_a_public_url_that_cannot_reach_the_listener_is_warned_about(
    public_url: str, host: str, port: int, said: str | None
) -> None:
    settings = Settings(
        url="https://g.example",
        allowed_owners=frozenset({"acme"}),
        transport="http",
        host=host,
        port=port,
        public_url=public_url,
        oauth_client_id=CLIENT_ID,
        oauth_key=SecretStr(KEY),
    )
    found = public_url_unreachable(settings, port)
    if said is None:
        assert found is None
        return
    assert found is not None
    cause, remedy = found
    assert cause.startswith(f"GITEA_MCP_PUBLIC_URL {settings.public_url} ")
    assert said in cause, cause
    assert remedy and "\n" not in cause + remedy


def test_no_public_url_is_nothing_to_warn_about() -> None:
    settings = Settings(url="https://g.example", allowed_owners=frozenset({"acme"}), transport="http")
    assert public_url_unreachable(settings, 8000) is None
