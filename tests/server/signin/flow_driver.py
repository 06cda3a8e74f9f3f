"""The whole sign-in driven in process over plain HTTP, as a browser and an MCP client would: our server is a
starlette TestClient (no redirect followed), the stand-in's Gitea a real HTTP server on 127.0.0.1 reached with a
requests session. The driver moves between them by hand: a Location read from one is the next request to the
other, and our `gmcp_signin` cookie is carried explicitly (never by a cookie jar), so a test can leave it out or
send another browser's.
"""

from __future__ import annotations

import base64
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests
from starlette.testclient import TestClient

from gitea_mcp.server import http
from gitea_mcp.server.app import build_server
from gitea_mcp.server.signin import context
from gitea_mcp.server.signin.context import COOKIE, SignIn
from gitea_mcp.settings import Settings
from gitea_mcp.standin import DEMO_ALL_TOKEN, StandIn
from gitea_mcp.standin.core import Request, Response
from tests.contract.oauth_flow import pkce, query_of

PUBLIC = "http://127.0.0.1:8790"  # nothing listens there: the TestClient answers for it
RESOURCE = PUBLIC + "/mcp"
CLIENT_REDIRECT = "http://127.0.0.1:33418/oauth/callback"  # the MCP client's loopback listener (never reached)
LOGIN, PASSWORD = "demo", "demo-password"  # a seeded user, admin of acme/widgets
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
_PENDING = re.compile(r'<input type="hidden" name="pending" value="([^"]+)">')
_GRANT_HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)"')


@dataclass(eq=False)  # hashed by identity: the sealer's cache is keyed by its clock
class Clock:
    """Real time, moved on by `advance`: what our server's codes and tokens expire by."""

    offset: float = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@dataclass(frozen=True)
class GiteaApp:
    """Our server's OAuth2 application at the stand-in."""

    id: int
    client_id: str
    secret: str


def forge() -> StandIn:
    """A started stand-in (seeded: acme/widgets) whose user `demo` can sign in on the web form."""
    standin = StandIn()
    standin.store.oauth.passwords[LOGIN] = PASSWORD
    standin.start()
    return standin


