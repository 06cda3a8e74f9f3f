"""The sign-in front attacked as issue 35 found it, in process against the stand-in's Gitea (which keeps PKCE as
Gitea 1.25.4 does: tests/contract/test_oauth.py). Each test performs one attack and says what stops it; the live
tests in tests/signin/ repeat findings 1, 11 and 16 against a real Gitea.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from gitea_mcp.server.signin import context, documents
from gitea_mcp.server.signin.marks import PREFIX, RedisMarks
from gitea_mcp.standin import StandIn
from tests.contract.oauth_flow import pkce, query_of
from tests.server.signin.flow_driver import (
    CLIENT_REDIRECT,
    PUBLIC,
    GiteaApp,
    GiteaBrowser,
    Server,
    Signer,
    Started,
    cookie_of,
    gitea_app,
    pending_of,
)
from tests.support.fake_redis import FakeRedis
from tests.support.observed import recording


@pytest.fixture
def app(standin: StandIn) -> GiteaApp:
    return gitea_app(standin)  # a new application: the user's first sign-in meets Gitea's consent page


@pytest.fixture
def server(standin: StandIn, app: GiteaApp) -> Iterator[Server]:
    started = Server.start(standin, app)
    yield started
    started.close()


REFRESH_GRACE = 30  # context.REFRESH_GRACE: seconds a client may retry a refresh whose answer it lost


def _error_page(answer: Any, status: int) -> str:
    assert answer.status_code == status, answer.text[:300]
    assert "location" not in answer.headers and "Sign-in stopped" in answer.text
    return str(answer.text)


# -- finding 1: a Gitea code seen once, brought to the thief's own sign-in ------------------------------------------


@pytest.mark.parametrize("consented_before", [False, True], ids=["gitea-consent-page", "consent-given-before"])
def test_a_stolen_gitea_code_brought_to_the_thiefs_own_sign_in_is_refused(
    server: Server, standin: StandIn, consented_before: bool
) -> None:
    """The thief starts a sign-in of their own, in their own browser, and sends the victim's Gitea code (seen in a
    proxy log, a Referer, a shared screen) to /callback with the state of that sign-in. Our PKCE towards Gitea is
    per sign-in, with the method Gitea keeps on its consent page (plain, on 1.25.4), so Gitea refuses the code
    with the thief's verifier: the thief's client gets no code, and the victim's own sign-in still finishes."""
    victim, thief = Signer.new(server, standin), Signer.new(server, standin)
    if consented_before:
        victim.tokens()  # Gitea then sends a confidential application back at once, with the challenge asked
    mine = victim.start("victim-state")
    back = victim.to_callback(mine)  # Gitea's redirect to our /callback, seen on its way
    stolen = query_of(back)["code"]

    theirs = thief.start("thief-state")
    approved = thief.decide(theirs)  # the thief approves their own sign-in, and never signs in at Gitea
    thief_state = query_of(approved.headers["location"])["state"]
    answer = server.request("GET", f"/callback?code={stolen}&state={thief_state}", cookie=theirs.cookie)
    assert answer.status_code == 303
    told = query_of(answer.headers["location"])
    assert "code" not in told, "the thief's client was handed a code holding the victim's Gitea token"
    assert (told["error"], told["state"]) == ("access_denied", "thief-state")

    finished = victim.callback(back, mine.cookie)  # Gitea kept the code: a refused verifier does not spend it
    assert finished.status_code == 303 and query_of(finished.headers["location"])["code"].startswith("gmcp.k.")


def test_a_state_is_spent_by_its_callback_and_lives_five_minutes(server: Server, standin: StandIn) -> None:
    signer = Signer.new(server, standin)
    started = signer.start()
    back = signer.to_callback(started)
    assert signer.callback(back, started.cookie).status_code == 303
    assert "already finished" in _error_page(signer.callback(back, started.cookie), 400)

    late = signer.start()
    back = signer.to_callback(late)
    server.clock.advance(5 * 60 + 1)  # context.STATE_TTL: from Approve to Gitea's answer
    assert "expired" in _error_page(signer.callback(back, late.cookie), 400)
    assert back.startswith(PUBLIC)


# -- finding 11: a refresh-token replay ends the sign-in and its access tokens, at once; a retry is answered -------


def _refused_at_mcp(server: Server, access: str) -> str:
    answer = server.issue_list(access)
    assert answer.status_code == 401, answer.text[:300]
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    return str(answer.json()["error"])


