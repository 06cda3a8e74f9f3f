"""Runs tests/signin/ts_client/client.mjs (the official TypeScript SDK's OAuth client) and feeds the URL it prints
to the browser user; `npm ci` first when node_modules is missing (skipped, with the reason, without node or npm or
when npm cannot install: CI has neither)."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.signin.python_client import Authorize

PROJECT = Path(__file__).parent / "ts_client"


def node_ready() -> str:
    """node's path, node_modules installed; or a skip naming why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("no node or npm on PATH: the TypeScript SDK client was not run")
    with (PROJECT / ".install.lock").open("w") as lock:  # test workers installing at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (PROJECT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"], cwd=PROJECT, capture_output=True, text=True, timeout=600
            )
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.skip(f"npm ci could not install the TypeScript SDK ({last}): its client was not run")
    return node


@dataclass
class TsRun:
    returncode: int
    authorize_urls: list[str]
    results: list[dict[str, Any]]
    exchanges: list[str]  # `<method> <url> <status>`, as the SDK made them
    errors: list[str] = field(default_factory=list)
    callback_port: int | None = None  # where its loopback listener got (it binds port 0), once it said so

    @property
    def redirect(self) -> str:
        """The redirect URI the client registered: its listener's."""
        return f"http://127.0.0.1:{self.callback_port}/callback"


def run_ts_client(server_url: str, arguments: dict[str, Any], authorize: Authorize, seconds: float = 60.0) -> TsRun:
    """The client to the end; each AUTHORIZE url goes to `authorize` (the browser, which the client's loopback
    listener receives the redirect from: on port 0, the port it got named by its CALLBACK line and in the
    authorize URL's redirect_uri)."""
    command = [node_ready(), "client.mjs", server_url, "0", json.dumps(arguments), str(int(seconds))]
    process = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(process.stderr or []), daemon=True)
    reader.start()
    urls: list[str] = []
    results: list[dict[str, Any]] = []
    signing_in: list[threading.Thread] = []
    port: int | None = None
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("CALLBACK "):
            port = int(line.split(" ", 1)[1])
        elif line.startswith("AUTHORIZE "):
            urls.append(line.split(" ", 1)[1].strip())
            # The browser in a thread of its own: the client must go on reading its listener meanwhile.
            signing_in.append(threading.Thread(target=authorize, args=(urls[-1],), daemon=True))
            signing_in[-1].start()
        elif line.startswith("{"):
            results.append(json.loads(line))
    code = process.wait(timeout=seconds + 10)
    reader.join(timeout=5)
    for thread in signing_in:
        thread.join(timeout=seconds)
    exchanges = [line.removeprefix("HTTP ").strip() for line in err if line.startswith("HTTP ")]
    errors = [line.removeprefix("ERROR ").strip() for line in err if line.startswith("ERROR ")]
    return TsRun(code, urls, results, exchanges, errors, port)
