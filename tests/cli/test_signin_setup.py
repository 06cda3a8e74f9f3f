"""`signin-setup` (issue 39): the forge's OAuth2 application made through Gitea's API when missing, the settings
printed, an existing application never changed unless `--rotate` is given. Against the stand-in always, and live
when GITEA_LIVE_URL and GITEA_LIVE_TOKEN name a Gitea with [oauth2] ENABLED (the one at :3126 here): each run
makes its own user, whose applications go with it."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from gitea_mcp.cli.main import FAILED, OK, USAGE, main
from gitea_mcp.standin import StandIn
from tests.contract.lab import LiveSeeder, StandInSeeder
from tests.contract.oauth_flow import token
from tests.contract.target import Http

LIVE_URL = os.environ.get("GITEA_LIVE_URL", "")
LIVE_TOKEN = os.environ.get("GITEA_LIVE_TOKEN", "")
PUBLIC = "https://i39-settings.example.test"
CALLBACK = f"{PUBLIC}/callback"


@dataclass(frozen=True)
class Forge:
    url: str
    http: Http
    login: str
    token: str  # write:user
    reader: str  # read:issue only


@pytest.fixture(params=["standin", *(["live"] if LIVE_URL and LIVE_TOKEN else [])])
def forge(request: pytest.FixtureRequest) -> Iterator[Forge]:
    login = f"i39s{secrets.token_hex(3)}"
    if request.param == "live":
        http = Http(LIVE_URL)
        seeder: LiveSeeder | StandInSeeder = LiveSeeder(http, LIVE_TOKEN)
        try:
            seeder.user(login)
            yield Forge(LIVE_URL.rstrip("/"), http, login, seeder.token(login, ["write:user"]),
                        seeder.token(login, ["read:issue"]))  # fmt: skip
        finally:
            seeder.cleanup()
        return
    with StandIn() as standin:
        seeder = StandInSeeder(standin)
        seeder.user(login)
        http = Http(standin.url)
        yield Forge(standin.url.rstrip("/"), http, login, seeder.token(login, ["write:user"]),
                    seeder.token(login, ["read:issue"]))  # fmt: skip


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("GITEA_", "FORGEJO_")) or name == "MCP_MODE":
            monkeypatch.delenv(name)


def setup(
    forge: Forge, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], *args: str, **env: str
) -> tuple[int, str]:
    given = {"GITEA_URL": forge.url, "GITEA_TOKEN": forge.token, "GITEA_MCP_PUBLIC_URL": PUBLIC, **env}
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    code = main(["signin-setup", *args])
    out, err = capfd.readouterr()
    return code, out + err


def _apps(forge: Forge) -> list[dict[str, object]]:
    return list(forge.http.ok("GET", "/user/applications/oauth2", forge.token, params={"limit": 50}))


def _printed(out: str, name: str) -> str | None:
    found = re.search(rf"^{name}=(\S+)", out, re.MULTILINE)
    return found.group(1) if found else None


def _secret_works(forge: Forge, client_id: str, secret: str) -> bool:
    """Gitea's token endpoint judges the secret before the code: a wrong one is "invalid client secret"."""
    form = {"grant_type": "authorization_code", "client_id": client_id, "client_secret": secret, "code": "none",
            "code_verifier": "x" * 43, "redirect_uri": CALLBACK}  # fmt: skip
    return "invalid client secret" not in token(forge.url, form).text