def test_a_refresh_token_replayed_ends_the_sign_in_and_its_access_tokens_at_once(
    server: Server, standin: StandIn
) -> None:
    """A copy of a used refresh token comes back after the grace (a thief's): the sign-in ends, and so does every
    access token of it at the next request, not an hour later when they expire."""
    signer = Signer.new(server, standin)
    with recording() as counted:
        first = signer.tokens()
        second = signer.refresh(first["refresh_token"]).json()
        assert server.issue_list(second["access_token"]).json()["result"]["isError"] is False
        server.clock.advance(REFRESH_GRACE + 1)
        replayed = signer.refresh(first["refresh_token"])
        assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant", replayed.text
        for access in (second["access_token"], first["access_token"]):
            assert "ended" in _refused_at_mcp(server, access)
        ended = signer.refresh(second["refresh_token"])
        assert ended.status_code == 400 and "ended" in ended.json()["error_description"]
    # Counted for the metrics: one sign-in, one refresh that worked, two refused.
    assert counted.of("signin") == [("ok",)]
    assert counted.of("refresh") == [("ok",), ("invalid_grant",), ("invalid_grant",)]


def test_a_refresh_retried_by_its_client_within_the_grace_gets_the_same_answer(
    server: Server, standin: StandIn
) -> None:
    """The client's answer was lost and it sends the same refresh again: it gets the same tokens, which work, and
    its sign-in goes on. Once the refresh token that answer gave is used, the old one coming back is a replay."""
    signer = Signer.new(server, standin)
    first = signer.tokens()
    answered = signer.refresh(first["refresh_token"])
    retried = signer.refresh(first["refresh_token"])
    assert answered.status_code == retried.status_code == 200, retried.text
    assert retried.json() == answered.json()
    again = retried.json()
    assert server.issue_list(again["access_token"]).json()["result"]["isError"] is False
    third = signer.refresh(again["refresh_token"])
    assert third.status_code == 200, third.text
    late = signer.refresh(first["refresh_token"])  # within the grace still, but its successor was used
    assert late.status_code == 400 and "already used" in late.json()["error_description"]
    assert "ended" in _refused_at_mcp(server, third.json()["access_token"])


@pytest.fixture
def shared() -> FakeRedis:
    return FakeRedis()


