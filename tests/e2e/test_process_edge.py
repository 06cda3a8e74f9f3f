"""The server process attacked (issue 35): secrets on its command line, core dumps, and stdio lines the SDK cannot
read. Each test runs `python -m gitea_mcp` as the attacker or a client would meet it, bounded in time; the HTTP
edge's own attacks are in tests/e2e/test_http_edge.py."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.e2e.conftest import HttpServer, env_for, over_stdio, text
from tests.e2e.test_http_abuse import environment
from tests.support.processes import stop

pytestmark = pytest.mark.slow  # each starts a server process; every wait is bounded

SECRET = "0123456789abcdef0123456789abcdef01234567"  # shaped as a Gitea token
# Each flag that held a secret, and the variable that holds it now (written out: a change to them is a decision).
SECRETS = {
    "--token": "GITEA_TOKEN",
    "--http-secret": "GITEA_MCP_HTTP_SECRET",
    "--oauth-client-secret": "GITEA_MCP_OAUTH_CLIENT_SECRET",
    "--oauth-key": "GITEA_MCP_OAUTH_KEY",
}
KEY = "A" * 43 + "="
SIGNIN = {"GITEA_MCP_PUBLIC_URL": "http://127.0.0.1:8000", "GITEA_MCP_OAUTH_CLIENT_ID": "edge-test-app"}
# What else each needs to start: without the flag's refusal the server would run, the secret in its command line.
NEEDS = {
    "--token": {},
    "--http-secret": {"GITEA_TOKEN": DEMO_TOKEN},
    "--oauth-client-secret": {**SIGNIN, "GITEA_MCP_OAUTH_KEY": KEY},
    "--oauth-key": SIGNIN,
}
BASE = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}


def started(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith("GITEA_")}
    return subprocess.Popen(
        [sys.executable, "-m", "gitea_mcp", *argv],
        env={**clean, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("flag", sorted(SECRETS))
def test_a_secret_given_as_a_flag_is_refused_before_anything_runs(flag: str) -> None:
    """Finding 13: `serve --token …` ran with the token in /proc/PID/cmdline, which every local user reads (ps);
    now the process ends at once, exit 2, with the remedy in one sentence and the secret nowhere in it."""
    secret = KEY if flag == "--oauth-key" else SECRET
    process = started(["serve", "--transport", "http", "--port", "0", flag, secret], {**BASE, **NEEDS[flag]})
    try:
        _, err = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        stop(process)
        pytest.fail(f"still running, the secret readable by anyone in /proc/PID/cmdline: {secret.encode() in cmdline}")
    assert process.returncode == 2
    assert err.decode() == (
        f"gitea-issues-mcp: {flag} would put a secret on the command line, where every user of this machine can "
        f"read it (ps); set {SECRETS[flag]} in the environment instead, or put it in a file and pass {flag}-file "
        "FILE.\n"
    )


def test_a_redis_url_with_a_password_is_refused_as_a_flag() -> None:
    process = started(["serve", "--redis-url", f"redis://:{SECRET}@127.0.0.1:6379/0"], BASE)
    _, err = process.communicate(timeout=15)
    assert process.returncode == 2 and SECRET not in err.decode() and "GITEA_MCP_REDIS_URL" in err.decode()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(DEMO_TOKEN + "\n")  # as an editor or `echo` leaves it
    path.chmod(0o600)
    return path


def test_the_token_from_a_file_serves_and_stays_off_the_command_line(forge: StandIn, token_file: Path) -> None:
    env = {name: value for name, value in env_for(forge).items() if name != "GITEA_TOKEN"}

    async def scenario(session: Any) -> None:
        listed = await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "limit": 1})
        assert not listed.is_error, text(listed)

    over_stdio(env, scenario, "--token-file", str(token_file))


def test_serve_turns_core_dumps_off(forge: StandIn) -> None:
    """Finding 13: a core file of the serving process would hold every token it has seen; the hard limit, here
    unlimited, let the process (or a library in it) turn dumps back on. Now both limits are 0 and the process is
    not dumpable (checked by the process itself: PR_GET_DUMPABLE answers to no one else)."""
    running = HttpServer(environment(forge), args=("--workers", "2", "--read-only"))
    try:
        for pid in [running.process.pid, *running.children()]:
            limits = Path(f"/proc/{pid}/limits").read_text()
            line = next(row for row in limits.splitlines() if row.startswith("Max core file size"))
            assert line.split()[4:6] == ["0", "0"], line
    finally:
        running.stop()
    dumpable = subprocess.run(
        [sys.executable, "-c", DUMPABLE], capture_output=True, text=True, timeout=30, check=True
    ).stdout.split()
    assert dumpable == ["1", "0"], "dumpable before, not after"


DUMPABLE = """
import ctypes
from gitea_mcp.cli.serve import no_core_dumps
libc = ctypes.CDLL(None)
print(libc.prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE
no_core_dumps()
print(libc.prctl(3, 0, 0, 0, 0))
"""


class Stdio:
    """`python -m gitea_mcp` on stdio, spoken to line by line, every read bounded."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = started([], env)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answer(self, within: float = 10) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        if not select.select([self.process.stdout], [], [], within)[0]:
            return None
        found: dict[str, Any] = json.loads(self.process.stdout.readline())
        return found

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        finally:
            stop(self.process)


@pytest.fixture
def stdio(forge: StandIn) -> Iterator[Stdio]:
    client = Stdio(env_for(forge))
    yield client
    client.close()


NESTED = b"[" * 5_000 + b"]" * 5_000
DEEP = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"cursor": ' + NESTED + b"}}"
CUT = b'{"jsonrpc": "2.0", "id": "a-1", "method": "tools/list", "params": {'
REFUSED = [
    pytest.param(DEEP, 7, -32600, "nests deeper", id="over-deep"),
    pytest.param(CUT, "a-1", -32700, "not valid JSON", id="malformed"),
    pytest.param(b'{"jsonrpc": "2.0", "method": 5, "id": 8}', 8, -32600, "not a JSON-RPC 2.0 message", id="no-message"),
    pytest.param(b"[1, 2", None, -32700, "not valid JSON", id="no-id-to-read"),
]


@pytest.mark.parametrize(("line", "request_id", "code", "said"), REFUSED)
def test_a_line_the_sdk_cannot_read_is_answered_over_stdio(
    stdio: Stdio, line: bytes, request_id: object, code: int, said: str
) -> None:
    """Finding 17: before, such a line was dropped without an answer and the client waited for its id forever;
    now it gets a JSON-RPC error for that id (null when none can be read), and the session goes on."""
    stdio.send(line)
    started_at = time.monotonic()
    answer = stdio.answer()
    assert answer is not None, "no answer within 10 s: the client would wait forever"
    assert time.monotonic() - started_at < 5
    assert (answer["id"], answer["error"]["code"]) == (request_id, code)
    assert said in answer["error"]["message"]
    stdio.send(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"}).encode())
    assert stdio.answer() == {"jsonrpc": "2.0", "id": 99, "result": {}}, "and the next request is served"
