"""The processes tests start: a stop that cannot hang, and what they hold open (ports: tests/support/ports.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any


def stop(process: subprocess.Popen[Any], seconds: float = 10) -> None:
    """SIGTERM, then SIGKILL for one that has not ended within `seconds` (a server wedged by a test's abuse)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=seconds)


def open_files(pid: int, port: int) -> int:
    """The descriptors process `pid` holds. The server is not dumpable (cli.serve.no_core_dumps), so its
    /proc/PID/fd is root's alone: another user counts its TCP sockets on `port` instead, nearly all of them."""
    try:
        return len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except PermissionError:
        return sockets_on(port)


def accept_queue(port: int) -> int:
    """Connections made to the listener on `port` that its server has not accept()ed yet: for a listening socket,
    /proc/net/tcp's rx_queue is the length of its accept queue. 0: the server has taken every connection in."""
    waiting = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == LISTEN:
                waiting += int(fields[4].split(":")[1], 16)
    return waiting


LISTEN = "0A"  # the state column of a listening socket in /proc/net/tcp


def sockets_on(port: int) -> int:
    """TCP sockets on this machine whose local port is `port` (a server's listening socket and its connections)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local = row.split()[1]
            count += int(local.rsplit(":", 1)[1], 16) == port
    return count
