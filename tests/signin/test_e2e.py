"""Sign-in end to end (issue 24): a user adds our /mcp to a real MCP client, signs in at a live Gitea in a real
browser, and the client calls the tools with the token our server issued; no token pasted anywhere.

Each client: the official TypeScript SDK's (its own loopback listener receives the redirect) and the Python SDK's
OAuthClientProvider (the browser's redirect is intercepted and handed to its callback_handler). The steps: 401 and
discovery, /register, /authorize and our consent (`#approve`), Gitea's sign-in and consent, our /callback, the
client's redirect, /token, then tools/list and issue_list on a private repository only the new user can read.

Skipped unless tests/signin/live.py's variables name a live Gitea, and the browser user can run (CI has neither).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.signin import live
from tests.signin.browser import sign_in
from tests.signin.python_client import Run, run_client
from tests.signin.server import SigninServer
from tests.signin.typescript import run_ts_client
from tests.support.ports import unheard_port
from tests.support.results import rows_of

pytestmark = pytest.mark.slow

TITLE = "Signed in through the forge"


@dataclass(frozen=True)
class World:
    server: SigninServer
    account: live.Account
    repo: str

    def arguments(self) -> dict[str, str]:
        return {"owner": self.account.login, "name": self.repo}


@pytest.fixture
def world() -> Iterator[World]:
    forge = live.forge_for_the_browser()
    account = forge.user()
    # A public application with a loopback redirect and no port: Gitea accepts our callback on any port (RFC 8252).
    app = forge.app(["http://127.0.0.1/callback"])
    try:
        repo = forge.repo_with_issue(account, TITLE)
        server = SigninServer(forge.url, app.client_id, GITEA_ALLOWED_OWNERS=account.login)
        try:
            yield World(server, account, repo)
        finally:
            server.stop()
    finally:
        forge.delete_app(app)
        forge.delete_user(account)


def assert_one_sign_in_line(world: World, client: str) -> None:
    """The server's one line for the sign-in: who, with which client; no token of any kind in anything it said."""
    said = world.server.said()
    # the logger's lines only: the start-up line names the sign-in pool ("sign-in: 16 requests at once") too
    lines = [line for line in said.splitlines() if line.startswith("INFO gitea_mcp.signin:")]
    assert lines == [
        f"INFO gitea_mcp.signin: sign-in: {world.account.login} signed in with {client} (scopes write:issue read:user)"
    ], said
    assert "gmcp." not in said and "gta_" not in said and "eyJ" not in said, said


def listed_titles(result: dict[str, object]) -> list[str]:
    assert result.get("isError") is not True, result
    structured = result["structuredContent"]
    assert isinstance(structured, dict), result
    return [issue["title"] for issue in rows_of(structured)]


def test_the_typescript_sdk_client_signs_in_and_calls_the_tools(world: World) -> None:
    failures: list[str] = []
    redirects: list[str] = []

    def browser(url: str) -> str:
        # The client's listener took port 0: its redirect URI is the one the authorize URL carries, checked below.
        redirects.extend(parse_qs(urlsplit(url).query)["redirect_uri"])
        try:
            return sign_in(url, world.account.login, world.account.password, expect_redirect_prefix=redirects[-1])
        except AssertionError as failed:
            failures.append(str(failed))
            raise

    done = run_ts_client(world.server.mcp, world.arguments(), browser, seconds=90)
    assert failures == [], failures
    assert redirects == [done.redirect], (redirects, done.callback_port)
    assert done.returncode == 0, (done.errors, done.exchanges, world.server.said())
    assert [url.startswith(f"{world.server.url}/authorize?") for url in done.authorize_urls] == [True]
    tools, called = done.results
    assert "issue_list" in tools["tools"]
    assert listed_titles(called["issue_list"]) == [TITLE]
    assert_one_sign_in_line(world, "gitea-mcp signin-e2e (TypeScript SDK)")


def test_the_python_sdk_client_signs_in_and_calls_the_tools(world: World) -> None:
    redirect = f"http://127.0.0.1:{unheard_port()}/callback"

    def browser(url: str) -> str:
        login, password = world.account.login, world.account.password
        return sign_in(url, login, password, expect_redirect_prefix=redirect, intercept=True)

    run = Run()
    run_client(world.server.mcp, redirect, browser, world.arguments(), run, seconds=90)
    assert [url.startswith(f"{world.server.url}/authorize?") for url in run.authorize_urls] == [True]
    assert "issue_list" in run.tools
    assert run.issue_list is not None
    assert listed_titles(run.issue_list) == [TITLE]
    assert run.storage.tokens is not None and run.storage.tokens.refresh_token, "no refresh token was issued"
    assert_one_sign_in_line(world, "gitea-mcp signin-e2e (Python SDK)")
