"""Limits not taken on trust: a dripping upstream cannot hold a call past GITEA_TIMEOUT, nor a huge one fill memory.

A real socket server on 127.0.0.1 plays the misbehaving upstream; each test is bounded in time and bytes.
"""

from __future__ import annotations

import contextlib
import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from gitea_mcp.gitea.client import MAX_BODY, GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import GiteaError, NoAnswer

Serve = Callable[[socket.socket], None]


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> Iterator[str]:
    """A one-connection-at-a-time server whose behaviour is the test's parameter."""
    behaviour: Serve = request.param
    listener = socket.create_server(("127.0.0.1", 0), backlog=4)
    listener.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.recv(65536)
                with contextlib.suppress(OSError):  # the client gave up and closed: that is the point
                    behaviour(conn)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(timeout=5)
    listener.close()


def drip(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[")
    for _ in range(200):  # 1 byte every 50 ms: each socket read is quick, the whole answer would take 10 s
        conn.sendall(b" ")
        time.sleep(0.05)


def drip_chunked(conn: socket.socket) -> None:
    """The same in chunks, as Go frames a long answer: a chunk of one byte every 50 ms."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n[\r\n")
    for _ in range(200):
        conn.sendall(b"1\r\n \r\n")
        time.sleep(0.05)


def huge(conn: socket.socket) -> None:
    size = MAX_BODY + 2**20
    conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode())
    block = b" " * 2**16
    for _ in range(size // len(block)):
        conn.sendall(block)


def gzipped(conn: socket.socket) -> None:
    body = gzip.compress(b'{"version":"1.25.4"}')
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: {len(body)}"
    conn.sendall(head.encode() + b"\r\n\r\n" + body)


def client(url: str, timeout: float = 1.0) -> GiteaClient:
    return GiteaClient(url, "t", timeout=timeout, retry=RetryPolicy(attempts=1))


@pytest.mark.parametrize("upstream", [drip, drip_chunked], indirect=True)
def test_a_dripping_upstream_cannot_hold_a_call(upstream: str) -> None:
    started = time.monotonic()
    with pytest.raises(NoAnswer, match=r"did not finish answering GET /version within 1s \(GITEA_TIMEOUT\)") as slow:
        client(upstream).get(["version"])
    assert time.monotonic() - started < 2.5
    assert slow.value.timed_out, "check advises on a slow server, not on one that hangs up"


@pytest.mark.parametrize("upstream", [huge], indirect=True)
def test_a_huge_answer_is_refused(upstream: str) -> None:
    with pytest.raises(GiteaError, match="larger than 8 MiB"):
        client(upstream, timeout=20).get(["version"])


@pytest.mark.parametrize("upstream", [gzipped], indirect=True)
def test_a_compressed_answer_is_read(upstream: str) -> None:
    assert client(upstream).get(["version"]).data == {"version": "1.25.4"}


def slow(conn: socket.socket) -> None:
    time.sleep(0.3)
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
    )


@pytest.mark.parametrize("upstream", [slow], indirect=True)
def test_a_tool_call_ends_by_its_deadline_whatever_its_requests(upstream: str) -> None:
    """Each request is within GITEA_TIMEOUT, but a call of many sequential requests still ends in time."""
    started = time.monotonic()
    gitea = client(upstream, timeout=5).until(started + 1.0)
    ended = r"The call ran out of time before GET /version|within 0\.\d+s \(what was left of this call's time\)"
    with pytest.raises(GiteaError, match=ended):
        for _ in range(10):
            gitea.get(["version"])
    assert time.monotonic() - started < 1.6


def test_the_call_budget_is_a_few_timeouts() -> None:
    assert client("http://127.0.0.1:9", timeout=3).call_budget == 12


def broken(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n[{")
    conn.shutdown(socket.SHUT_RDWR)  # the answer stops halfway


@pytest.mark.parametrize("upstream", [broken], indirect=True)
def test_an_answer_that_breaks_off_is_no_answer(upstream: str) -> None:
    from gitea_mcp.gitea.errors import NoAnswer

    with pytest.raises(NoAnswer, match="broke off during GET /version"):
        client(upstream).get(["version"])
