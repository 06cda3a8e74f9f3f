"""`check` prints each line as its probe ends: against a slow Gitea, the first lines are there long before the last.

The stand-in delays its answer to the last probe (/settings/api); the command runs as a real process whose stdout
is a pipe, so nothing but our own flushing can bring a line out early.
"""

from __future__ import annotations

import os
import queue
import time

from gitea_mcp.standin import StandIn
from gitea_mcp.standin.data import DEMO_TOKEN
from gitea_mcp.standin.http import Fault
from tests.cli.process import Running

DELAY = 8.0  # seconds the last probe's answer takes


def test_lines_come_as_their_probes_end() -> None:
    with StandIn() as standin:
        standin.inject(Fault("delay", method="GET", path_contains="/settings/api", seconds=DELAY))
        env = {key: value for key, value in os.environ.items() if not key.startswith(("GITEA_", "PYTHONUNBUFFERED"))}
        env |= {"GITEA_URL": standin.url, "GITEA_TOKEN": DEMO_TOKEN, "GITEA_ALLOWED_OWNERS": "acme"}
        started = time.monotonic()
        running = Running(["check"], env)
        try:
            head, first = (running.out_line(timeout=DELAY - 2).rstrip("\n") for _ in range(2))
            early = time.monotonic() - started
            assert head == f"gitea-issues-mcp check: {standin.url}" and first.startswith("✓ Gitea 1.25.4 at")
            assert running.process.poll() is None and early < DELAY, "the last probe is still unanswered"
            rest = [running.out_line(timeout=DELAY + 10).rstrip("\n")]
            while not rest[-1].startswith(("ready", "not ready")):
                rest.append(running.out_line(timeout=DELAY + 10).rstrip("\n"))
        except queue.Empty:
            raise AssertionError("check printed nothing while its last probe was unanswered") from None
        finally:
            code = running.wait(within=DELAY + 10)
    # The order stays the one check always had: version, token, scopes, owners, the page size, then the limits.
    assert rest[0].startswith("✓ token valid: acts as @demo") and rest[-3].startswith("✓ max_response_items=")
    assert rest[-2].startswith("✓ limits: 600 tool calls a minute per user on stdio")
    assert rest[-1] == "ready" and code == 0, rest
