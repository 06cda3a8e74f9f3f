"""`python -m gitea_mcp check` with the sign-in settings, at a live Gitea (issue 24): the application and its
redirect URI verified, and what a signed-in user's token may do said by release. Gitea before 1.23 gives OAuth
tokens full access whatever scopes are asked, so check warns there; 1.23 and later narrow them.

The application is the one the other live tests use, public with http://127.0.0.1/callback: Gitea takes it on any
port, so check must not call it wrong. Our server runs, so its discovery document is found. Skipped unless
tests/signin/live.py's variables name a live Gitea.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import requests

from tests.signin import live
from tests.signin.server import SigninServer, new_key

pytestmark = pytest.mark.slow


def release(url: str) -> tuple[int, int]:
    version = requests.get(f"{url}/api/v1/version", timeout=10).json()["version"]
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


@pytest.mark.parametrize("read_only", [False, True])
def test_check_verifies_the_application_and_says_what_signed_in_tokens_may_do(read_only: bool) -> None:
    reason = live.missing()
    if reason:
        pytest.skip(reason)
    forge = live.LiveGitea.from_env()
    app = forge.app(["http://127.0.0.1/callback"])
    key = new_key()
    try:
        server = SigninServer(forge.url, app.client_id, key=key, GITEA_ALLOWED_OWNERS="siteadmin")
        try:
            settings = {
                "GITEA_URL": forge.url, "GITEA_TOKEN": os.environ["GITEA_SIGNIN_ADMIN_TOKEN"],  # the app's owner
                "GITEA_ALLOWED_OWNERS": "siteadmin", "GITEA_MCP_PUBLIC_URL": server.url,
                "GITEA_MCP_OAUTH_CLIENT_ID": app.client_id, "GITEA_MCP_OAUTH_KEY": key,
                "GITEA_READ_ONLY": str(read_only).lower(),
            }  # fmt: skip
            began = time.monotonic()
            done = subprocess.run(
                [sys.executable, "-m", "gitea_mcp", "check"], env={**os.environ, **settings},
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            took = time.monotonic() - began
        finally:
            server.stop()
    finally:
        forge.delete_app(app)
    lines = [line for line in done.stdout.splitlines() if "sign-in:" in line]
    print(f"\ncheck took {took:.2f}s; its sign-in lines:", *lines, sep="\n")
    assert any(line.startswith("✓") and f"redirects to {server.url}/callback" in line for line in lines), lines
    scopes = next(line for line in lines if "asks Gitea for" in line)
    if release(forge.url) < (1, 23):
        assert scopes.startswith("!") and "gives OAuth tokens full access whatever is asked" in scopes, scopes
        # Read-only asks Gitea for read scopes, which 1.22 does not keep to: only our read-only mode holds.
        assert ("write:issue" in scopes) is not read_only and ("and read-only mode" in scopes) is read_only, scopes
    else:
        assert scopes.startswith("✓") and "narrows OAuth tokens to the scopes asked" in scopes, scopes
        assert ("write:issue" in scopes) is not read_only, scopes
    assert not [line for line in lines if line.startswith("✗")], lines
