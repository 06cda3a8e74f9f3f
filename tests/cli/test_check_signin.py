"""`check`'s sign-in lines (issue 24) against mocked answers shaped like the real ones: Gitea 1.25.4's OpenID
document and OAuth2 applications (spec-checked, and as the live server answered them), and our own discovery
document as serve builds it. Whole reports are golden (`UPDATE_GOLDEN=1` regenerates them).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
import responses
from pydantic import SecretStr
from responses import matchers

from gitea_mcp.cli.check import render, run_checks
from gitea_mcp.cli.main import main
from gitea_mcp.cli.signin_check import gitea_redirects
from gitea_mcp.gitea.release import ServerInfo
from gitea_mcp.server.discovery import resource_metadata
from gitea_mcp.settings import Settings
from tests.cli.test_check import answers, client, serve, settings
from tests.support.gitea_json import API, ROOT, api_error
from tests.support.gitea_spec import query_parameters, validate_definition
from tests.support.mocks import optional, refused_connection

GOLDEN = Path(__file__).resolve().parent / "golden" / "check_signin"
PUBLIC = "https://mcp.acme.test"
CLIENT_ID = "b7b4a4fe-e4ae-4187-8c18-8770db544318"
KEY = base64.urlsafe_b64encode(bytes(range(32))).decode()
APPS = f"{API}/user/applications/oauth2"
OPENID = f"{ROOT}/.well-known/openid-configuration"
DISCOVERY = f"{PUBLIC}/.well-known/oauth-protected-resource/mcp"
SCOPE_403 = "token does not have at least one of required scope(s), required=[read:user], token scope=read:issue"
# Gitea 1.25.4's document as it served it (http://127.0.0.1:3135, [oauth2] ENABLED=true), for ROOT.
OPENID_DOCUMENT = {
    "issuer": ROOT,
    "authorization_endpoint": f"{ROOT}/login/oauth/authorize",
    "token_endpoint": f"{ROOT}/login/oauth/access_token",
    "jwks_uri": f"{ROOT}/login/oauth/keys",
    "userinfo_endpoint": f"{ROOT}/login/oauth/userinfo",
    "introspection_endpoint": f"{ROOT}/login/oauth/introspect",
    "response_types_supported": ["code", "id_token"],
    "id_token_signing_alg_values_supported": ["RS256"],
    "subject_types_supported": ["public"],
    "scopes_supported": ["openid", "profile", "email", "groups"],
    "claims_supported": [
        "aud",
        "exp",
        "iat",
        "iss",
        "sub",
        "name",
        "preferred_username",
        "profile",
        "picture",
        "website",
        "locale",
        "updated_at",
        "email",
        "email_verified",
        "groups",
    ],
    "code_challenge_methods_supported": ["plain", "S256"],
    "grant_types_supported": ["authorization_code", "refresh_token"],
}
# Go's http.NotFound, which Gitea answers with [oauth2] ENABLED=false.
GO_404 = {"status": 404, "body": "404 page not found\n", "content_type": "text/plain; charset=utf-8"}


def app(
    name: str = "team-mcp",
    client_id: str = CLIENT_ID,
    uris: list[str] | None = None,
    confidential: bool = False,
    aid: int = 4,
) -> dict[str, Any]:
    """An application as GET /user/applications/oauth2 lists it on Gitea 1.25.4: the secret is never shown again."""
    document = {
        "id": aid,
        "name": name,
        "client_id": client_id,
        "client_secret": "",
        "confidential_client": confidential,
        "skip_secondary_authorization": False,
        "redirect_uris": [f"{PUBLIC}/callback"] if uris is None else uris,
        "created": "2026-12-02T11:23:10Z",
    }
    validate_definition("OAuth2Application", document)
    return document


def signin_settings(**changes: Any) -> Settings:
    values = {"transport": "http", "public_url": PUBLIC, "oauth_client_id": CLIENT_ID, "oauth_key": SecretStr(KEY)}
    return settings(**{**values, **changes})


def listed(*apps: dict[str, Any], total: int | None = None) -> dict[str, Any]:
    return {"json": list(apps), "headers": {"X-Total-Count": str(len(apps) if total is None else total)}}


def signin_answers(**changes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        "version": {"json": {"version": "1.25.4"}},
        "openid": {"json": OPENID_DOCUMENT},
        "apps": listed(app()),
        "discovery": {"json": resource_metadata(signin_settings())},
        **changes,
    }


def report(mocked: responses.RequestsMock, answer: dict[str, dict[str, Any]], **changes: Any) -> tuple[str, int]:
    chosen = signin_settings(**changes)
    serve(mocked, answers(version=answer["version"]))
    optional(mocked).get(OPENID, **answer["openid"])
    assert query_parameters("/user/applications/oauth2") >= {"page", "limit"}
    page = matchers.query_param_matcher({"page": "1", "limit": "50"})
    optional(mocked).get(APPS, match=[page], **answer["apps"])
    if "apps:2" in answer:
        optional(mocked).get(
            APPS, match=[matchers.query_param_matcher({"page": "2", "limit": "50"})], **answer["apps:2"]
        )
    optional(mocked).get(DISCOVERY, **answer["discovery"])
    lines = run_checks(chosen, client(chosen.token_value()))
    signin = [line for line in lines if line.text.startswith("sign-in: ")]
    return render(signin, chosen, "utf-8").split("\n", 1)[1], sum(line.mark == "fail" for line in lines)


CASES: dict[str, tuple[dict[str, dict[str, Any]], dict[str, Any], int]] = {
    "healthy": (signin_answers(), {}, 0),
    "provider-off": (signin_answers(openid=GO_404), {}, 1),
    "provider-behind-a-page": (
        signin_answers(openid={"body": "<html>sign in</html>", "content_type": "text/html"}),
        {},
        0,
    ),
    "no-token": (signin_answers(), {"token": None}, 0),
    "token-without-read-user": (signin_answers(apps={"status": 403, "json": api_error(SCOPE_403)}), {}, 0),
    "app-not-the-owners": (signin_answers(apps=listed(app(client_id="0c5e…", name="other"))), {}, 0),
    "app-on-the-second-page": (
        {
            **signin_answers(apps=listed(*(app(f"a{n}", f"id-{n}", aid=n) for n in range(50)), total=51)),
            "apps:2": listed(app()),
        },
        {},
        0,
    ),
    "wrong-redirect": (signin_answers(apps=listed(app(uris=["http://127.0.0.1:8765/callback"]))), {}, 1),
    "confidential-without-secret": (signin_answers(apps=listed(app(confidential=True))), {}, 1),
    "confidential-with-secret": (
        signin_answers(apps=listed(app(confidential=True))),
        {"oauth_client_secret": SecretStr("gto_s")},
        0,
    ),
    "secret-for-a-public-app": (signin_answers(), {"oauth_client_secret": SecretStr("gto_s")}, 1),
    "read-only-asks-less": (signin_answers(), {"read_only": True}, 0),
    "gitea-1.22-full-access": (signin_answers(version={"json": {"version": "1.22.6"}}), {}, 0),
    "forgejo-full-access": (signin_answers(version={"json": {"version": "12.0.4+gitea-1.22.0"}}), {}, 0),
    "serve-not-running": (signin_answers(discovery={"body": refused_connection()}), {}, 0),
    "discovery-for-another-origin": (
        signin_answers(discovery={"json": resource_metadata(signin_settings(public_url="https://old.acme.test"))}),
        {},
        1,
    ),
    "discovery-off": (signin_answers(discovery={"status": 404, "json": {"detail": "Not Found"}}), {}, 1),
    "public-host-not-allowed": (signin_answers(discovery={"status": 421, "body": "Invalid Host header"}), {}, 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_signin_lines_are_golden(name: str, mocked: responses.RequestsMock) -> None:
    answer, changes, fails = CASES[name]
    text, failed = report(mocked, answer, **changes)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8"), f"{path.name} changed; UPDATE_GOLDEN=1 and review"
    assert failed == fails
    assert "gto_s" not in text


def test_no_signin_lines_without_the_signin_settings(mocked: responses.RequestsMock) -> None:
    serve(mocked, answers())
    lines = run_checks(settings(), client())
    assert [line for line in lines if "sign-in" in line.text] == []


LOOPBACK = "http://127.0.0.1:57513/callback"


@pytest.mark.parametrize(
    ("registered", "callback", "confidential", "redirects"),
    [
        pytest.param([f"{PUBLIC}/callback"], f"{PUBLIC}/callback", False, True, id="exact"),
        pytest.param(["http://127.0.0.1/callback"], LOOPBACK, False, True, id="loopback-any-port"),
        pytest.param(["http://127.0.0.1/callback"], LOOPBACK, True, False, id="confidential"),
        pytest.param(["http://127.0.0.1:8765/callback"], LOOPBACK, False, False, id="other-port"),
        pytest.param(["http://127.0.0.1/other"], LOOPBACK, False, False, id="other-path"),
        pytest.param(["http://[::1]/callback"], "http://[::1]:57513/callback", False, False, id="ipv6-loopback"),
        pytest.param(["http://localhost/callback"], "http://localhost:57513/callback", False, False, id="a-name"),
        pytest.param(["https://mcp.acme.test/callback"], "https://mcp.acme.test:8443/callback", False, False, id="tls"),
    ],
)
def test_which_redirect_uris_gitea_takes_for_the_callback(
    registered: list[str], callback: str, confidential: bool, redirects: bool
) -> None:
    """Gitea's rule, seen live at 1.22.6 and 1.25.4 (tests/signin/test_check_live.py): a public application with
    http://127.0.0.1/callback signs users in through our server on any port, where check said "Gitea would refuse
    every sign-in"; [::1] and localhost are matched with their port."""
    assert gitea_redirects(registered, callback, confidential) is redirects