def _replica(standin: StandIn, app: GiteaApp, store: FakeRedis, key: str, monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setattr(context, "marks", lambda settings, clock: RedisMarks(store, clock))
    return Server.start(standin, app, oauth_key=key)


def test_a_replay_at_one_replica_ends_the_sign_in_on_the_other_at_once(
    standin: StandIn, app: GiteaApp, shared: FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two replicas on one Redis: the sign-in was refreshed twice at A and its first refresh token replayed at B;
    A refuses the newest access token at the next request (the mark is in the store they share)."""
    key = base64.urlsafe_b64encode(os.urandom(32)).decode()
    a = _replica(standin, app, shared, key, monkeypatch)
    b = _replica(standin, app, shared, key, monkeypatch)
    try:
        at_a = Signer.new(a, standin)
        first = at_a.tokens()
        # Refreshed twice: the first refresh token's answer was used, so it coming back is a replay at once.
        second = at_a.refresh(at_a.refresh(first["refresh_token"]).json()["refresh_token"]).json()
        assert a.issue_list(second["access_token"]).json()["result"]["isError"] is False
        at_b = Signer(b, at_a.gitea, at_a.client_id)
        assert at_b.refresh(first["refresh_token"]).status_code == 400
        assert "ended" in _refused_at_mcp(a, second["access_token"])
        assert any(k.startswith(PREFIX + "family:") for k in shared.keys(PREFIX))
        shared.down = True  # the store not answering: refused, never let through unasked
        down = a.issue_list(second["access_token"])
        assert down.status_code == 503 and "GITEA_MCP_REDIS_URL" in down.json()["error"]
    finally:
        a.close()
        b.close()


# -- finding 16: a refresh may narrow the scopes (OAuth allows it), never widen them --------------------------------


def test_a_refresh_may_narrow_the_scopes_and_never_widen_them(server: Server, standin: StandIn) -> None:
    signer = Signer.new(server, standin)
    first = signer.tokens()
    assert first["scope"] == "write:issue read:user"
    narrow = signer.refresh(first["refresh_token"], scope="read:issue")
    assert narrow.status_code == 200, narrow.text
    reading = narrow.json()
    assert reading["scope"] == "read:issue"
    assert server.issue_list(reading["access_token"]).json()["result"]["isError"] is False
    create = {"name": "issue_create", "arguments": {"owner": "acme", "name": "widgets", "title": "Never filed"}}
    refused = server.mcp(reading["access_token"], "tools/call", create).json()["result"]
    assert refused["isError"] is True and "granted read:issue" in refused["content"][0]["text"]
    whole = signer.refresh(reading["refresh_token"])  # the refresh token kept the whole grant (RFC 6749 §6)
    assert whole.status_code == 200 and whole.json()["scope"] == "write:issue read:user"
    for wider in ("write:repository", "read:issue write:admin", "read:organization"):
        widened = signer.refresh(whole.json()["refresh_token"], scope=wider)
        assert widened.status_code == 400, widened.text
        assert widened.json()["error"] == "invalid_scope" and "never widen" in widened.json()["error_description"]


# -- finding 12: look-alike hosts, and redirect schemes an operating system hands to a program ------------------------

OS_HANDLERS = [
    "ms-msdt:/id%20PCWDiagnostic%20/skip%20force%20/param%20IT_BrowseForFile=x",  # Follina
    "search-ms:query=invoice&crumb=location:%5C%5Cattacker.example%5Cshare",
    "search:query=invoice",
    "ms-officecmd:%7B%22id%22:3%7D",
    "ms-word:ofe|u|https://attacker.example/x.docx",
    "ms-appinstaller:?source=https://attacker.example/x.msix",
    "hcp://services/search?query=x",
    "shell:startup",
    "smb://attacker.example/share",
    "help:openbook=x",
    "intent://scan/x",
    "javascript:alert(1)//",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "vbscript:msgbox(1)",
    "MS-MSDT:/id%20x",  # a scheme's case is no disguise
]


@pytest.mark.parametrize("uri", OS_HANDLERS)
def test_a_redirect_uri_an_os_hands_to_a_program_is_refused(server: Server, uri: str) -> None:
    answer = server.register(redirect_uris=[uri])
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_redirect_uri" and "runs or searches" in answer.json()["error_description"]


@pytest.mark.parametrize(
    "uri",
    [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "com.example.app:/oauth2redirect",
        "vscode://vscode.github-authentication/did-authenticate",
        "https://claude.ai/api/mcp/auth_callback",
        "http://127.0.0.1:33418/callback",
    ],
)
def test_app_schemes_https_and_loopback_still_register(server: Server, uri: str) -> None:
    assert server.register(redirect_uris=[uri]).status_code == 201


def test_cursor_signs_in_to_its_own_scheme(server: Server, standin: StandIn) -> None:
    cursor = "cursor://anysphere.cursor-mcp/oauth/callback"
    registered = server.register(client_name="Cursor", redirect_uris=[cursor])
    signer = Signer(server, GiteaBrowser(standin), registered.json()["client_id"])
    verifier, challenge = pkce()
    page = signer.authorize(challenge, "st-cursor", redirect_uri=cursor)
    assert page.status_code == 200 and "<code>cursor://anysphere.cursor-mcp</code>" in page.text
    started = Started(signer.client_id, verifier, "st-cursor", cookie_of(page), pending_of(page))
    answer = signer.callback(signer.to_callback(started), started.cookie)
    assert answer.status_code == 303 and answer.headers["location"].startswith(cursor + "?code=gmcp.k.")
    code = query_of(answer.headers["location"])["code"]
    assert signer.exchange(code, verifier, redirect_uri=cursor).status_code == 200


@pytest.mark.parametrize(
    ("registered", "shown"),
    [
        ("https://\u0430pple.com/cb", "https://xn--pple-43d.com (in Unicode: https://\u0430pple.com)"),  # Cyrillic а
        ("https://xn--pple-43d.com/cb", "https://xn--pple-43d.com (in Unicode: https://\u0430pple.com)"),
        ("https://b\u00fccher.example/cb", "https://xn--bcher-kva.example (in Unicode: https://b\u00fccher.example)"),
        ("https://apple.com/cb", "https://apple.com"),  # ASCII: nothing beside it
    ],
)
def test_the_consent_page_shows_a_host_in_punycode_and_unicode_only_beside_it(
    server: Server, standin: StandIn, registered: str, shown: str
) -> None:
    made = server.register(client_name="Look-alike", redirect_uris=[registered])
    assert made.status_code == 201, made.text
    signer = Signer(server, GiteaBrowser(standin), made.json()["client_id"])
    page = signer.authorize(pkce()[1], "st-idn", redirect_uri=registered)
    assert page.status_code == 200, page.text[:300]
    delivered = re.search(r"delivered to <code>([^<]*)</code>", page.text)
    assert delivered is not None and html.unescape(delivered[1]) == shown


# -- finding 15: a registration that could never sign in is refused when it is made --------------------------------


@pytest.mark.parametrize(
    "response_types",
    [["token"], ["id_token"], ["token id_token"], [], "code", None],
    ids=["implicit", "id-token", "hybrid", "empty", "not-a-list", "null"],
)
def test_a_registration_that_could_never_sign_in_is_refused(server: Server, response_types: Any) -> None:
    answer = server.register(response_types=response_types)
    assert answer.status_code == 400, answer.text
    assert answer.json() == {
        "error": "invalid_client_metadata",
        "error_description": "this server issues codes only: response_types must include code",
    }


def test_a_registration_that_asks_for_codes_is_taken(server: Server) -> None:
    """The control: what a client that can sign in here sends."""
    answer = server.register(response_types=["code"], grant_types=["authorization_code", "refresh_token"])
    assert answer.status_code == 201 and answer.json()["response_types"] == ["code"]


# -- finding 3 (the sign-in's part): a client metadata document that answers slowly ------------------------------


class _Documents(BaseHTTPRequestHandler):
    """Serves a client metadata document naming the flow's client redirect, after `delay` seconds."""

    delay: ClassVar[float] = 0.0
    port: ClassVar[int] = 0
    seen: ClassVar[list[str]]  # each test's own (slow_site)

    def do_GET(self) -> None:
        type(self).seen.append(self.path)
        time.sleep(self.delay)
        url = f"http://127.0.0.1:{self.port}{self.path}"
        body = json.dumps({"client_id": url, "client_name": "Slow App", "redirect_uris": [CLIENT_REDIRECT]}).encode()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def slow_site(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[_Documents]]:
    monkeypatch.setattr(documents, "FETCH_SECONDS", 1.0)  # the issue's 4.5 s document, scaled to a 1 s deadline

    class Handler(_Documents):
        seen: ClassVar[list[str]] = []

    handler = Handler
    site = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    site.daemon_threads = True
    thread = threading.Thread(target=site.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    handler.port = site.server_port
    try:
        yield handler
    finally:
        site.shutdown()
        site.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize("delay", [0.6, 1.5], ids=["slow-within-the-deadline", "past-the-deadline"])
def test_a_slow_client_metadata_document_is_not_fetched_at_every_authorize(
    server: Server, standin: StandIn, slow_site: type[_Documents], delay: float
) -> None:
    """Six sign-ins naming a client by a document that answers slowly: it is read once. Within the deadline it is
    kept (at least FRESH_LEAST, whatever its headers); past it, its host is left alone a while; either way the
    five sign-ins after the first do not wait for it."""
    slow_site.delay = delay
    url = f"http://127.0.0.1:{slow_site.port}/client.json"
    signer = Signer(server, GiteaBrowser(standin), url)
    began = time.monotonic()
    first = signer.authorize(pkce()[1], "st-slow")
    took = time.monotonic() - began
    assert first.status_code == (200 if delay < 1 else 400), first.text[:300]
    assert took < documents.FETCH_SECONDS + 0.5, "the whole read is bounded"
    began = time.monotonic()
    later = [signer.authorize(pkce()[1], f"st-{n}").status_code for n in range(5)]
    assert later == [first.status_code] * 5
    assert time.monotonic() - began < 0.5 * 5, "the later sign-ins did not wait for the document again"
    assert slow_site.seen == ["/client.json"]


# -- the opt-out: no client metadata documents (offline, or behind a proxy) ----------------------------------------


def test_with_client_metadata_documents_off_a_client_registers_and_signs_in_offline(
    standin: StandIn, app: GiteaApp
) -> None:
    """GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false: discovery says documents are not supported, so a client that
    prefers one (Claude Code) registers instead; a document's URL sent anyway is refused without a fetch."""
    server = Server.start(standin, app, client_metadata_documents=False)
    try:
        said = server.request("GET", "/.well-known/oauth-authorization-server").json()
        assert said["client_id_metadata_document_supported"] is False and said["registration_endpoint"]
        named = Signer(server, GiteaBrowser(standin), "https://claude.ai/oauth/claude-code-client-metadata")
        assert "GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false" in _error_page(named.authorize(pkce()[1], "st"), 400)
        registered = Signer.new(server, standin)  # what the client does next
        assert server.issue_list(registered.tokens()["access_token"]).json()["result"]["isError"] is False
    finally:
        server.close()
