"""serve (the default): run the MCP server on stdio, or on streamable HTTP for many users.

Ctrl-C and SIGTERM end it quietly (exit 130 and 143, see cli._stop); stdin closing ends the stdio server with 0.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from gitea_mcp.settings import Settings

if TYPE_CHECKING:  # the SDK import is most of start-up: at run time only when serving
    from mcp.server.mcpserver import MCPServer

    from gitea_mcp.server.metrics import Metrics

HELP = "run the MCP server (stdio by default; --transport http for streamable HTTP)"
# Someone started the server by hand in a terminal: without this they would face a silent, waiting process.
ON_A_TERMINAL = (
    "gitea-issues-mcp: speaking MCP on stdio, waiting for an MCP client on stdin (Ctrl-C stops). "
    "To try it: gitea-issues-mcp demo; client setup: gitea-issues-mcp config --help; all options: "
    "gitea-issues-mcp --help"
)
# `demo --serve` is already the way to try it: it must not send its user to `demo`.
DEMO_ON_A_TERMINAL = (
    "gitea-issues-mcp: speaking MCP on stdio, waiting for an MCP client on stdin (Ctrl-C stops). "
    "Client setup: gitea-issues-mcp config --help; all options: gitea-issues-mcp demo --help"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """serve takes only the common settings (transport ones included)."""


def run(ns: argparse.Namespace, settings: Settings) -> int:
    # Metrics first: with workers, prometheus-client must learn its multiprocess directory before its first import.
    metrics = started_metrics(settings)
    # why: the MCP SDK, 0.45 s: every command module is imported for `--help`
    from gitea_mcp.server.app import build_server
    from gitea_mcp.server.tracing import configure

    # Before the server is built, so a wrong set-up is said at start in one sentence; with worker processes each
    # starts its own exporter once forked (server/http.py).
    configure(settings, export=settings.transport != "http" or settings.workers == 1)
    run_server(build_server(settings), settings, metrics=metrics)
    return 0


def started_metrics(settings: Settings) -> Metrics | None:
    """The metrics port bound and its sink installed, when GITEA_MCP_METRICS_PORT is set; else None, with nothing
    imported."""
    if settings.metrics_port is None:
        return None
    from gitea_mcp.server import metrics  # why: metrics on only

    return metrics.start(settings)


def run_server(
    server: MCPServer, settings: Settings, on_a_terminal: str = ON_A_TERMINAL, metrics: Metrics | None = None
) -> None:
    """Serve on the configured transport until the client leaves (stdio) or a signal stops it; `on_a_terminal` is
    said when stdin is a terminal (someone started it by hand). `metrics`: the port to serve metrics on beside."""
    no_core_dumps()
    if metrics is not None:
        if metrics.multiprocess is None:  # with workers, their parent serves it once they are forked
            metrics.serve()
        print(f"gitea-issues-mcp: Prometheus metrics at {metrics.url}", file=sys.stderr, flush=True)
    if settings.transport == "http":
        from gitea_mcp.server.http import serve  # why: HTTP mode only (starlette, uvicorn, the sign-in)

        serve(server, settings, metrics)
        return
    if _on_terminal():
        print(on_a_terminal, file=sys.stderr, flush=True)
    # why: 96 ms, the SDK's stdio: every command's `--help` imports this module
    from gitea_mcp.server.stdio import guarded

    with guarded():  # every line answered, a malformed one too (the SDK alone would drop it unanswered)
        server.run("stdio")


PR_SET_DUMPABLE = 4  # prctl(2), <linux/prctl.h>


def no_core_dumps() -> None:
    """A serving process holds tokens (its own, its callers', the sign-in's key) in memory: no core file may carry
    them off. RLIMIT_CORE 0 stops the kernel writing one; on Linux PR_SET_DUMPABLE 0 also stops a core handler
    (`core_pattern` piped to systemd-coredump or apport, which a zero limit does not stop), and makes
    /proc/PID/environ and /proc/PID/mem readable by root alone and the process untraceable by other processes of
    its user. Workers forked later inherit both. Where either is not allowed, serving goes on without it."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource  # why: POSIX only (ImportError on Windows, suppressed)

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if sys.platform.startswith("linux"):
        import ctypes  # why: Linux only, and 1.4 ms of every command's `--help`

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def _on_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):  # a closed or detached stdin is no terminal
        return False
