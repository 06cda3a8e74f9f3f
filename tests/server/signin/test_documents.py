"""Client ID metadata documents: read from a local http.server on 127.0.0.1 (trial: GITEA_MCP_PUBLIC_URL on
http://127.0.0.1), through the same fetcher the server uses. Every refusal is a BadClient naming its cause in one
sentence. Off trial, a host that is not public is refused before any fetch. A document is kept as its caching
headers allow, within bounds; one that does not come in time leaves its host alone for a while (issue 35)."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from gitea_mcp.gitea import outbound
from gitea_mcp.server.signin import documents as module
from gitea_mcp.server.signin.clients import MAX_METADATA, BadClient, Client, Clients
from gitea_mcp.server.signin.documents import Documents, Get, fetcher
from gitea_mcp.server.signin.seal import Sealer
from tests.support.ports import refusing_url

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


def _trickle_head(handler: BaseHTTPRequestHandler, url: str) -> None:
    """The head a byte at a time: each read is quick, the head never ends in time (a socket timeout bounds each
    read only, so without a deadline for the whole this holds a thread for as long as the server likes)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"X-Slow: " + b"y" * 200 + b"\r\n\r\n"
    for byte in head:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(module.FETCH_SECONDS / 5)


def _late(handler: BaseHTTPRequestHandler, url: str) -> None:
    """Slow, but within the deadline, and asking not to be stored."""
    time.sleep(module.FETCH_SECONDS * 0.6)
    _send(handler, 200, document(url), **{"Cache-Control": "no-store"})


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
    "/trickle-head.json": _trickle_head,
    "/late.json": _late,
    "/fresh.json": lambda h, url: _send(h, 200, document(url), **{"Cache-Control": "public, max-age=600"}),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        port = self.server.server_port  # type: ignore[attr-defined]
        url = f"http://127.0.0.1:{port}{self.path}"
        self.server.seen.append(self.path)  # type: ignore[attr-defined]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the reader gave up first, as it should
            if self.path.startswith("/many/"):
                _send(self, 200, document(url))
            else:
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


def trial_clients(clock: Callable[[], float] = time.monotonic) -> Clients:
    return Clients(Documents(fetcher(True), trial=True, clock=clock))


def clients_with(get: Get, trial: bool) -> Clients:
    return Clients(Documents(fetcher(trial, get), trial=trial))


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
        ("/trickle-head.json", "could not be read"),
    ],
)
def test_a_document_that_will_not_do_is_refused(site: tuple[str, list[str]], path: str, said: str) -> None:
    base, seen = site
    started = time.monotonic()
    assert said in refusal(trial_clients(), f"{base}{path}")
    assert seen == [path], "read once, and a redirect is not followed"
    assert time.monotonic() - started < module.FETCH_SECONDS * 3, "the whole read is bounded, not each recv"


def test_an_unreachable_document_is_refused(fast: None) -> None:
    with refusing_url() as url:  # held, never listening: refused
        assert "could not be read" in refusal(trial_clients(), f"{url}/client.json")


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

    assert "must be https with a path" in refusal(clients_with(never, trial=True), url)


# -- off trial: https only, and public hosts only ---------------------------------------------------------------


class Spy:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.addresses: list[str] = []

    def __call__(self, url: str, address: str, deadline: float) -> Any:
        self.calls.append(url)
        self.addresses.append(address)
        raise ConnectionRefusedError("the test's spy sends nothing")


def resolving(monkeypatch: pytest.MonkeyPatch, *addresses: str) -> None:
    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, 1, 6, "", (a, port)) for a in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/c.json", "http://app.example/c.json"])
def test_off_trial_an_http_client_id_is_refused(url: str) -> None:
    spy = Spy()
    assert "must be https" in refusal(clients_with(spy, trial=False), url)
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
    found = clients_with(spy, trial=False)
    assert "is not a public address" in refusal(found, "https://internal.example/client.json")
    assert spy.calls == []


def test_off_trial_an_unknown_host_is_refused_before_any_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    resolving(monkeypatch)
    spy = Spy()
    found = clients_with(spy, trial=False)
    assert "is not known" in refusal(found, "https://nowhere.example/client.json")
    assert spy.calls == []