def gitea_app(standin: StandIn) -> GiteaApp:
    """A confidential application registered through Gitea's API, its redirect URI our /callback."""
    body = {"name": "gitea-mcp", "redirect_uris": [f"{PUBLIC}/callback"], "confidential_client": True}
    made = requests.post(
        f"{standin.url}/api/v1/user/applications/oauth2",
        json=body,
        headers={"Authorization": f"token {DEMO_ALL_TOKEN}"},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    answer = made.json()
    return GiteaApp(int(answer["id"]), str(answer["client_id"]), str(answer["client_secret"]))


class Received:
    """Every request the stand-in answered while open, whole (its own log keeps no Authorization header)."""

    def __init__(self, standin: StandIn) -> None:
        self.requests: list[Request] = []
        self._standin = standin

    def __enter__(self) -> Received:
        handle = self._standin.api.handle

        def recorded(request: Request) -> Response:
            self.requests.append(request)
            return handle(request)

        self._standin.api.handle = recorded  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        del self._standin.api.handle  # the class's own again

    def authorizations(self) -> list[str]:
        return [request.authorization for request in self.requests if request.authorization]

    def text(self) -> str:
        """All the stand-in was sent: paths, queries, headers and bodies, to look for a value in."""
        parts = [f"{r.raw_path}?{r.raw_query}\n{r.headers}\n{r.raw_body.decode('latin-1')}" for r in self.requests]
        return "\n".join(parts)


@contextmanager
def captured_signin() -> Iterator[list[SignIn]]:
    """The SignIn `http.app` builds, kept for a test to look into (it holds no per-user state, it says)."""
    made: list[SignIn] = []
    original = context.build

    def build(settings: Settings, client: Any, clock: Callable[[], float] = time.time) -> SignIn:
        made.append(original(settings, client, clock))
        return made[-1]

    context.build = build
    try:
        yield made
    finally:
        context.build = original


def settings_for(standin: StandIn, app: GiteaApp, **extra: Any) -> Settings:
    key = base64.urlsafe_b64encode(os.urandom(32)).decode()
    return Settings.model_validate(
        {
            "url": standin.url,
            "allowed_owners": frozenset({"acme"}),
            "transport": "http",
            "public_url": PUBLIC,
            "oauth_client_id": app.client_id,
            "oauth_client_secret": app.secret,
            "oauth_key": key,
            **extra,
        }
    )


@dataclass
class Server:
    """Our server in process, with a clock of its own and the SignIn it built."""

    settings: Settings
    clock: Clock
    signin: SignIn
    client: TestClient

    @classmethod
    def start(cls, standin: StandIn, app: GiteaApp, **extra: Any) -> Server:
        settings, clock = settings_for(standin, app, **extra), Clock()
        with captured_signin() as made:
            asgi = http.app(build_server(settings), settings, clock=clock)
        assert len(made) == 1
        client = TestClient(asgi, base_url=PUBLIC, follow_redirects=False)
        client.__enter__()  # the lifespan: the MCP app's session manager runs in it
        return cls(settings, clock, made[0], client)

    def close(self) -> None:
        self.client.__exit__(None, None, None)

    def request(self, method: str, path: str, cookie: str | None = None, **kwargs: Any) -> Any:
        """One request; `cookie` is our sign-in cookie as this browser holds it (the jar is emptied each time)."""
        headers = dict(kwargs.pop("headers", {}))
        if cookie is not None:
            headers["Cookie"] = f"{COOKIE}={cookie}"
        self.client.cookies.clear()
        answer = self.client.request(method, path, headers=headers, **kwargs)
        self.client.cookies.clear()
        return answer

    def register(self, **metadata: Any) -> Any:
        body = {"client_name": "Flow test client", "redirect_uris": [CLIENT_REDIRECT], **metadata}
        return self.request("POST", "/register", json=body)

    def mcp(self, token: str, method: str, params: dict[str, Any] | None = None) -> Any:
        call = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
        return self.request("POST", "/mcp", json=call, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})

    def issue_list(self, token: str) -> Any:
        params = {"name": "issue_list", "arguments": {"owner": "acme", "name": "widgets", "limit": 2}}
        return self.mcp(token, "tools/call", params)

    def token(self, **form: str) -> Any:
        return self.request("POST", "/token", data=form)


def cookie_of(answer: Any) -> str:
    """The value our server set in its sign-in cookie."""
    value = answer.cookies.get(COOKIE)
    assert value, f"no {COOKIE} cookie set: {answer.headers}"
    return str(value)


def pending_of(page: Any) -> str:
    found = _PENDING.search(page.text)
    assert found is not None, f"the consent page has no pending field: {page.text[:300]}"
    return found[1]


class GiteaBrowser:
    """The browser's side at Gitea: its own session cookie, signs in when sent to, consents when asked."""

    def __init__(self, standin: StandIn) -> None:
        self.url = standin.url
        self.session = requests.Session()
        self.session.trust_env = False

    def get(self, location: str) -> requests.Response:
        target = location if location.startswith("http") else self.url + location
        return self.session.get(target, allow_redirects=False, timeout=10)

    def sign_in(self) -> requests.Response:
        """Gitea's sign-in form posted: 303 back where the browser was going (its redirect_to cookie)."""
        form = {"user_name": LOGIN, "password": PASSWORD, "_csrf": "standin"}
        return self.session.post(f"{self.url}/user/login", data=form, allow_redirects=False, timeout=10)

    def consent(self, page: requests.Response, granted: str = "true") -> requests.Response:
        assert page.status_code == 200 and "/login/oauth/grant" in page.text, page.text[:300]
        form = dict(_GRANT_HIDDEN.findall(page.text))
        form["granted"] = granted
        return self.session.post(f"{self.url}/login/oauth/grant", data=form, allow_redirects=False, timeout=10)

    def through(self, location: str) -> str:
        """From our redirect to Gitea's authorize page to Gitea's redirect back to us: sign in if sent to, consent
        if asked (a confidential app already granted is not asked again). The Location back."""
        answer = self.get(location)
        if answer.status_code == 303 and urlsplit(answer.headers["Location"]).path == "/user/login":
            signed = self.sign_in()
            assert signed.status_code == 303, signed.text[:300]
            answer = self.get(signed.headers["Location"])
        if answer.status_code == 200:
            answer = self.consent(answer)
        assert answer.status_code in (302, 303), f"Gitea answered {answer.status_code}: {answer.text[:300]}"
        return str(answer.headers["Location"])


