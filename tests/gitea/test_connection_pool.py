"""The connection pool holds a connection for every thread that can send at once: none is dropped, all are kept.

Against the stand-in on 127.0.0.1 (real sockets, in this process): 40 callers at once, each reading two things
at once (`gather`), as 40 tool threads with the shared workers would.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from gitea_mcp.gitea.client import CONNECTIONS, GiteaClient, RetryPolicy
from gitea_mcp.standin import DEMO_TOKEN, StandIn

CALLERS = 40
ROUNDS = 3
DISCARDED = "Connection pool is full"


def _round(client: GiteaClient) -> None:
    def one(_: int) -> None:
        client.gather(
            lambda: client.get(["repos", "acme", "widgets", "issues", 1]),
            lambda: client.get(["repos", "acme", "widgets", "issues", 1, "comments"]),
        )

    with ThreadPoolExecutor(max_workers=CALLERS) as callers:
        list(callers.map(one, range(CALLERS), timeout=60))


def test_many_senders_at_once_drop_no_connection_and_reuse_them(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="urllib3.connectionpool")
    # Every answer takes a moment, so the requests of a round are in flight together.
    with StandIn(latency=0.05) as forge:
        client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
        for _ in range(ROUNDS):
            _round(client)
        requests_sent, connections = len(forge.requests), forge.connections
    dropped = [record for record in caplog.records if DISCARDED in record.getMessage()]
    assert dropped == [], f"{len(dropped)} connections discarded"
    assert requests_sent == ROUNDS * CALLERS * 2
    # Each connection is kept for the next request: at most one per sender, over every round.
    assert connections <= CONNECTIONS, f"{connections} connections for {requests_sent} requests"


def test_more_senders_than_the_pool_wait_for_a_connection_rather_than_open_one_to_drop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Threads beyond the pool's size (no server runs so many) still open no connection it would drop."""
    caplog.set_level(logging.WARNING, logger="urllib3.connectionpool")
    senders = CONNECTIONS + 20
    with StandIn(latency=0.05) as forge:
        client = GiteaClient(forge.url, DEMO_TOKEN, timeout=10, retry=RetryPolicy(attempts=1))
        with ThreadPoolExecutor(max_workers=senders) as callers:
            list(callers.map(lambda _: client.get(["repos", "acme", "widgets", "issues", 1]), range(senders)))
        connections = forge.connections
    assert [r for r in caplog.records if DISCARDED in r.getMessage()] == []
    assert connections <= CONNECTIONS