def test_off_trial_a_public_host_is_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the two above: the same path reaches the fetch when the address is public."""
    resolving(monkeypatch, "93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946")
    spy = Spy()
    found = clients_with(spy, trial=False)
    assert "could not be read" in refusal(found, "https://app.example/client.json")
    assert spy.calls == ["https://app.example/client.json"]
    assert spy.addresses == ["93.184.216.34"], "the connection goes to the address that was checked"


def test_on_trial_127_0_0_1_is_not_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    resolving(monkeypatch, "10.0.0.1")  # were it asked, it would be refused
    spy = Spy()
    found = clients_with(spy, trial=True)
    assert "could not be read" in refusal(found, "http://127.0.0.1:8000/client.json")
    assert spy.calls == ["http://127.0.0.1:8000/client.json"]


# -- kept, bounded, and one read at a time (issue 35, finding 3) ---------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_document_is_read_again_only_once_its_headers_say_it_is_stale(site: tuple[str, list[str]]) -> None:
    base, seen = site
    clock = Clock()
    found = trial_clients(clock)
    url = f"{base}/fresh.json"  # Cache-Control: public, max-age=600
    assert [found.find(url).name for _ in range(5)] == ["Doc App"] * 5
    assert seen == ["/fresh.json"]
    clock.now += 599
    found.find(url)
    assert seen == ["/fresh.json"]
    clock.now += 2
    found.find(url)
    assert seen == ["/fresh.json", "/fresh.json"]


def test_a_document_answering_slowly_is_read_once_not_at_every_authorize(site: tuple[str, list[str]]) -> None:
    """It comes within the deadline but slowly, and says no-store: kept FRESH_LEAST all the same (the draft lets a
    server set a lower bound), so the next sign-ins do not wait for it again. Ten at once wait for one read."""
    base, seen = site
    clock = Clock()
    found = trial_clients(clock)
    url = f"{base}/late.json"
    names: list[str] = []
    threads = [threading.Thread(target=lambda: names.append(found.find(url).name)) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert names == ["Doc App"] * 10 and seen == ["/late.json"], "one read for ten sign-ins at once"
    started = time.monotonic()
    for _ in range(5):
        found.find(url)
    assert seen == ["/late.json"] and time.monotonic() - started < module.FETCH_SECONDS / 2
    clock.now += module.FRESH_LEAST + 1
    found.find(url)
    assert seen == ["/late.json"] * 2


def test_a_host_whose_document_did_not_come_in_time_is_left_alone_a_while(site: tuple[str, list[str]]) -> None:
    base, seen = site
    clock = Clock()
    found = trial_clients(clock)
    assert "could not be read" in refusal(found, f"{base}/slow.json")
    started = time.monotonic()
    for path in ("/slow.json", "/good.json", "/many/other.json"):  # any document of that host
        assert "did not come in time a moment ago" in refusal(found, f"{base}{path}")
    assert seen == ["/slow.json"] and time.monotonic() - started < module.FETCH_SECONDS / 2
    clock.now += module.SLOW_HOST_SECONDS + 1
    assert found.find(f"{base}/good.json").name == "Doc App"


@pytest.mark.parametrize("path", ["/missing.json", "/liar.json", "/not-json"])
def test_an_error_or_an_invalid_document_is_not_kept(site: tuple[str, list[str]], path: str) -> None:
    """The draft: error responses and invalid documents are never cached; the client that fixes its document can
    sign in at once."""
    base, seen = site
    found = trial_clients(Clock())
    refusal(found, f"{base}{path}")
    refusal(found, f"{base}{path}")
    assert seen == [path, path]


def test_at_most_kept_documents_are_kept_the_least_recently_used_going_first(
    site: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "KEPT_DOCUMENTS", 3)
    base, seen = site
    found = trial_clients(Clock())
    for name in "abcd":
        found.find(f"{base}/many/{name}.json")
    found.find(f"{base}/many/d.json")  # kept
    assert len(seen) == 4
    found.find(f"{base}/many/a.json")  # the least recently used, let go to keep the bound
    assert seen[-1] == "/many/a.json" and len(seen) == 5


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, module.FRESH_DEFAULT),
        ({"cache-control": "max-age=600"}, 600),
        ({"cache-control": "public, max-age=600", "age": "100"}, 500),
        ({"cache-control": "max-age=600, s-maxage=120"}, 120),  # a shared cache's own
        ({"cache-control": "max-age=0"}, module.FRESH_LEAST),
        ({"cache-control": "no-store"}, module.FRESH_LEAST),
        ({"cache-control": "no-cache, max-age=600"}, module.FRESH_LEAST),
        ({"cache-control": "private, max-age=600"}, module.FRESH_LEAST),  # not for a cache shared by every user
        ({"cache-control": "max-age=31536000"}, module.FRESH_MOST),
        ({"cache-control": "max-age=soon"}, module.FRESH_DEFAULT),
        ({"expires": "Thu, 01 Jan 2026 01:00:00 GMT", "date": "Thu, 01 Jan 2026 00:00:00 GMT"}, 3600),
        ({"expires": "0", "date": "Thu, 01 Jan 2026 00:00:00 GMT"}, module.FRESH_LEAST),
    ],
)
def test_a_documents_lifetime_is_its_caching_headers_within_bounds(headers: dict[str, str], seconds: float) -> None:
    assert module.lifetime(headers) == seconds


def test_with_documents_off_a_url_client_id_is_refused_unread() -> None:
    """GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false: nothing is fetched, the client is told to register."""
    message = refusal(Clients(None), "https://claude.ai/oauth/claude-code-client-metadata")
    assert "GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false" in message and "/register" in message


# -- https: the certificate checked against the URL's host, the connection to the address checked ------------------


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, ssl.SSLContext]]:
    """An https document server on 127.0.0.1 whose certificate names docs.example.test, and a client context that
    trusts it (in place of the public CAs)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "docs.example.test")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("docs.example.test")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    where = tmp_path_factory.mktemp("cimd-tls")
    cert_path, key_path = where / "cert.pem", where / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.seen = []  # type: ignore[attr-defined]
    serving = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    serving.load_cert_chain(cert_path, key_path)
    server.socket = serving.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_port, ssl.create_default_context(cafile=str(cert_path))
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_an_https_document_is_read_from_the_address_checked_with_the_urls_certificate(
    tls_site: tuple[int, ssl.SSLContext], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, trusting = tls_site
    monkeypatch.setattr(outbound, "_PUBLIC_TLS", [trusting])
    deadline = time.monotonic() + 5
    answer = outbound.public_get(f"https://docs.example.test:{port}/good.json", "127.0.0.1", deadline)
    assert answer.status == 200 and json.loads(answer.body)["client_name"] == "Doc App"
    assert answer.headers["content-type"] == "application/json"
    with pytest.raises(ssl.SSLCertVerificationError):  # a host the certificate does not name
        outbound.public_get(f"https://other.example.test:{port}/good.json", "127.0.0.1", deadline)