@dataclass
class Started:
    """A sign-in up to the consent page: what the client and the browser hold."""

    client_id: str
    verifier: str
    state: str
    cookie: str
    pending: str


@dataclass
class Signer:
    """One user with one MCP client and one browser: the steps as a client and a person take them."""

    server: Server
    gitea: GiteaBrowser
    client_id: str = ""
    issued: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def new(cls, server: Server, standin: StandIn) -> Signer:
        registered = server.register()
        assert registered.status_code == 201, registered.text
        return cls(server, GiteaBrowser(standin), str(registered.json()["client_id"]))

    def authorize(self, challenge: str, state: str, *, cookie: str | None = None, **changes: str | None) -> Any:
        query: dict[str, str | None] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": CLIENT_REDIRECT,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": RESOURCE,
        }
        query.update(changes)
        params = {k: v for k, v in query.items() if v is not None}
        return self.server.request("GET", "/authorize", cookie=cookie, params=params)

    def start(self, state: str = "client-state") -> Started:
        verifier, challenge = pkce()
        page = self.authorize(challenge, state)
        assert page.status_code == 200, page.text[:300]
        return Started(self.client_id, verifier, state, cookie_of(page), pending_of(page))

    def decide(self, started: Started, decision: str = "approve", cookie: str | None = "", **headers: str) -> Any:
        """The consent form posted; `cookie` "" is this browser's own, None none at all."""
        sent = started.cookie if cookie == "" else cookie
        form = {"pending": started.pending, "decision": decision}
        return self.server.request("POST", "/authorize", cookie=sent, data=form, headers={"Origin": PUBLIC, **headers})

    def to_callback(self, started: Started) -> str:
        """Approve, then Gitea's sign-in and consent: the Location that brings the browser back to /callback."""
        approved = self.decide(started)
        assert approved.status_code == 303, approved.text[:300]
        back = self.gitea.through(approved.headers["location"])
        assert back.startswith(f"{PUBLIC}/callback?"), back
        return back

    def callback(self, back: str, cookie: str) -> Any:
        split = urlsplit(back)
        return self.server.request("GET", f"{split.path}?{split.query}", cookie=cookie)

    def code(self, started: Started | None = None) -> tuple[str, Started]:
        """A code of ours for this client, through the whole browser leg."""
        started = started or self.start()
        answer = self.callback(self.to_callback(started), started.cookie)
        assert answer.status_code == 303, answer.text[:300]
        found = query_of(answer.headers["location"])
        assert "code" in found, answer.headers["location"]
        return found["code"], started

    def exchange(self, code: str, verifier: str, /, **changes: str) -> Any:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "client_id": self.client_id,
            "redirect_uri": CLIENT_REDIRECT,
            "resource": RESOURCE,
            **changes,
        }
        return self.server.token(**form)

    def refresh(self, refresh_token: str, /, **changes: str) -> Any:
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id, **changes}
        return self.server.token(**form)

    def tokens(self) -> dict[str, Any]:
        """Signed in: our access and refresh tokens."""
        code, started = self.code()
        answer = self.exchange(code, started.verifier)
        assert answer.status_code == 200, answer.text
        issued: dict[str, Any] = answer.json()
        self.issued.append(issued)
        return issued