def test_a_missing_application_is_made_and_its_settings_printed(
    forge: Forge, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    code, out = setup(forge, monkeypatch, capfd, "--name", "i39-settings-app")
    assert code == OK, out
    client_id, secret = _printed(out, "GITEA_MCP_OAUTH_CLIENT_ID"), _printed(out, "GITEA_MCP_OAUTH_CLIENT_SECRET")
    assert client_id and secret and secret.startswith("gto_")
    assert _printed(out, "GITEA_MCP_PUBLIC_URL") == PUBLIC
    key = _printed(out, "GITEA_MCP_OAUTH_KEY")
    assert key is not None and len(key) == 44
    [made] = _apps(forge)
    assert made["client_id"] == client_id and made["redirect_uris"] == [CALLBACK]
    assert made["confidential_client"] is True and made["name"] == "i39-settings-app"
    assert _secret_works(forge, client_id, secret)

    # Again: found by its redirect URI, left as it is, no secret (Gitea shows it once), no new key.
    code, again = setup(forge, monkeypatch, capfd)
    assert code == OK, again
    assert "exists (confidential); it was not changed" in again
    assert _printed(again, "GITEA_MCP_OAUTH_CLIENT_ID") == client_id
    assert _printed(again, "GITEA_MCP_OAUTH_CLIENT_SECRET") is None and _printed(again, "GITEA_MCP_OAUTH_KEY") is None
    assert "--rotate makes a new one" in again
    assert _apps(forge) == [made] and _secret_works(forge, client_id, secret)


def test_an_application_without_the_callback_is_named_not_changed_and_rotate_changes_it(
    forge: Forge, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    old = ["https://old.example.test/callback"]
    body = {"name": "elsewhere", "redirect_uris": old, "confidential_client": True}
    made = forge.http.ok("POST", "/user/applications/oauth2", forge.token, json=body)
    client_id, secret = made["client_id"], made["client_secret"]
    code, out = setup(forge, monkeypatch, capfd, GITEA_MCP_OAUTH_CLIENT_ID=client_id)
    assert code == FAILED
    assert f"It does not redirect to {CALLBACK}, so Gitea would refuse every sign-in" in out
    assert f"/user/settings/applications/oauth2/{made['id']} (the web form keeps the secret)" in out
    assert "or run again with --rotate (an update makes a new client secret" in out
    assert _apps(forge)[0]["redirect_uris"] == old and _secret_works(forge, client_id, secret)

    code, out = setup(forge, monkeypatch, capfd, "--rotate", GITEA_MCP_OAUTH_CLIENT_ID=client_id)
    assert code == OK, out
    assert "every replica still holding it cannot sign anyone in until it is given the new one" in out
    new = _printed(out, "GITEA_MCP_OAUTH_CLIENT_SECRET")
    assert new is not None and new != secret and _printed(out, "GITEA_MCP_OAUTH_KEY") is None
    [app] = _apps(forge)
    assert app["client_id"] == client_id and app["redirect_uris"] == [*old, CALLBACK]
    assert not _secret_works(forge, client_id, secret) and _secret_works(forge, client_id, new)


def test_a_public_client_when_asked(
    forge: Forge, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    code, out = setup(forge, monkeypatch, capfd, "--public")
    assert code == OK and "a public client (no secret)" in out, out
    assert _printed(out, "GITEA_MCP_OAUTH_CLIENT_SECRET") is None
    assert _apps(forge)[0]["confidential_client"] is False


def test_a_token_without_the_user_scope_is_told_which_it_needs(
    forge: Forge, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    code, out = setup(forge, monkeypatch, capfd, GITEA_TOKEN=forge.reader)
    assert code == FAILED
    assert "the token may not list OAuth2 applications" in out and "it needs read:user" in out
    assert "with write:user" in out and "Traceback" not in out


def test_a_client_id_of_someone_else_is_named(
    forge: Forge, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    code, out = setup(forge, monkeypatch, capfd, GITEA_MCP_OAUTH_CLIENT_ID="0d7c1b52-1b1e-4c1b-9c38-3f1f4c7c0e55")
    assert code == FAILED and "is no OAuth2 application of this token's user" in out
    assert _apps(forge) == []


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"GITEA_MCP_PUBLIC_URL": ""}, "GITEA_MCP_PUBLIC_URL is set but empty"),
        ({"GITEA_TOKEN": "${GITEA_TOKEN}"}, "a variable the MCP client did not expand"),
        ({"GITEA_MCP_PUBLIC_URL": "http://localhost:8000"}, "names localhost"),
    ],
)
def test_its_settings_are_checked_as_serve_checks_them(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], env: dict[str, str], said: str
) -> None:
    offline = Forge("http://127.0.0.1:9", Http("http://127.0.0.1:9"), "nobody", "0" * 40, "0" * 40)
    code, out = setup(offline, monkeypatch, capfd, **env)
    assert code == USAGE and said in out, out


def test_it_needs_url_token_and_public_url(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["signin-setup"]) == USAGE
    err = capfd.readouterr().err
    assert err.startswith("gitea-issues-mcp: signin-setup needs GITEA_URL (the forge") and "GITEA_MCP_PUBLIC_URL" in err
