"""Refresh and revocation at a live Gitea (issue 24), timed: a refresh gives tokens that work, and the same refresh
at once gives the same answer (a client's retry); once the user revokes the application in Gitea (Settings,
Applications), our access token is refused at the next request with error="invalid_token" and the refresh says to
sign in again.

The gate asks Gitea about each Gitea token once per 60 seconds (gitea_mcp/server/bearers.py). The token after
revocation is therefore shown to a FRESH replica (the same key and public URL, a new process): it has not seen
it, so it asks Gitea at once. The replica that saw it within the minute is asked too, and what it answers is
recorded: the cache may let the request past the gate, but Gitea itself then refuses the tool's call.

Skipped unless tests/signin/live.py's variables name a live Gitea and the browser user can run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest

from tests.signin import live
from tests.signin.plain_client import call_tool, exchange, refresh, refused, signed_in, tokens
from tests.signin.server import SigninServer, new_key
from tests.support.ports import unheard_port
from tests.support.results import rows_of

pytestmark = pytest.mark.slow

TITLE = "Kept by a refreshed sign-in"


@dataclass(frozen=True)
class World:
    forge: live.LiveGitea
    server: SigninServer
    account: live.Account
    repo: str
    key: str
    client_id: str  # the Gitea application's

    def arguments(self) -> dict[str, str]:
        return {"owner": self.account.login, "name": self.repo}

    def replica(self) -> SigninServer:
        """Another process of the same deployment: the same key and public URL, nothing seen yet."""
        env = {"GITEA_MCP_PUBLIC_URL": self.server.url, "GITEA_ALLOWED_OWNERS": self.account.login}
        return SigninServer(self.forge.url, self.client_id, key=self.key, **env)


@pytest.fixture
def world() -> Iterator[World]:
    forge = live.forge_for_the_browser()
    with ExitStack() as stack:
        account = forge.user("signin-refresh")
        stack.callback(forge.delete_user, account)
        app = forge.app(["http://127.0.0.1/callback"])
        stack.callback(forge.delete_app, app)
        repo = forge.repo_with_issue(account, TITLE)
        key = new_key()
        server = SigninServer(forge.url, app.client_id, key=key, GITEA_ALLOWED_OWNERS=account.login)
        stack.callback(server.stop)
        yield World(forge, server, account, repo, key, app.client_id)


def listed(answer: Any) -> list[str]:
    assert answer.status_code == 200, f"/mcp answered {answer.status_code}: {answer.text[:300]}"
    result = answer.json()["result"]
    assert result.get("isError") is not True, result
    return [issue["title"] for issue in rows_of(result["structuredContent"])]


def test_a_refresh_works_once_and_a_revoked_sign_in_is_refused_at_once(world: World) -> None:
    took: dict[str, float] = {}
    base = world.server.url

    def timed(step: str, began: float) -> None:
        took[step] = round(time.monotonic() - began, 3)

    redirect = f"http://127.0.0.1:{unheard_port()}/callback"
    began = time.monotonic()
    grant = signed_in(base, base, world.account.login, world.account.password, redirect)
    first = tokens(exchange(base, grant))
    timed("register + browser sign-in + exchange", began)
    client_id = grant.started.client_id
    assert listed(call_tool(base, first["access_token"], "issue_list", world.arguments())) == [TITLE]

    began = time.monotonic()
    second = tokens(refresh(base, client_id, first["refresh_token"]))
    timed("refresh (Gitea's refresh inside)", began)
    assert second["access_token"] != first["access_token"] and second["refresh_token"] != first["refresh_token"]
    assert listed(call_tool(base, second["access_token"], "issue_list", world.arguments())) == [TITLE]
    # The same refresh again at once is its client's retry (a lost answer): the same answer. A replay after that
    # ends the sign-in (tests/signin/test_attacks_live.py), which would end this test's too.
    assert tokens(refresh(base, client_id, first["refresh_token"])) == second

    control = world.replica()  # the same deployment takes the token before revocation: what follows is Gitea's doing
    try:
        assert listed(call_tool(control.url, second["access_token"], "issue_list", world.arguments())) == [TITLE]
    finally:
        control.stop()

    began = time.monotonic()
    assert len(world.forge.revoke_grants(world.account)) == 1, "the user had authorized one application"
    timed("revoke in Gitea's web UI (sign in, page, post)", began)

    began = time.monotonic()
    fresh = world.replica()
    timed("a fresh replica started", began)
    try:
        began = time.monotonic()
        gated = call_tool(fresh.url, second["access_token"], "issue_list", world.arguments())
        timed("/mcp with the revoked sign-in (fresh replica)", began)
    finally:
        fresh.stop()
    assert gated.status_code == 401, f"/mcp answered {gated.status_code}: {gated.text[:300]}"
    assert 'error="invalid_token"' in gated.headers["WWW-Authenticate"], gated.headers["WWW-Authenticate"]
    assert "Gitea no longer accepts this sign-in" in gated.text, gated.text

    began = time.monotonic()
    cached = call_tool(base, second["access_token"], "issue_list", world.arguments())
    timed("/mcp with the revoked sign-in (the replica that saw it)", began)
    # Within the gate's minute the request may pass it; Gitea then refuses the tool's call, said as a sign-in's end.
    assert cached.status_code == 401 or cached.json()["result"].get("isError") is True, cached.text[:300]
    assert "sign in again" in cached.text, cached.text[:300]

    began = time.monotonic()
    ended = refused(refresh(base, client_id, second["refresh_token"]))
    timed("refresh after revocation", began)
    assert ended[:2] == (400, "invalid_grant") and "sign in again" in ended[2], ended
    seen = cached.text if cached.status_code == 401 else cached.json()["result"]["content"][0]["text"]
    print(f"\nrefresh and revocation, seconds: {took}; the replica that saw the token said: {seen}")
