"""Issue 35's attacks on the sign-in that need the real forge, at a live Gitea (1.25.4 measured) with its OAuth2
provider on: a stolen Gitea code brought to the thief's own sign-in (finding 1), a refresh token replayed across two
replicas on one Redis and a client's own retry (finding 11), and a refresh narrowing its scopes (finding 16).

The victim signs in with a real browser (tests/signin/browser.py); the thief and the MCP client are plain HTTP.
Skipped unless tests/signin/live.py's variables name a live Gitea and the browser user can run; the replicas share
a redis-server of the test's own when one is installed, else finding 11 runs on one replica and says so.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from tests.contract.oauth_flow import Browser
from tests.signin import live
from tests.signin.plain_client import authorize_url, call_tool, exchange, refresh, refused, register, signed_in, tokens
from tests.signin.server import SigninServer, new_key
from tests.support.ports import reserved_port, unheard_port
from tests.support.redis_server import REDIS_SERVER, redis_server
from tests.support.results import rows_of

pytestmark = pytest.mark.slow

TITLE = "Only the victim can read this"
_PENDING = re.compile(r'<input type="hidden" name="pending" value="([^"]+)">')


@dataclass(frozen=True)
class World:
    forge: live.LiveGitea
    account: live.Account  # the victim: a private repository with one issue
    repo: str
    redis_url: str | None


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    forge = live.forge_for_the_browser()
    with ExitStack() as stack:
        account = forge.user("signin-attack")
        stack.callback(forge.delete_user, account)
        repo = forge.repo_with_issue(account, TITLE)
        redis_url = None
        if REDIS_SERVER is not None:
            redis_url = stack.enter_context(redis_server(Path(tmp_path_factory.mktemp("redis")))).url
        yield World(forge, account, repo, redis_url)


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as cleanup:
        yield cleanup


def _deployment(world: World, stack: ExitStack, confidential: bool = False) -> tuple[SigninServer, SigninServer]:
    """A fresh application (the victim meets Gitea's consent page) and two replicas of one deployment: the same key
    and public URL (A's), and the world's Redis when there is one."""
    # A confidential application gets no loopback port freedom: its URI names A's port, reserved until A listens.
    port = stack.enter_context(reserved_port())
    app = world.forge.app([f"http://127.0.0.1:{port}/callback"], confidential=confidential, name="signin-attack")
    stack.callback(world.forge.delete_app, app)
    secret = app.client_secret if confidential else None
    shared = world.redis_url or ""  # empty: unset
    key, owners = new_key(), world.account.login
    a = SigninServer(
        world.forge.url, app.client_id, secret, key=key, GITEA_MCP_PORT=str(port), GITEA_ALLOWED_OWNERS=owners,
        GITEA_MCP_REDIS_URL=shared,
    )  # fmt: skip
    stack.callback(a.stop)
    b = SigninServer(
        world.forge.url, app.client_id, secret, key=key, GITEA_MCP_PUBLIC_URL=a.url, GITEA_ALLOWED_OWNERS=owners,
        GITEA_MCP_REDIS_URL=shared,
    )  # fmt: skip
    stack.callback(b.stop)
    return a, b


def _query(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


# -- finding 1 ------------------------------------------------------------------------------------------------------


class OurBrowser:
    """One person's browser at our server, in plain HTTP: its own `gmcp_signin` cookie, no redirect followed."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.session = requests.Session()
        self.session.trust_env = False

    def approved(self) -> tuple[str, str]:
        """A client registered and its sign-in approved on our consent page: where our server sends the browser at
        Gitea (its URL, with the state our server made for this sign-in), and the client's own state."""
        started = register(self.base, f"http://127.0.0.1:{unheard_port()}/callback")
        page = self.session.get(authorize_url(self.base, started), allow_redirects=False, timeout=30)
        assert page.status_code == 200, f"/authorize answered {page.status_code}: {page.text[:300]}"
        pending = _PENDING.search(page.text)
        assert pending is not None, page.text[:300]
        form = {"pending": pending[1], "decision": "approve"}
        headers = {"Origin": self.base}
        approved = self.session.post(f"{self.base}/authorize", data=form, headers=headers, allow_redirects=False)
        assert approved.status_code == 303, approved.text[:300]
        return approved.headers["Location"], started.state

    def callback(self, code: str, state: str) -> dict[str, str]:
        """/callback in this browser; what the client's redirect URI is handed."""
        query = urlencode({"code": code, "state": state})
        answer = self.session.get(f"{self.base}/callback?{query}", allow_redirects=False, timeout=30)
        assert answer.status_code == 303, f"/callback answered {answer.status_code}: {answer.text[:300]}"
        return _query(answer.headers["Location"])


@pytest.mark.parametrize("confidential", [False, True], ids=["public-app", "confidential-app"])
def test_a_stolen_gitea_code_brought_to_the_thiefs_own_sign_in_is_refused_live(
    world: World, stack: ExitStack, confidential: bool
) -> None:
    """The victim signs in and consents on Gitea's consent page (a new application: the first sign-in); Gitea's
    redirect back to our /callback is seen on its way (a proxy's log) and withheld. The thief, in a browser of
    their own, approves a sign-in of their own and brings the victim's code to /callback with that sign-in's state:
    Gitea must refuse it (our PKCE towards it is per sign-in), and the victim's own /callback still finishes."""
    server, _ = _deployment(world, stack, confidential)
    victim, thief = OurBrowser(server.url), OurBrowser(server.url)
    to_gitea, victim_state = victim.approved()
    at_gitea = Browser(world.forge.url)
    at_gitea.sign_in(world.account.login, world.account.password)
    consent = at_gitea.session.get(to_gitea, allow_redirects=False, timeout=30)
    granted = at_gitea.consent(consent)  # Gitea's consent page: the victim authorizes the application
    back = _query(granted.headers["Location"])
    assert granted.headers["Location"].startswith(server.callback) and back["code"].startswith("gta_"), back
    stolen = back["code"]

    thief_to_gitea, thief_state = thief.approved()  # the thief never signs in at Gitea
    told = thief.callback(stolen, _query(thief_to_gitea)["state"])
    assert "code" not in told, "the thief's client was handed a code holding the victim's Gitea token"
    assert (told["error"], told["state"]) == ("access_denied", thief_state)
    assert "Gitea refused its code" in server.said(), server.said()[-600:]

    mine = victim.callback(stolen, back["state"])  # Gitea kept the code: a failed PKCE check does not spend it
    assert mine.get("state") == victim_state and mine.get("code", "").startswith("gmcp.k."), mine


# -- finding 11 -----------------------------------------------------------------------------------------------------


def _signed_in(world: World, server: SigninServer) -> tuple[str, dict[str, Any]]:
    """The victim signed in through a browser at `server`: the MCP client's ID and its first tokens."""
    redirect = f"http://127.0.0.1:{unheard_port()}/callback"
    grant = signed_in(server.url, server.url, world.account.login, world.account.password, redirect)
    return grant.started.client_id, tokens(exchange(server.url, grant))


def _listed(server: SigninServer, access: str, world: World) -> list[str]:
    answer = call_tool(server.url, access, "issue_list", {"owner": world.account.login, "name": world.repo})
    assert answer.status_code == 200, f"/mcp answered {answer.status_code}: {answer.text[:300]}"
    result = answer.json()["result"]
    assert result.get("isError") is not True, result
    return [issue["title"] for issue in rows_of(result["structuredContent"])]


def test_a_refresh_retried_is_answered_and_a_replay_ends_the_sign_in_on_every_replica_live(
    world: World, stack: ExitStack
) -> None:
    a, b = _deployment(world, stack)
    replay_at = b if world.redis_url else a  # without a shared store, replicas keep their marks apart
    client_id, first = _signed_in(world, a)
    answered = tokens(refresh(a.url, client_id, first["refresh_token"]))
    retried = tokens(refresh(a.url, client_id, first["refresh_token"]))  # the client lost the answer: asks again
    assert retried == answered, "a retry within the grace gets the same answer"
    assert _listed(a, answered["access_token"], world) == [TITLE]
    newest = tokens(refresh(a.url, client_id, answered["refresh_token"]))
    assert _listed(a, newest["access_token"], world) == [TITLE]

    replayed = refused(refresh(replay_at.url, client_id, first["refresh_token"]))  # a copy, in other hands
    assert replayed[:2] == (400, "invalid_grant") and "already used" in replayed[2], replayed
    gated = call_tool(a.url, newest["access_token"], "issue_list", {"owner": world.account.login, "name": world.repo})
    assert gated.status_code == 401, f"/mcp answered {gated.status_code}: {gated.text[:300]}"
    assert "ended" in gated.headers["WWW-Authenticate"], gated.headers["WWW-Authenticate"]
    ended = refused(refresh(a.url, client_id, newest["refresh_token"]))
    assert ended[:2] == (400, "invalid_grant") and "ended" in ended[2], ended
    print(f"\nreplayed at {'replica B (shared Redis)' if replay_at is b else 'the same replica (no redis-server)'}")


# -- finding 16 -----------------------------------------------------------------------------------------------------


def test_a_refresh_narrows_the_scopes_and_never_widens_them_live(world: World, stack: ExitStack) -> None:
    server, _ = _deployment(world, stack)
    client_id, first = _signed_in(world, server)
    assert first["scope"] == "write:issue read:user"
    narrow = tokens(_refresh_scoped(server.url, client_id, first["refresh_token"], "read:issue"))
    assert narrow["scope"] == "read:issue"
    assert _listed(server, narrow["access_token"], world) == [TITLE]
    create = {"owner": world.account.login, "name": world.repo, "title": f"Never filed {secrets.token_hex(2)}"}
    refused_create = call_tool(server.url, narrow["access_token"], "issue_create", create).json()["result"]
    assert refused_create["isError"] is True and "granted read:issue" in refused_create["content"][0]["text"]
    wider = refused(_refresh_scoped(server.url, client_id, narrow["refresh_token"], "write:repository"))
    assert wider[:2] == (400, "invalid_scope") and "never widen" in wider[2], wider


def _refresh_scoped(base: str, client_id: str, refresh_token: str, scope: str) -> requests.Response:
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id, "scope": scope}
    return requests.post(f"{base}/token", data=form, timeout=30)
