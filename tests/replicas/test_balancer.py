"""The round-robin balancer of the three-replica run (tests/replicas/balancer.py), in this process: connections go to
each backend in turn, a backend that refuses is skipped, bytes pass unchanged both ways, and a connection cut by
its backend is cut for the client too."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tests.replicas.balancer import balancer
from tests.support.ports import refusing_port


@contextmanager
def echo(tag: bytes) -> Iterator[int]:
    """A backend that answers each connection's first message with its tag and the message, then closes."""
    server = socket.create_server(("127.0.0.1", 0))
    port: int = server.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.sendall(tag + connection.recv(1024))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        server.shutdown(socket.SHUT_RDWR)  # wakes the accept(); close alone would not
        server.close()
        thread.join(timeout=5)


def ask(url: str, message: bytes) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as connection:
        connection.sendall(message)
        answer = b""
        while chunk := connection.recv(1024):
            answer += chunk
        return answer


def test_each_connection_goes_to_the_next_backend_and_a_refusing_one_is_skipped() -> None:
    with echo(b"a:") as a, echo(b"b:") as b, refusing_port() as dead:
        backends = [("127.0.0.1", a), ("127.0.0.1", dead), ("127.0.0.1", b)]
        with balancer(backends) as lb:
            answers = [ask(lb.url, f"hello {i}".encode()) for i in range(4)]
    assert answers == [b"a:hello 0", b"b:hello 1", b"b:hello 2", b"a:hello 3"]
    assert lb.routed == [0, 2, 2, 0] and lb.refused == 1
    assert sum(lb.active.values()) == 0, "every connection was let go"


def test_every_backend_refusing_closes_the_clients_connection() -> None:
    with refusing_port() as dead, balancer([("127.0.0.1", dead)]) as lb:
        try:
            answer = ask(lb.url, b"anyone?")
        except ConnectionResetError:  # closed with the client's bytes unread: Linux resets rather than ends it
            answer = b""
        assert answer == b""
    assert lb.routed == [] and lb.refused == 1
