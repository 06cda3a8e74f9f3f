"""Both SDK clients read our discovery documents the way they read any server's: a 401 from /mcp, the protected
resource's metadata, the authorization server's, then registration at /register. No browser: the run is stopped
where the user would be sent to sign in (or where registration fails, before /register is served).

What it proves is that neither client refuses the documents or the registration's answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gitea_mcp.standin import StandIn
from tests.signin.python_client import Run, run_client
from tests.signin.server import SigninServer
from tests.signin.typescript import run_ts_client

pytestmark = pytest.mark.slow

ARGUMENTS = {"owner": "acme", "name": "widgets"}


class Stop(Exception):
    """Raised where the browser would open: this test goes no further."""


def stop(url: str) -> str:
    raise Stop(url)


@pytest.fixture(scope="module")
def server() -> Iterator[SigninServer]:
    with StandIn() as forge:
        started = SigninServer(forge.url, "signin-e2e-discovery", GITEA_ALLOWED_OWNERS="acme")
        yield started
        started.stop()


def discovery(base: str) -> list[str]:
    return [
        f"POST {base}/mcp 401",
        f"GET {base}/.well-known/oauth-protected-resource/mcp 200",
        f"GET {base}/.well-known/oauth-authorization-server 200",
    ]


def reached_registration(exchanges: list[str], base: str, authorize_urls: list[str]) -> None:
    assert exchanges[:3] == discovery(base), exchanges
    assert exchanges[3] == f"POST {base}/register 201", exchanges
    assert [url.startswith(f"{base}/authorize?") for url in authorize_urls] == [True], authorize_urls


def test_the_python_sdk_client_reads_discovery_then_registers(server: SigninServer) -> None:
    run = Run()
    with pytest.raises(Exception) as raised:  # Stop, where the browser would open
        run_client(server.mcp, "http://127.0.0.1:9/callback", stop, ARGUMENTS, run, seconds=30)
    reached_registration(run.exchanges, server.url, run.authorize_urls)
    assert "Stop" in repr(raised.value), repr(raised.value)


def test_the_typescript_sdk_client_reads_discovery_then_registers(server: SigninServer) -> None:
    # The browser is never opened, so the client waits for a redirect that never comes, until the runner stops it.
    # Its loopback listener binds port 0 (not port 9, where other tests point a Gitea that never answers).
    done = run_ts_client(server.mcp, ARGUMENTS, lambda url: url, seconds=8)
    assert done.returncode == 1, done
    reached_registration(done.exchanges, server.url, done.authorize_urls)
    assert done.errors == ["no result within 8 s"], done.errors
    assert done.callback_port not in (None, 0), "its listener said the port it got"
