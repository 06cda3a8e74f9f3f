"""Client ID metadata documents: read from a local http.server on 127.0.0.1 (trial: GITEA_MCP_PUBLIC_URL on
http://127.0.0.1), through the same fetcher and requests session settings the server uses. Every refusal is a
BadClient naming its cause in one sentence. Off trial, a host that is not public is refused before any fetch."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests

from gitea_mcp.server.signin import clients as module
from gitea_mcp.server.signin.clients import MAX_METADATA, BadClient, Client, Clients, fetcher
from gitea_mcp.server.signin.seal import Sealer

SEALER = Sealer([b"k" * 32], "http://127.0.0.1:8000/mcp")
CALLBACK = "http://127.0.0.1/callback"

Answer = Callable[[BaseHTTPRequestHandler, str], None]


def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    for name, value in {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def document(url: str, **changes: Any) -> bytes:
    return json.dumps({"client_id": url, "client_name": "Doc App", "redirect_uris": [CALLBACK], **changes}).encode()


def _slow(handler: BaseHTTPRequestHandler, url: str) -> None:
    time.sleep(module.FETCH_SECONDS * 4)
    _send(handler, 200, document(url))


def _trickle(handler: BaseHTTPRequestHandler, url: str) -> None:
    """Headers at once, then the body a byte at a time: each read is quick, the whole never ends in time."""
    body = document(url)
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    for byte in body:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(module.FETCH_SECONDS / 5)


ANSWERS: dict[str, Answer] = {
    "/good.json": lambda h, url: _send(h, 200, document(url)),
    "/liar.json": lambda h, url: _send(h, 200, document(url.replace("liar", "good"))),
    "/no-client-id.json": lambda h, url: _send(h, 200, json.dumps({"redirect_uris": [CALLBACK]}).encode()),
    "/array.json": lambda h, url: _send(h, 200, b"[]"),
    "/not-json": lambda h, url: _send(h, 200, b"<html>hello</html>", **{"Content-Type": "text/html"}),
    "/not-utf8.json": lambda h, url: _send(h, 200, b"\xff\xfe{}"),
    "/deep.json": lambda h, url: _send(h, 200, b"[" * (MAX_METADATA - 10)),
    "/bad-redirect.json": lambda h, url: _send(h, 200, document(url, redirect_uris=["javascript:alert(1)"])),
    "/secret.json": lambda h, url: _send(h, 200, document(url, token_endpoint_auth_method="client_secret_basic")),
    "/missing.json": lambda h, url: _send(h, 404, b'{"message":"not found"}'),
    "/oversize.json": lambda h, url: _send(h, 200, document(url, client_name="x" * MAX_METADATA)),
    "/moved.json": lambda h, url: _send(h, 302, b"", Location=url.replace("moved", "good")),
    "/slow.json": _slow,
    "/trickle.json": _trickle,
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        port = self.server.server_port  # type: ignore[attr-defined]
        url = f"http://127.0.0.1:{port}{self.path}"
        self.server.seen.append(self.path)  # type: ignore[attr-defined]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the reader gave up first, as it should
            ANSWERS[self.path](self, url)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the test's output is its assertions
        pass


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "FETCH_SECONDS", 0.5)


@pytest.fixture
def site(fast: None) -> Iterator[tuple[str, list[str]]]:
    """A document server on 127.0.0.1 for one test: its base URL and the paths it was asked for."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    seen: list[str] = []
    server.seen = seen  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def session_get() -> Callable[..., Any]:
    session = requests.Session()
    session.trust_env = False  # as context.build: no proxy of this machine between us and 127.0.0.1
    return session.get


def trial_clients() -> Clients:
    return Clients(fetcher(True, session_get()), trial=True)


def refusal(clients: Clients, url: str) -> str:
    with pytest.raises(BadClient) as caught:
        clients.find(url)
    message = str(caught.value)
    assert message and "\n" not in message and "Traceback" not in message, message
    assert caught.value.__cause__ is None, "the cause is said, not chained"
    return message


