"""One HTTP place (issue 36, item 6): gitea/outbound.py alone builds sessions and connections to the outside, and
each destination's policy there is the one its requests follow.

The first test reads every module of the package (ast, function-level and TYPE_CHECKING imports included): no
other module may import an HTTP client library or open a client connection of its own.
"""

from __future__ import annotations

import ast
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gitea_mcp.gitea import outbound
from gitea_mcp.gitea.outbound import FORGE, PUBLIC_DOCUMENT, AddressRefused, Proxies, Trust
from tests.support.imports import PACKAGE_ROOT, module_of

OUTBOUND = "gitea_mcp.gitea.outbound"
# Libraries that send HTTP requests or open client connections: only outbound.py may import them.
HTTP_LIBRARIES = ("requests", "urllib3", "httpx", "aiohttp", "http.client", "urllib.request", "pycurl", "certifi")
# Calls that open a client connection or make a client TLS context, whatever module they come from.
CONNECTING = ("create_connection", "create_default_context", "SSLContext", "wrap_socket", "getaddrinfo")
MODULES = sorted(PACKAGE_ROOT.rglob("*.py"))


def _library(name: str) -> bool:
    return any(name == library or name.startswith(library + ".") for library in HTTP_LIBRARIES)


def outbound_code(source: str) -> list[str]:
    """What in `source` sends to the outside by itself: an HTTP library imported, a client connection opened."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if _library(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _library(node.module or ""):
            found.append(f"from {node.module} import …")
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in CONNECTING:
                found.append(f"{called}(…) on line {node.lineno}")
    return found


def test_only_outbound_sends_to_the_outside() -> None:
    found = {
        module_of(path): sends
        for path in MODULES
        if module_of(path) != OUTBOUND and (sends := outbound_code(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"these modules send by themselves: {found}; go through gitea_mcp/gitea/outbound.py"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import requests", ["import requests"]),
        ("def f():\n    import requests.adapters", ["import requests.adapters"]),
        ("if TYPE_CHECKING:\n    from requests import Session", ["from requests import …"]),
        ("from http.client import HTTPConnection", ["from http.client import …"]),
        ("import urllib.request", ["import urllib.request"]),
        ("import httpx", ["import httpx"]),
        ("socket.create_connection(('h', 1))", ["create_connection(…) on line 1"]),
        ("ssl.create_default_context()", ["create_default_context(…) on line 1"]),
        ("from urllib.parse import urlsplit\nimport ssl\nimport requests_toolbelt_like", []),
        ("from . import requests", []),  # a module of ours that happens to share the name
    ],
)
def test_the_scan_itself_can_fail(source: str, found: list[str]) -> None:
    assert outbound_code(source) == found


def test_the_outbound_module_is_where_the_scan_looks() -> None:
    assert (PACKAGE_ROOT / "gitea" / "outbound.py").is_file()
    assert outbound_code((PACKAGE_ROOT / "gitea" / "outbound.py").read_text(encoding="utf-8")) != []


# -- each policy's settings ------------------------------------------------------------------------------------------


def test_the_policies_say_what_each_destination_gets() -> None:
    assert (FORGE.trust, FORGE.proxies, FORGE.public_addresses_only, FORGE.timeout) == (
        Trust.CONFIGURED, Proxies.ENVIRONMENT, False, None
    )  # fmt: skip
    assert (PUBLIC_DOCUMENT.trust, PUBLIC_DOCUMENT.proxies, PUBLIC_DOCUMENT.public_addresses_only) == (
        Trust.PUBLIC, Proxies.NONE, True
    )  # fmt: skip
    assert PUBLIC_DOCUMENT.timeout == outbound.DOCUMENT_SECONDS == 3.0
    assert (FORGE.max_body, FORGE.max_document, PUBLIC_DOCUMENT.max_body) == (8 * 2**20, 1 << 16, 8_000)
    assert outbound.REDIRECTS is False


def test_the_policies_are_the_values_their_users_read() -> None:
    from gitea_mcp.gitea import client
    from gitea_mcp.server.signin import documents

    assert FORGE.max_body == client.MAX_BODY and client.CONNECTIONS == outbound.CONNECTIONS
    assert PUBLIC_DOCUMENT.timeout == documents.FETCH_SECONDS and PUBLIC_DOCUMENT.max_body == documents.MAX_DOCUMENT


@pytest.mark.parametrize(
    ("verify", "environment", "trusted"),
    [
        (True, {}, True),  # the public CAs
        (True, {"REQUESTS_CA_BUNDLE": "/etc/machine.pem"}, "/etc/machine.pem"),
        (True, {"CURL_CA_BUNDLE": "/etc/curl.pem"}, "/etc/curl.pem"),
        ("/etc/gitea.pem", {"REQUESTS_CA_BUNDLE": "/etc/machine.pem"}, "/etc/gitea.pem"),  # GITEA_CA_BUNDLE wins
        (False, {"REQUESTS_CA_BUNDLE": "/etc/machine.pem"}, False),  # GITEA_INSECURE wins
    ],
)
def test_the_forge_is_trusted_as_configured(
    verify: bool | str, environment: dict[str, str], trusted: bool | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert outbound.forge_trust(verify) == trusted
    assert outbound.forge_session("https://gitea.example/api/v1", verify).verify == trusted


def test_a_forge_session_takes_the_environments_proxy_and_nothing_else_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "inside.example")
    session = outbound.forge_session("https://gitea.example/api/v1", True)
    assert session.trust_env is False  # never ~/.netrc, never the environment again per request
    assert session.proxies.get("https") == "http://proxy.example:3128"
    assert outbound.forge_session("https://inside.example/api/v1", True).proxies == {}
    assert session.headers["User-Agent"] == outbound.user_agent()
    assert session.get_adapter("https://gitea.example/")._pool_maxsize == outbound.CONNECTIONS  # type: ignore[attr-defined]


def test_the_user_agent_names_the_product_and_its_version() -> None:
    from gitea_mcp import __version__

    assert outbound.user_agent().startswith(f"gitea-issues-mcp/{__version__} (python-requests/")


@pytest.mark.parametrize(
    ("addresses", "loopback", "outcome"),
    [
        (["93.184.215.14"], False, "93.184.215.14"),
        (["2606:2800:21f:cb07:6820:80da:af6b:8b2c"], False, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
        (["93.184.215.14", "10.0.0.7"], False, "private"),  # every address must be public
        (["127.0.0.1"], False, "private"),
        (["169.254.169.254"], False, "private"),  # a cloud's metadata service
        (["::1"], False, "private"),
        (["fd00::1"], False, "private"),
        ([], False, "unknown"),
    ],
)
def test_a_public_document_is_read_from_public_addresses_only(
    addresses: list[str], loopback: bool, outcome: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, 1, 6, "", (a, port)) for a in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    deadline = time.monotonic() + 5
    try:
        assert outbound.public_address("docs.example", loopback, deadline) == outcome
    except AddressRefused as refused:
        assert refused.why == outcome


def test_only_127_0_0_1_itself_is_read_on_a_trial() -> None:
    assert outbound.public_address("127.0.0.1", True, time.monotonic() + 5) == "127.0.0.1"


# -- on the wire: one user agent, no redirect, the caps, no proxy for a public document ------------------------------


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.agents.append(self.headers.get("User-Agent"))  # type: ignore[attr-defined]
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/elsewhere")
            body = b""
        else:
            self.send_response(200)
            body = b"x" * 20_000 if self.path == "/big" else b'{"ok": true}'
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the test's output is its assertions
        pass


@pytest.fixture
def site() -> Iterator[tuple[str, list[str | None]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    agents: list[str | None] = []
    server.agents = agents  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", agents
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_every_destination_sends_the_one_user_agent_and_follows_no_redirect(
    site: tuple[str, list[str | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, agents = site
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # the forge's proxy, if this machine has one, is not for the test
    forge = outbound.forge_session(url, True)
    with outbound.send_form(forge, "GET", f"{url}/moved", None, 5.0) as response:
        assert response.status_code == 302  # reported, not chased
    assert outbound.forge_document(f"{url}/moved", True, 5.0)[0] == 302
    assert outbound.public_get(f"{url}/moved", "127.0.0.1", time.monotonic() + 5).status == 302
    assert agents == [outbound.user_agent()] * 3


def test_a_public_document_never_goes_through_a_proxy(
    site: tuple[str, list[str | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = site
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://user:secret@127.0.0.1:9")  # nothing listens on the discard port
    answer = outbound.public_get(f"{url}/doc.json", "127.0.0.1", time.monotonic() + 5)
    assert answer.status == 200 and answer.body == b'{"ok": true}'


def test_a_public_document_is_read_up_to_its_cap(site: tuple[str, list[str | None]]) -> None:
    url, _ = site
    answer = outbound.public_get(f"{url}/big", "127.0.0.1", time.monotonic() + 5)
    assert len(answer.body) == PUBLIC_DOCUMENT.max_body + 1  # one byte more tells "over the cap"


def test_a_forge_answer_over_its_cap_is_an_overrun(site: tuple[str, list[str | None]]) -> None:
    url, _ = site
    forge = outbound.forge_session(url, True)
    with (
        outbound.send(forge, "GET", f"{url}/big", None, None, {}, 5.0) as response,
        pytest.raises(outbound.Overrun) as overrun,
    ):
        outbound.read_body(response, time.monotonic() + 5, 10_000)
    assert overrun.value.too_big