@pytest.mark.parametrize(
    ("version", "narrows"),
    [("1.25.4", True), ("1.23.0", True), ("1.22.6", False), ("12.0.4+gitea-1.22.0", False), ("11.0.15", False)],
)
def test_which_releases_narrow_oauth_scopes(version: str, narrows: bool) -> None:
    assert ServerInfo.parse(version).narrows_oauth_scopes is narrows


def test_check_takes_the_signin_settings_and_implies_http(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], mocked: responses.RequestsMock
) -> None:
    """Through the command line, as an operator runs it before serve: the whole report, the secret never shown."""
    for name, value in {"GITEA_URL": ROOT, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_MCP_OAUTH_KEY": KEY}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITEA_TOKEN", raising=False)
    monkeypatch.delenv("GITEA_MCP_TRANSPORT", raising=False)
    argv = ["check", "--public-url", PUBLIC, "--oauth-client-id", CLIENT_ID]
    serve(mocked, answers(version={"json": {"version": "1.25.4"}}))
    mocked.get(OPENID, json=OPENID_DOCUMENT)
    mocked.get(DISCOVERY, json=resource_metadata(signin_settings()))
    code = main(argv)
    out = capfd.readouterr().out
    assert code == 0
    # Over HTTP, callers bring their own tokens: a server without one is warned about, not refused.
    assert "! without a token issue_create, issue_update, issue_comment fail" in out
    assert f"✓ sign-in: {DISCOVERY} names the resource {PUBLIC}/mcp: clients find how to sign in" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--transport", "stdio"], "GITEA_MCP_PUBLIC_URL is set but the transport is stdio"),
        ([], "sign-in is on but GITEA_MCP_OAUTH_KEY is not set"),
    ],
)
def test_check_refuses_what_serve_would_refuse(
    argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    for name, value in {"GITEA_URL": ROOT, "GITEA_ALLOWED_OWNERS": "acme"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITEA_MCP_OAUTH_KEY", raising=False)
    code = main(["check", "--public-url", PUBLIC, "--oauth-client-id", CLIENT_ID, *argv])
    assert code == 2
    err = capfd.readouterr().err
    assert said in err and err.count("\n") == 1


NOT_REACHED = (
    "! sign-in: GITEA_MCP_PUBLIC_URL http://127.0.0.1:9000 names port 9000, but this server listens on port 8000"
)
TLS_ON_PLAIN = (
    "! sign-in: GITEA_MCP_PUBLIC_URL https://127.0.0.1:8000 is https on the port this server listens on (8000), but "
    "the server speaks plain HTTP there"
)


@pytest.mark.parametrize(
    ("public", "argv", "env", "said"),
    [
        pytest.param("http://127.0.0.1:9000", ["--port", "8000"], {}, NOT_REACHED, id="other-port"),
        pytest.param("http://127.0.0.1:9000", [], {}, NOT_REACHED, id="other-than-the-default-port"),
        pytest.param("http://127.0.0.1:9000", [], {"GITEA_MCP_PORT": "9000"}, None, id="port-from-the-environment"),
        pytest.param("http://127.0.0.1:9000", ["--port", "0"], {}, None, id="any-free-port"),
        pytest.param("https://127.0.0.1:8000", [], {}, TLS_ON_PLAIN, id="https-on-the-listener"),
        pytest.param("https://127.0.0.1:8443", [], {}, None, id="https-local-proxy"),
        pytest.param(PUBLIC, ["--host", "0.0.0.0"], {}, None, id="proxy"),
    ],
)
def test_check_warns_of_a_public_url_that_cannot_reach_the_listener(
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    mocked: responses.RequestsMock,
    public: str,
    argv: list[str],
    env: dict[str, str],
    said: str | None,
) -> None:
    """check reads the listener's --host and --port (or their variables) as serve would, and says the reason."""
    for name, value in {"GITEA_URL": ROOT, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_MCP_OAUTH_KEY": KEY, **env}.items():
        monkeypatch.setenv(name, value)
    for name in ("GITEA_TOKEN", "GITEA_MCP_TRANSPORT", "GITEA_MCP_HOST", *(() if env else ("GITEA_MCP_PORT",))):
        monkeypatch.delenv(name, raising=False)
    serve(mocked, answers(version={"json": {"version": "1.25.4"}}))
    optional(mocked).get(OPENID, json=OPENID_DOCUMENT)
    optional(mocked).get(f"{public}/.well-known/oauth-protected-resource/mcp", body=refused_connection())
    main(["check", "--public-url", public, "--oauth-client-id", CLIENT_ID, *argv])
    out = capfd.readouterr().out
    warned = [line for line in out.splitlines() if line.startswith("! sign-in: GITEA_MCP_PUBLIC_URL ")]
    if said is None:
        assert warned == [], out
        return
    assert len(warned) == 1 and warned[0].startswith(said), out
    assert "    fix: " in out.split(said, 1)[1].split("\n", 2)[1]