def test_a_good_document_makes_the_client(site: tuple[str, list[str]]) -> None:
    base, seen = site
    url = f"{base}/good.json"
    assert trial_clients().find(url) == Client(url, "Doc App", (CALLBACK,), "metadata document")
    assert seen == ["/good.json"]


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/liar.json", "does not give its own URL as client_id"),
        ("/no-client-id.json", "does not give its own URL as client_id"),
        ("/array.json", "does not give its own URL as client_id"),
        ("/not-json", "is not JSON"),
        ("/not-utf8.json", "is not JSON"),
        ("/deep.json", "is not JSON"),
        ("/bad-redirect.json", "a browser would run"),
        ("/secret.json", "public client"),
        ("/missing.json", "answered 404, not 200"),
        ("/oversize.json", f"is over {MAX_METADATA:,} bytes"),
        ("/moved.json", "answered 302, not 200"),
        ("/slow.json", "could not be read"),
        ("/trickle.json", "could not be read"),
    ],
)
def test_a_document_that_will_not_do_is_refused(site: tuple[str, list[str]], path: str, said: str) -> None:
    base, seen = site
    started = time.monotonic()
    assert said in refusal(trial_clients(), f"{base}{path}")
    assert seen == [path], "read once, and a redirect is not followed"
    assert time.monotonic() - started < module.FETCH_SECONDS * 3, "the whole read is bounded, not each recv"


def test_an_unreachable_document_is_refused(fast: None) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert "could not be read" in refusal(trial_clients(), f"http://127.0.0.1:{port}/client.json")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000",
        "http://127.0.0.1:8000/",
        "http://127.0.0.1:8000/c.json#x",
        "http://user@127.0.0.1:8000/c.json",
        "http://:pw@127.0.0.1:8000/c.json",
        "http://localhost:8000/c.json",  # trial reads 127.0.0.1 only
        "https://@app.example/c.json",
        "https://app.example/" + "c" * 2100,
    ],
)
def test_a_client_id_url_of_the_wrong_shape_is_refused_unread(url: str) -> None:
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("fetched")

    assert "must be https with a path" in refusal(Clients(fetcher(True, never), trial=True), url)


# -- off trial: https only, and public hosts only ---------------------------------------------------------------


class Spy:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, url: str, **kwargs: Any) -> Any:
        self.calls.append(url)
        raise requests.ConnectionError("the test's spy sends nothing")


def resolving(monkeypatch: pytest.MonkeyPatch, *addresses: str) -> None:
    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, 1, 6, "", (a, port)) for a in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/c.json", "http://app.example/c.json"])
def test_off_trial_an_http_client_id_is_refused(url: str) -> None:
    spy = Spy()
    assert "must be https" in refusal(Clients(fetcher(False, spy), trial=False), url)
    assert spy.calls == []


@pytest.mark.parametrize(
    "addresses",
    [
        ("127.0.0.1",),
        ("10.1.2.3",),
        ("192.168.0.10",),
        ("172.16.5.4",),
        ("169.254.169.254",),  # a cloud's metadata service
        ("100.64.0.1",),
        ("0.0.0.0",),
        ("::1",),
        ("fe80::1%eth0",),
        ("fd00::1",),
        ("::ffff:10.0.0.1",),
        ("93.184.216.34", "10.0.0.1"),  # one private address among public ones is enough
    ],
    ids=lambda addresses: "+".join(addresses),
)
def test_off_trial_a_host_that_is_not_public_is_refused_before_any_fetch(
    monkeypatch: pytest.MonkeyPatch, addresses: tuple[str, ...]
) -> None:
    resolving(monkeypatch, *addresses)
    spy = Spy()
    found = Clients(fetcher(False, spy), trial=False)
    assert "is not a public address" in refusal(found, "https://internal.example/client.json")
    assert spy.calls == []


def test_off_trial_an_unknown_host_is_refused_before_any_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    resolving(monkeypatch)
    spy = Spy()
    found = Clients(fetcher(False, spy), trial=False)
    assert "is not known" in refusal(found, "https://nowhere.example/client.json")
    assert spy.calls == []


def test_off_trial_a_public_host_is_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the two above: the same path reaches the fetch when the address is public."""
    resolving(monkeypatch, "93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946")
    spy = Spy()
    found = Clients(fetcher(False, spy), trial=False)
    assert "could not be read" in refusal(found, "https://app.example/client.json")
    assert spy.calls == ["https://app.example/client.json"]


def test_on_trial_127_0_0_1_is_not_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    resolving(monkeypatch, "10.0.0.1")  # were it asked, it would be refused
    spy = Spy()
    found = Clients(fetcher(True, spy), trial=True)
    assert "could not be read" in refusal(found, "http://127.0.0.1:8000/client.json")
    assert spy.calls == ["http://127.0.0.1:8000/client.json"]
