"""The HTTP edge attacked (issue 35): the real server process, raw sockets on loopback, bounded in time.

Each test performs one attack from the issue and checks what the server answers, to the attacker and to everyone
else meanwhile. docs/operators.md ("Threat model: the HTTP edge") cites them by name.
"""

from __future__ import annotations

import os
import secrets
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from gitea_mcp.server.limits import HEAD_BYTES
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http import rpc
from tests.e2e.test_http_abuse import LIST, environment, head, status_of
from tests.e2e.test_workers import gone
from tests.signin.server import SigninServer
from tests.support.waiting import wait_until

# Attackers each on an address of their own: Linux answers for all of 127.0.0.0/8 on loopback.
ATTACKERS = [f"127.0.0.{n}" for n in range(2, 42)]
POOL, PER_ADDRESS = 16, 4  # GITEA_MCP_SIGNIN_REQUESTS, GITEA_MCP_SIGNIN_PER_ADDRESS: their defaults
SIGNIN_BODY_SECONDS = 5  # what a body on those routes has to arrive (docs/operators.md), written out

pytestmark = pytest.mark.slow  # each starts a server process; every wait is bounded


def test_a_head_over_16_kib_sent_in_one_piece_is_refused(forge: StandIn) -> None:
    """Finding 14: h11 checks its cap only while a head is incomplete, so 20 KB of headers sent in one write (or
    completed by the last of several) was read and answered 200; now 431 however it comes."""
    running = HttpServer(environment(forge))
    try:
        padded = head("GET", "/healthz", "X-Pad: " + "a" * (HEAD_BYTES + 4_000))
        within = head("GET", "/healthz", "X-Pad: " + "a" * (HEAD_BYTES - 200))
        pieces = [padded[at : at + 4_096] for at in range(0, len(padded), 4_096)]
        answers = {}
        for name, parts in {"one piece": [padded], "in pieces": pieces, "just within": [within]}.items():
            with socket.create_connection(("127.0.0.1", running.port), timeout=5) as sock:
                for part in parts:
                    try:
                        sock.sendall(part)
                    except (BrokenPipeError, ConnectionResetError):  # refused before the rest was sent
                        break
                    time.sleep(0.01)  # each its own segment
                answers[name] = status_of(sock)
        assert answers == {"one piece": 431, "in pieces": 431, "just within": 200}
    finally:
        running.stop()


def test_workers_exit_within_2_s_of_their_parents_death(forge: StandIn) -> None:
    """Finding 4: the parent of two workers killed with SIGKILL (no chance to pass anything on): before, the
    orphans kept serving the port for as long as they lived; now both are gone within 2 s and the port is free."""
    running = HttpServer(environment(forge), args=("--workers", "2", "--read-only"))
    workers = running.children()
    try:
        assert len(workers) == 2
        os.kill(running.process.pid, signal.SIGKILL)
        killed = time.monotonic()
        wait_until(lambda: all(gone(pid) for pid in workers), 6, "the workers exiting after their parent died")
        took = time.monotonic() - killed
        assert took < 2.0, f"the workers took {took:.2f} s to exit"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", running.port), timeout=2).close()
    finally:
        for pid in workers:  # orphans left by a failure: ended here, by their pids
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        running.stop()


def connect_from(address: str, port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))


def answered(socks: list[socket.socket], count: int, within: float) -> list[socket.socket]:
    """Waits until `count` of `socks` have something to read (or `within` seconds pass): those that have."""
    deadline = time.monotonic() + within
    ready: list[socket.socket] = []
    while len(ready) < count and time.monotonic() < deadline:
        ready = select.select(socks, [], [], 0.05)[0]
    return ready


@pytest.fixture
def signin(forge: StandIn) -> Iterator[SigninServer]:
    """Sign-in on (its routes served); the callers of /mcp here send a personal access token."""
    running = SigninServer(forge.url, "edge-test-app", GITEA_ALLOWED_OWNERS="acme,demo")
    yield running
    running.stop()


def still_serving(server: SigninServer) -> tuple[int, bool, int]:
    """/mcp's status and whether the tool answered, and /healthz's status."""
    call = rpc(server.url, "tools/call", LIST, token=DEMO_TOKEN)
    tool_ok = call.status_code == 200 and not call.json()["result"]["isError"]
    return call.status_code, tool_ok, requests.get(f"{server.url}/healthz", timeout=5).status_code


def test_forty_slow_uploads_without_a_token_leave_mcp_and_healthz_answering(signin: SigninServer) -> None:
    """Finding 2: 40 clients, each from its own address, start a POST to /register or /token and never finish its
    body. Before, each held one of the 32 request slots MCP shares for 30 s: /mcp and /healthz answered 503 to
    everyone. Now the routes without a token have a pool of their own (16) and a share per address (4), and a
    body there has 5 s to come."""
    port = signin.port
    held: list[socket.socket] = []
    try:
        # One address first: four get in, the fifth is refused for its address. Then forty addresses: twelve fill
        # the pool, the other 28 are turned away at once.
        mine = [connect_from("127.0.0.42", port) for _ in range(PER_ADDRESS + 1)]
        held += mine
        for at, sock in enumerate(mine):
            sock.sendall(_slow_upload("/register" if at % 2 else "/token", port))
        over = answered(mine, 1, 5)
        many = [connect_from(address, port) for address in ATTACKERS]
        held += many
        for at, sock in enumerate(many):
            sock.sendall(_slow_upload("/register" if at % 2 else "/token", port))
        turned_away = answered(many, len(ATTACKERS) - (POOL - PER_ADDRESS), 5)  # main's code held bodies 30 s
        # The pool is full of slow bodies: MCP and the probe answer all the same.
        assert still_serving(signin) == (200, True, 200)
        assert [status_of(sock) for sock in over] == [429]
        statuses = [status_of(sock) for sock in turned_away]
        assert statuses == [503] * (len(ATTACKERS) - (POOL - PER_ADDRESS)), statuses
        waiting = [sock for sock in held if sock not in over and sock not in turned_away]
        assert len(waiting) == POOL
        started = time.monotonic()
        ended = answered(waiting, POOL, SIGNIN_BODY_SECONDS + 5)
        assert len(ended) == POOL, f"{POOL - len(ended)} slow bodies still held after {SIGNIN_BODY_SECONDS + 5} s"
        assert {status_of(sock) for sock in ended} == {408}
        assert time.monotonic() - started < SIGNIN_BODY_SECONDS + 2
    finally:
        for sock in held:
            sock.close()


