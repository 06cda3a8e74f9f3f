"""The processes tests start: a free port to give one, and a stop that cannot hang."""

from __future__ import annotations

import socket
import subprocess
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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
