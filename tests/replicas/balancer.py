"""A plain TCP load balancer on 127.0.0.1, round robin by connection, as a cloud's or a Service's would be.

Each accepted connection goes to the next backend in turn; a backend that refuses the connection is skipped (a
passive health check: the next in turn gets it), and the client never knows. Bytes are piped both ways unchanged,
so HTTP keep-alive pins a connection to one replica, as with any layer-4 balancer. It records where each
connection went, so a test can show that retries really were spread over the replicas.
"""

from __future__ import annotations

import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

CONNECT_SECONDS = 2.0
CHUNK = 65_536


@dataclass
class Balancer:
    backends: list[tuple[str, int]]
    url: str = ""
    routed: list[int] = field(default_factory=list)  # the backend index of each connection, in order
    refused: int = 0  # connections a backend refused, passed to the next
    active: Counter[int] = field(default_factory=Counter)  # connections open now, by backend (one request each here)
    _turn: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _listener: socket.socket | None = None

    def next_backend(self) -> Iterator[int]:
        with self._lock:
            start = self._turn
            self._turn = (self._turn + 1) % len(self.backends)
        for step in range(len(self.backends)):
            yield (start + step) % len(self.backends)

    def serve(self) -> None:
        assert self._listener is not None
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed: the balancer is stopping
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        upstream = None
        for index in self.next_backend():
            try:
                upstream = socket.create_connection(self.backends[index], timeout=CONNECT_SECONDS)
            except OSError:
                with self._lock:
                    self.refused += 1
                continue
            with self._lock:
                self.routed.append(index)
                self.active[index] += 1
            break
        else:  # every backend refused: the client sees its connection closed
            client.close()
            return
        upstream.settimeout(None)
        done = threading.Event()
        back = threading.Thread(target=_pipe, args=(upstream, client, done), daemon=True)
        back.start()
        _pipe(client, upstream, done)
        back.join()
        with self._lock:
            self.active[index] -= 1

    def close(self) -> None:
        if self._listener is not None:
            with suppress(OSError):  # wakes the accept() waiting in serve(); close alone would not
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()


def _pipe(source: socket.socket, sink: socket.socket, done: threading.Event) -> None:
    """Copies until either side ends; then closes both (a backend killed mid-answer closes the client's too)."""
    with suppress(OSError):
        while not done.is_set():
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    done.set()
    for end in (source, sink):
        with suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)
        end.close()


@contextmanager
def balancer(backends: list[tuple[str, int]]) -> Iterator[Balancer]:
    """The balancer listening on a port of 127.0.0.1 the kernel chose, for the `with` block."""
    lb = Balancer(backends)
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)  # listening at once: the port is ours
    lb._listener = listener
    lb.url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    thread = threading.Thread(target=lb.serve, daemon=True)
    thread.start()
    try:
        yield lb
    finally:
        lb.close()
        thread.join(timeout=5)
