"""`python -m gitea_mcp …` as a real subprocess whose stdout and stderr lines are read as they come."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from typing import IO, Any

# A Gitea nobody answers (port 9, discard): the server starts without ever needing it.
CLOSED_GITEA = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any GITEA_ setting of the developer's, plus `extra`."""
    kept = {key: value for key, value in os.environ.items() if not key.startswith("GITEA_")}
    return {**kept, "PYTHONUNBUFFERED": "1", **extra}


class Running:
    """A started command; `stdin` may be a PIPE (default) or a file descriptor such as a pty's."""

    def __init__(self, args: list[str], env: dict[str, str], stdin: Any = subprocess.PIPE) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gitea_mcp", *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.out_lines: queue.Queue[str] = queue.Queue()
        self.err_lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=_pump, args=(self.process.stdout, self.out_lines), daemon=True),
            threading.Thread(target=_pump, args=(self.process.stderr, self.err_lines), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self._err: list[str] = []

    def err_line(self, timeout: float = 20) -> str:
        line = self.err_lines.get(timeout=timeout)
        self._err.append(line)
        return line

    def out_line(self, timeout: float = 20) -> str:
        return self.out_lines.get(timeout=timeout)

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def signal(self, signum: signal.Signals, within: float = 2.0) -> int:
        """Send the signal; the exit code, which must come within `within` seconds."""
        self.process.send_signal(signum)
        return self.wait(within)

    def close_stdin(self, within: float = 2.0) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.wait(within)

    def alive_after(self, seconds: float) -> bool:
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return True
        return False

    def wait(self, within: float) -> int:
        try:
            return self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running {within}s later") from None

    def stderr(self) -> str:
        """All of stderr, once the process has ended."""
        for reader in self._readers:
            reader.join(timeout=5)
        while not self.err_lines.empty():
            self._err.append(self.err_lines.get())
        return "".join(self._err)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)
