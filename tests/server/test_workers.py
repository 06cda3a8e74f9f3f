"""gitea_mcp.server.workers alone: a stop is bounded even for a worker deaf to it, and no fork with a thread running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gitea_mcp.server.workers import MARGIN, run_workers

# Two workers that ignore SIGTERM and say so; the parent gives them no grace, only MARGIN.
DEAF = r"""
import os, signal, time
from gitea_mcp.server.workers import run_workers

def work() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.write(1, b"ready\n")  # one write: two workers' lines never interleave
    time.sleep(60)

run_workers(2, work, 0.0)
"""


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_a_worker_deaf_to_sigterm_is_killed_within_the_bound() -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    parent = subprocess.Popen([sys.executable, "-c", DEAF], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        assert [parent.stdout.readline(), parent.stdout.readline()] == ["ready\n", "ready\n"]
        workers = [int(pid) for pid in Path(f"/proc/{parent.pid}/task/{parent.pid}/children").read_text().split()]
        assert len(workers) == 2
        started = time.monotonic()
        parent.send_signal(signal.SIGTERM)
        # Raised again in the parent once its workers are gone: here (no handler of the CLI's) it ends by it.
        assert parent.wait(timeout=MARGIN + 5) == -signal.SIGTERM
        took = time.monotonic() - started
        assert MARGIN <= took < MARGIN + 2, "killed after the margin, not before nor much later"
        assert all(gone(pid) for pid in workers)
    finally:
        parent.kill()
        parent.wait(timeout=5)


def test_no_fork_while_a_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with pytest.raises(RuntimeError, match="before any thread starts"):
            run_workers(2, lambda: None, 0.0)
    finally:
        stop.set()
        thread.join()
