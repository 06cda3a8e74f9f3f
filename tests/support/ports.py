"""Ports for tests, without races. A server a test starts binds port 0 and says which port it got (a start-up line,
or the listening socket itself). Where that cannot be, the port is held while in use, never found free by binding
and releasing it (another test may bind it before it is used): a port "nothing listens on" is one this process
holds bound and never listens on, so Linux refuses a connection to it (RST, ECONNREFUSED) and no other program can
take it (refusing_port, unheard_port); a server that must be told its port before it starts gets one reserved for
it (reserved_port). tests/test_races.py holds the suite to this."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

LOOPBACK = "127.0.0.1"


@contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port where a connection is refused, held so for the `with` block."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind((LOOPBACK, 0))  # bound, never listening: refused, and nobody else's until closed
        port: int = held.getsockname()[1]
        yield port


@contextmanager
def refusing_url() -> Iterator[str]:
    """http://127.0.0.1:PORT on a refusing_port()."""
    with refusing_port() as port:
        yield f"http://{LOOPBACK}:{port}"


@contextmanager
def reserved_port() -> Iterator[int]:
    """A loopback port kept for a server that must be told its port before it starts (its public URL names it),
    for the `with` block. Held bound with SO_REUSEADDR and never listening: the kernel's own choices (a bind to port
    0, a connection's port) never fall on it (net.ipv4.ip_autobind_reuse is off unless set), a socket without
    SO_REUSEADDR is refused it, while our server, which binds with SO_REUSEADDR as uvicorn does, can take it and
    listen (Linux lets sockets that all ask for SO_REUSEADDR share a port so long as none of the others listens)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind((LOOPBACK, 0))
        port: int = held.getsockname()[1]
        yield port


_UNHEARD: list[socket.socket] = []  # held for the life of the test process


def unheard_port() -> int:
    """A loopback port held (refusing) until the test process ends: for a URL that must name a port nobody else
    has, though nothing ever connects to it (a redirect the test's browser intercepts)."""
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.bind((LOOPBACK, 0))
    _UNHEARD.append(held)
    port: int = held.getsockname()[1]
    return port
