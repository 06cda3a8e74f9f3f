"""Our server with sign-in on, as a process: `serve --transport http` on a port chosen first, because the public
URL (http://127.0.0.1:PORT, allowed for trials) must name it before the server starts. The port is reserved
(tests/support/ports.py) until the server listens on it, so no other test can take it in between."""

from __future__ import annotations

import base64
import contextlib
import os
import subprocess
import sys
import tempfile

import requests

from tests.support.ports import reserved_port
from tests.support.processes import stop
from tests.support.waiting import wait_until


def new_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


class SigninServer:
    def __init__(
        self, gitea_url: str, client_id: str, client_secret: str | None = None, key: str | None = None, **env: str
    ) -> None:
        """`key`: GITEA_MCP_OAUTH_KEY, shared by replicas (each opens what the other sealed); a new one if None.
        `env` overrides any setting, GITEA_MCP_PUBLIC_URL included (replicas behind one public URL), and
        GITEA_MCP_PORT, a port chosen ahead (a confidential application's redirect URI names it: Gitea gives it no
        port freedom)."""
        with contextlib.ExitStack() as reservation:
            # A port given was reserved by the caller (a confidential application's redirect URI names it).
            self.port = int(env.get("GITEA_MCP_PORT") or reservation.enter_context(reserved_port()))
            self._start(gitea_url, client_id, client_secret, key, env)

    def _start(
        self, gitea_url: str, client_id: str, client_secret: str | None, key: str | None, env: dict[str, str]
    ) -> None:
        self.url = f"http://127.0.0.1:{self.port}"
        settings = {
            "GITEA_URL": gitea_url,
            "GITEA_MCP_PUBLIC_URL": self.url,
            "GITEA_MCP_OAUTH_CLIENT_ID": client_id,
            "GITEA_MCP_OAUTH_KEY": key or new_key(),
            **({"GITEA_MCP_OAUTH_CLIENT_SECRET": client_secret} if client_secret else {}),
            **env,
        }
        command = [sys.executable, "-m", "gitea_mcp", "serve", "--transport", "http", "--port", str(self.port)]
        # Its stderr kept, to say in a failure what the server said (its one line per sign-in, its warnings).
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- kept open for the server's life, closed by stop()
        self.process = subprocess.Popen(
            command, env={**os.environ, **settings}, stdout=subprocess.DEVNULL, stderr=self.stderr
        )
        self._wait(20)

    @property
    def mcp(self) -> str:
        return f"{self.url}/mcp"

    @property
    def callback(self) -> str:
        """Where Gitea sends the user back: the redirect URI of the OAuth2 application registered for us."""
        return f"{self.url}/callback"

    def _wait(self, seconds: float) -> None:
        def healthy() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server with sign-in on ended before it served: {self.said()}")
            try:
                return requests.get(f"{self.url}/healthz", timeout=2).ok
            except requests.ConnectionError:
                return False

        try:
            wait_until(healthy, seconds, f"the server with sign-in on serving at {self.url}")
        except BaseException:
            self.stop()
            raise

    def said(self) -> str:
        """What the server wrote to stderr so far."""
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def stop(self) -> None:
        self.stderr.close()
        stop(self.process)
