"""The HTTP edge attacked (issue 35): the real server process, raw sockets on loopback, bounded in time.

Each test performs one attack from the issue and checks what the server answers, to the attacker and to everyone
else meanwhile. docs/operators.md ("Threat model: the HTTP edge") cites them by name.
"""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from gitea_mcp.server.limits import HEAD_BYTES
from gitea_mcp.standin import StandIn
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http_abuse import environment, head, status_of
from tests.e2e.test_workers import gone

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
        while not all(gone(pid) for pid in workers) and time.monotonic() - killed < 6:
            time.sleep(0.02)
        took = time.monotonic() - killed
        assert all(gone(pid) for pid in workers), f"workers still running {took:.1f} s after their parent died"
        assert took < 2.0, f"the workers took {took:.2f} s to exit"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", running.port), timeout=2).close()
    finally:
        for pid in workers:  # orphans left by a failure: ended here, by their pids
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        running.stop()