def _slow_upload(path: str, port: int) -> bytes:
    """A request head promising a 1,000-byte body, and the body's first byte: the rest never comes."""
    kind = "application/json" if path == "/register" else "application/x-www-form-urlencoded"
    return (
        head("POST", path, f"Content-Type: {kind}", "Content-Length: 1000").replace(
            b"Host: 127.0.0.1:80", f"Host: 127.0.0.1:{port}".encode()
        )
        + b"{"
    )


class SlowDocuments:
    """Client ID metadata documents that take `seconds` to answer (a 404 in the end), on 127.0.0.1."""

    def __init__(self, seconds: float) -> None:
        released = self.released = threading.Event()

        class Slow(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                released.wait(seconds)
                self.send_error(404)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def test_forty_authorize_requests_with_a_slow_client_document_leave_mcp_answering(signin: SigninServer) -> None:
    """Finding 3: /authorize with a client ID metadata document that takes 4.5 s, from 40 addresses (each its own
    document, so no cache can fold them into one fetch). Before, the fetches held MCP's 32 request slots; now they
    wait in the sign-in pool, the rest are turned away at once, and /mcp and /healthz answer."""
    documents = SlowDocuments(4.5)
    socks: list[socket.socket] = []
    try:
        for number, address in enumerate(ATTACKERS):
            sock = connect_from(address, signin.port)
            socks.append(sock)
            query = f"client_id={documents.url}/client-{number}.json&response_type=code"
            sock.sendall(
                head("GET", f"/authorize?{query}").replace(b"127.0.0.1:80", f"127.0.0.1:{signin.port}".encode())
            )
        turned_away = answered(socks, len(ATTACKERS) - POOL, 3)  # within the documents' 4.5 s
        assert still_serving(signin) == (200, True, 200)  # while sixteen documents are still being fetched
        assert [status_of(sock) for sock in turned_away] == [503] * (len(ATTACKERS) - POOL)
    finally:
        documents.close()
        for sock in socks:
            sock.close()


def test_random_bearer_tokens_cost_gitea_a_bounded_number_of_look_ups(forge: StandIn) -> None:
    """Finding 18: one address sending a new made-up token with every request. Before, each was one GET /user at
    Gitea (329 a second); now an address has 60 look-ups a minute, then 429 with Retry-After, while a token already
    judged still passes and another address still has its own look-ups."""
    running = HttpServer(environment(forge))
    try:
        assert rpc(running.url, "tools/call", LIST).status_code == 200  # DEMO_TOKEN judged before the flood
        forge.clear_requests()
        started = time.monotonic()
        statuses = [_post_mcp_from("127.0.0.2", running.port, secrets.token_hex(20))[0] for _ in range(100)]
        refilled = int(time.monotonic() - started) + 1  # one look-up comes back each second
        look_ups = sum(1 for request in forge.requests if request.path == "/api/v1/user")
        assert 60 <= look_ups <= 60 + refilled, f"{look_ups} look-ups at Gitea for 100 made-up tokens"
        assert statuses[:60] == [401] * 60 and statuses.count(401) == look_ups
        assert statuses.count(429) == 100 - look_ups
        status, said = _post_mcp_from("127.0.0.2", running.port, secrets.token_hex(20))
        assert status == 429 and "\r\nretry-after: 1\r\n" in said.lower(), said
        assert "GITEA_MCP_LOOKUPS_PER_ADDRESS" in said
        assert _post_mcp_from("127.0.0.2", running.port, DEMO_TOKEN)[0] == 200, "a judged token still passes"
        assert _post_mcp_from("127.0.0.3", running.port, secrets.token_hex(20))[0] == 401, "another address asks"
    finally:
        running.stop()


def _post_mcp_from(address: str, port: int, token: str) -> tuple[int, str]:
    """One tools/call POSTed from `address` with `token`: its status, and the answer whole."""
    body = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "issue_list", "arguments": '
        b'{"owner": "acme", "name": "widgets", "limit": 1}}}'
    )
    lines = [
        f"Authorization: Bearer {token}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        "MCP-Protocol-Version: 2025-11-25",
        f"Content-Length: {len(body)}",
    ]
    with connect_from(address, port) as sock:
        sock.sendall(head("POST", "/mcp", *lines) + body)
        said = b""
        while b"\r\n\r\n" not in said and (chunk := sock.recv(65_536)):
            said += chunk
        top, _, rest = said.partition(b"\r\n\r\n")
        length = next(int(line[15:]) for line in top.lower().split(b"\r\n") if line.startswith(b"content-length:"))
        while len(rest) < length and (chunk := sock.recv(65_536)):
            rest += chunk
        said = top + b"\r\n\r\n" + rest
    return int(said.split(b" ", 2)[1]), said.decode("latin-1")
