"""Streamable HTTP under abuse (issue 23): the real server process, raw sockets on 127.0.0.1, bounded in time.

Idle connections beyond the cap under a low `ulimit -n`, requests sent too slowly, a 4 MiB body, a wrong bearer
at `initialize`, a Host outside the allowlist: each is refused or outlived while a normal call still works.
"""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator

import pytest
import requests

from gitea_mcp.server.limits import UNAVAILABLE_FOR
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http import INIT, rpc
from tests.support.processes import accept_queue
from tests.support.waiting import NeverHappened, wait_until

LIST = {"name": "issue_list", "arguments": {"owner": "acme", "name": "widgets", "limit": 1}}
MIB = 1_048_576


def environment(forge: StandIn, **extra: str) -> dict[str, str]:
    return {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme,demo", **extra}


@pytest.fixture
def server(forge: StandIn) -> Iterator[HttpServer]:
    running = HttpServer(environment(forge))
    yield running
    running.stop()


def connect(server: HttpServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def head(method: str, path: str, *lines: str) -> bytes:
    return "\r\n".join([f"{method} {path} HTTP/1.1", "Host: 127.0.0.1:80", *lines, "", ""]).encode()


def mcp_head(length: int | None) -> bytes:
    sized = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return head(
        "POST", "/mcp", f"Authorization: Bearer {DEMO_TOKEN}", "Content-Type: application/json",
        "Accept: application/json, text/event-stream", sized,
    )  # fmt: skip


def answered(sock: socket.socket, within: float) -> bool:
    return bool(select.select([sock], [], [], within)[0])


def status_of(sock: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0


def test_idle_connections_beyond_the_cap_leave_room_for_a_call(forge: StandIn) -> None:
    """300 connections that send nothing, to a server allowed 256 open files: before, accept() failed with "Too
    many open files" in a traceback after traceback and calls timed out; now idle ones give way to new ones."""
    running = HttpServer(environment(forge, GITEA_MCP_HEADER_TIMEOUT="60"), files=256)
    idle: list[socket.socket] = []
    try:
        idle = [connect(running) for _ in range(300)]
        wait_until(lambda: accept_queue(running.port) == 0, 10, "the server taking every connection in")
        cpu = running.cpu_seconds()
        started = time.monotonic()
        health = requests.get(f"{running.url}/healthz", timeout=10)
        call = rpc(running.url, "tools/call", LIST)
        took = time.monotonic() - started
        time.sleep(2)  # a window measured: the CPU an idle flood costs over it
        spent, files = running.cpu_seconds() - cpu, running.open_files()
        assert call.status_code == 200, call.text
        if health.status_code != 200:
            # On a loaded machine the flood can outrun the connection cap for a moment: a connection turned away
            # (or accept() short of descriptors) takes the replica out of rotation for UNAVAILABLE_FOR seconds, by
            # design. Then it must say why, and come back.
            assert health.status_code == 503 and health.json()["status"] == "unavailable", health.text
            assert _healthy_within(running.url, UNAVAILABLE_FOR + 3), "the replica did not come back into rotation"
        assert not call.json()["result"]["isError"]
        assert took < 5 and spent < 1.0, f"answered in {took:.2f} s; {spent:.2f} s of CPU over {took + 2:.1f} s"
        assert files < 256, f"{files} files open"
        said = "".join(running.err)
        assert len(said) < 2_000, f"{len(said):,} characters on stderr"
        print(f"\nidle flood: {files} fds open, answered in {took:.2f} s, {spent:.2f} s CPU, stderr {len(said)} B")
    finally:
        for sock in idle:
            sock.close()
        running.stop()


def _healthy_within(url: str, seconds: float) -> bool:
    try:
        return wait_until(lambda: requests.get(f"{url}/healthz", timeout=10).status_code == 200, seconds, "healthy")
    except NeverHappened:
        return False


SLOW = {
    "half a request line": b"POST /mc",
    "half the headers": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:80\r\nAuthoriz",
    "headers without the body": mcp_head(200),
}


def test_requests_sent_too_slowly_are_closed_within_the_timeouts(forge: StandIn) -> None:
    """Before, each of these connections stayed open after 120 s; now the head has 1 s and the body 1 s."""
    running = HttpServer(environment(forge, GITEA_MCP_HEADER_TIMEOUT="1", GITEA_MCP_BODY_TIMEOUT="1"))
    socks: dict[str, socket.socket] = {}
    try:
        socks["a second request's head, half of it"] = kept = connect(running)
        kept.sendall(head("GET", "/healthz"))
        reply = b""
        while not reply.endswith(b'{"status":"ok"}'):
            reply += kept.recv(4096)
        for name, sent in SLOW.items():
            socks[name] = connect(running)
            socks[name].sendall(sent)
        kept.sendall(b"GET /heal")
        started = time.monotonic()
        closed: dict[str, float] = {}
        came: dict[str, bytes] = dict.fromkeys(socks, b"")
        while len(closed) < len(socks) and time.monotonic() - started < 6:
            ready = select.select([s for n, s in socks.items() if n not in closed], [], [], 0.2)[0]
            for name, sock in socks.items():
                if sock in ready:
                    chunk = sock.recv(4096)
                    came[name] += chunk
                    if not chunk:
                        closed[name] = time.monotonic() - started
        assert set(closed) == set(socks), f"still open after 6 s: {sorted(set(socks) - set(closed))}"
        assert max(closed.values()) < 3, closed
        assert came["headers without the body"].startswith(b"HTTP/1.1 408 ")
        print(f"\nslow requests closed after: { {name: round(t, 2) for name, t in closed.items()} }")
    finally:
        for sock in socks.values():
            sock.close()
        running.stop()


def four_mib_of_empty_objects() -> bytes:
    """A tools/list carrying ~1.4 million `{}`: before, answered 200 for a peak of 176 MB."""
    count = (4 * MIB - 100) // 3
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": [{}] * count}})
    return body.replace(" ", "").encode()


def test_a_4_mib_body_is_refused_413_before_it_is_read(server: HttpServer) -> None:
    body = four_mib_of_empty_objects()
    assert len(body) <= 4 * MIB  # within the SDK's own limit: only ours refuses it
    peak = server.status("VmHWM")
    with connect(server) as sock:  # Content-Length said: refused at the head
        sock.sendall(mcp_head(len(body)))
        early = answered(sock, 2)
        if not early:
            sock.sendall(body)
        assert (status_of(sock), early) == (413, True)
    with connect(server) as sock:  # chunked: refused once past the limit
        sock.sendall(mcp_head(None))
        sent = 0
        for at in range(0, len(body), 65_536):
            piece = body[at : at + 65_536]
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
            if answered(sock, 0.01):
                break
        else:
            sock.sendall(b"0\r\n\r\n")
        # How much was sent before the 413 came depends on the kernel's buffers (loopback absorbs megabytes under
        # load): what counts is the refusal and the server's memory.
        assert status_of(sock) == 413, f"{sent:,} bytes sent"
    grown = server.status("VmHWM") - peak
    assert grown < 20_000, f"peak memory grew {grown:,} kB"
    print(f"\n4 MiB bodies: peak RSS {peak:,} kB before, grew {grown:,} kB; chunked refused after {sent:,} bytes")
    assert rpc(server.url, "tools/call", LIST).status_code == 200, "and a normal call still works"


def test_a_wrong_bearer_is_refused_at_initialize(server: HttpServer, forge: StandIn) -> None:
    """Before, `initialize` passed (the client showed "connected") and the 401 came at the first tool call,
    saying "Set GITEA_TOKEN", an instruction for the operator."""
    wrong = rpc(server.url, "initialize", INIT, token="not-a-real-token")
    assert wrong.status_code == 401
    challenge = wrong.headers["WWW-Authenticate"]
    assert challenge.startswith('Bearer realm="gitea-mcp"') and 'error="invalid_token"' in challenge
    error = wrong.json()["error"]
    assert "refused by Gitea" in error and "Authorization" in error and "GITEA_TOKEN" not in error
    none = rpc(server.url, "initialize", INIT, token=None)
    assert none.status_code == 401 and none.headers["WWW-Authenticate"] == 'Bearer realm="gitea-mcp"'
    forge.clear_requests()
    assert [rpc(server.url, "initialize", INIT).status_code for _ in range(3)] == [200, 200, 200]
    assert [r.path for r in forge.requests] == ["/api/v1/user"], "a token is asked about once, then remembered"


def test_a_host_outside_the_allowlist_names_the_setting(server: HttpServer) -> None:
    refused = rpc(server.url, "initialize", INIT, Host="evil.example")
    assert refused.status_code == 421
    error = refused.json()["error"]
    assert "GITEA_MCP_ALLOWED_HOSTS" in error and "'evil.example'" in error
