"""When Gitea cannot be reached, `check` says why and gives the fix for that cause, never a generic one.

Every case on real sockets on 127.0.0.1: a TLS listener (a certificate made here), a plain-HTTP one, a port nothing
listens on, a listener that accepts and never answers, one whose queue is full (so a connection is never made), a
TLS port answering plain HTTP as Gitea's own (Go) server does, and a host name that cannot resolve (.invalid).
"""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from gitea_mcp.cli.main import FAILED, main
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import GiteaError
from tests.cli.test_tls import LIBRARY_TEXT, Forge, self_signed, tls_forge
from tests.support.ports import refusing_url

Listener = Callable[[Path], AbstractContextManager[str]]  # the URL to try, while it serves

GENERIC = "Gitea's home page"  # the fix for a URL that reaches something that is not Gitea's API


@contextmanager
def tls_port(where: Path) -> Iterator[str]:
    server = tls_forge(self_signed(where))
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@contextmanager
def plain_port(where: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


GO_TLS_ANSWER = b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"


@contextmanager
def go_tls_port(where: Path) -> Iterator[str]:
    """What Go's net/http (Gitea's own HTTPS) writes to a plain-HTTP request on its TLS port, then closes."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(GO_TLS_ANSWER)

    threading.Thread(target=answer, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


@contextmanager
def refusing(where: Path) -> Iterator[str]:
    """A port held bound, never listening: refused, and nobody else's while the test runs."""
    with refusing_url() as url:
        yield url


@contextmanager
def silent_port(where: Path) -> Iterator[str]:
    """Connections are accepted (by the kernel) and never answered."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=50)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


@contextmanager
def full_port(where: Path) -> Iterator[str]:
    """A listener whose accept queue is full: Linux drops further SYNs, so a connection is never made — what a
    firewall that drops packets looks like from here."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=0)
    held = socket.create_connection(listener.getsockname())
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    held.close()
    listener.close()


@contextmanager
def unknown_host(where: Path) -> Iterator[str]:
    yield "http://gitea.invalid"  # RFC 2606: never resolves


CASES = [
    pytest.param(
        refusing,
        "cannot reach Gitea at http://127.0.0.1:{port}: connection refused",
        "nothing listens on port {port} of 127.0.0.1: start Gitea, or correct the port in GITEA_URL",
        id="refused",
    ),
    pytest.param(
        full_port,
        "cannot reach Gitea at http://127.0.0.1:{port}: no connection within 0.5s",
        "make sure 127.0.0.1 is reachable from this machine: a firewall may drop the connection, or a proxy is "
        "needed (HTTPS_PROXY, HTTP_PROXY)",
        id="connect-timeout",
    ),
    pytest.param(
        silent_port,
        "Gitea did not answer GET /version within 0.5s",
        "something listens on port {port} of 127.0.0.1 but does not answer: make sure that is Gitea's port and "
        "that Gitea is not stuck, or raise GITEA_TIMEOUT for a slow server",
        id="no-answer",
    ),
    pytest.param(
        unknown_host,
        "cannot reach Gitea at http://gitea.invalid: its host name does not resolve",
        "correct the host name in GITEA_URL: gitea.invalid is not known to this machine's DNS",
        id="dns",
    ),
    pytest.param(
        tls_port,
        "http://127.0.0.1:{port} speaks HTTPS (TLS), but GITEA_URL says http://",
        "set GITEA_URL=https://127.0.0.1:{port} (that port serves HTTPS)",
        id="http-to-a-tls-port",
    ),
    pytest.param(
        go_tls_port,
        "http://127.0.0.1:{port} speaks HTTPS (TLS), but GITEA_URL says http://",
        "set GITEA_URL=https://127.0.0.1:{port} (that port serves HTTPS)",
        id="http-to-gitea's-own-tls-port",
    ),
    pytest.param(
        plain_port,
        "https://127.0.0.1:{port} answers without TLS (wrong version number)",
        "set GITEA_URL=http://127.0.0.1:{port} (that port serves plain HTTP), or use the port where Gitea serves HTTPS",
        id="https-to-a-plain-port",
    ),
]


def check(url: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setenv("GITEA_URL", url)
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "acme")
    monkeypatch.setenv("GITEA_TIMEOUT", "0.5")
    for name in ("GITEA_TOKEN", "GITEA_CA_BUNDLE", "GITEA_INSECURE", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert main(["check"]) == FAILED
    out, _ = capfd.readouterr()
    return out


@pytest.mark.parametrize(("listener", "headline", "fix"), CASES)
def test_each_unreachable_case_has_its_own_fix(
    listener: Listener,
    headline: str,
    fix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    with listener(tmp_path) as url:
        port = url.rpartition(":")[2]
        out = check(url, monkeypatch, capfd)
    lines = out.splitlines()
    assert lines[1].startswith("✗ ") and headline.format(port=port) in lines[1], out
    assert lines[2] == f"    fix: {fix.format(port=port)}", out
    assert GENERIC not in out and not any(noise in out for noise in LIBRARY_TEXT), out


@pytest.mark.parametrize(("listener", "headline", "fix"), CASES)
def test_a_tool_error_names_the_same_remedy(listener: Listener, headline: str, fix: str, tmp_path: Path) -> None:
    """What an agent reads from any tool: one sentence with the cause, and the remedy where one request tells it (a
    TLS port that just hangs up on plain HTTP, or a silent one, takes check's second look to tell apart)."""
    with listener(tmp_path) as url, pytest.raises(GiteaError) as failed:
        GiteaClient(url, None, timeout=0.5, retry=RetryPolicy(attempts=1)).get(["version"])
    said, port = str(failed.value), url.rpartition(":")[2]
    assert "\n" not in said and not any(noise in said for noise in LIBRARY_TEXT), said
    if listener not in (tls_port, silent_port):
        assert fix.format(port=port).lower() in said.lower(), said
