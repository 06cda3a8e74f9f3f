"""Metrics in the Prometheus format on a port of their own (GITEA_MCP_METRICS_PORT), off by default, bound to
127.0.0.1 unless the operator names an address (GITEA_MCP_METRICS_ADDRESS): what the server counts
(gitea_mcp/observe.py) kept by prometheus-client (the `metrics` extra) and served to a scraper.

A port of its own, not a path of the MCP port: the scraper reaches it without a token, and the MCP port's gate, its
limits and its Host checks stay what they are; the metrics never reach the clients' network unless the operator
says so.

With GITEA_MCP_WORKERS above 1 the workers count in prometheus-client's multiprocess mode: each writes its values
to a file of its own in a directory the parent made (PROMETHEUS_MULTIPROC_DIR, the operator's if set), and the
parent, which serves no MCP, serves the sum of them all on the one metrics port. One target per server, however
many workers, with totals that survive a worker's death — a label per worker would need a port per worker, and the
scraper would lose a dead worker's counts. `gitea_mcp_workers_alive` is the parent's own count of its workers.

Labels are bounded: a tool's name (or `(unserved)`), an outcome (observe.OUTCOMES), a method, a status class, a
limit's, a sign-in's or the write guard's own words. A user or a repository is a label only of the two `_by_`
families, which exist only with GITEA_MCP_METRICS_DETAILED (each user and repository is a series of its own).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import http.server
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import gitea_mcp.observe as observe
from gitea_mcp import __version__
from gitea_mcp.settings import ConfigError, Settings

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry
    from prometheus_client.metrics_core import Metric

PREFIX = "gitea_mcp_"
# Every family the server exports, as a scrape names it (a counter's `_total` included); the dashboard's panels
# (deploy/grafana/gitea-mcp.json) may name only these, and a test holds them to it.
TOOL_CALLS = "gitea_mcp_tool_calls_total"
TOOL_SECONDS = "gitea_mcp_tool_call_seconds"
FORGE_REQUESTS = "gitea_mcp_forge_requests_total"
FORGE_SECONDS = "gitea_mcp_forge_request_seconds"
LIMIT_REFUSALS = "gitea_mcp_limit_refusals_total"
SIGNINS = "gitea_mcp_signins_total"
REFRESHES = "gitea_mcp_signin_refreshes_total"
WRITE_GUARD = "gitea_mcp_write_guard_hits_total"
WORKERS_ALIVE = "gitea_mcp_workers_alive"
BUILD = "gitea_mcp_build_info"
BY_USER = "gitea_mcp_tool_calls_by_user_total"  # GITEA_MCP_METRICS_DETAILED only
BY_REPOSITORY = "gitea_mcp_tool_calls_by_repository_total"  # GITEA_MCP_METRICS_DETAILED only
EXPORTED = (
    TOOL_CALLS,
    TOOL_SECONDS,
    FORGE_REQUESTS,
    FORGE_SECONDS,
    LIMIT_REFUSALS,
    SIGNINS,
    REFRESHES,
    WRITE_GUARD,
    WORKERS_ALIVE,
    BUILD,
    BY_USER,
    BY_REPOSITORY,
)
HISTOGRAMS = (TOOL_SECONDS, FORGE_SECONDS)
# Seconds: a cached read answers in milliseconds, a call may take four GITEA_TIMEOUTs (120 s by default).
CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
FORGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"

NOT_INSTALLED = (
    "GITEA_MCP_METRICS_PORT is set but the prometheus-client package is not installed: install "
    "gitea-issues-mcp[metrics] (pip install 'gitea-issues-mcp[metrics]'), or unset GITEA_MCP_METRICS_PORT"
)


def _family(name: str) -> str:
    """The name prometheus-client is given: a counter's without `_total` (it adds the suffix itself)."""
    return name.removesuffix("_total")


class Prometheus:
    """The sink observe.py counts into: one prometheus-client metric per family, labelled children kept at hand
    (prometheus-client's own `labels` takes a lock and builds a key on every call)."""

    def __init__(self, registry: CollectorRegistry | None, detailed: bool) -> None:
        from prometheus_client import Counter, Histogram  # why: the metrics extra, only with metrics on

        def counter(name: str, said: str, labels: tuple[str, ...]) -> Any:
            return Counter(_family(name), said, labels, registry=registry)

        self._calls = counter(TOOL_CALLS, "Tool calls answered, by tool and outcome.", ("tool", "outcome"))
        self._call_seconds = Histogram(
            TOOL_SECONDS,
            "Seconds from a call's arrival to its answer.",
            ("tool",),
            registry=registry,
            buckets=CALL_BUCKETS,
        )
        self._forge = counter(
            FORGE_REQUESTS, "Requests sent to the forge, by method and status class.", ("method", "status")
        )
        self._forge_seconds = Histogram(
            FORGE_SECONDS,
            "Seconds from sending a forge request to its answer read.",
            ("method",),
            registry=registry,
            buckets=FORGE_BUCKETS,
        )
        self._limits = counter(LIMIT_REFUSALS, "Calls or requests refused by a limit, by limit.", ("kind",))
        self._signins = counter(SIGNINS, "Sign-ins finished at /token, by outcome.", ("outcome",))
        self._refreshes = counter(REFRESHES, "Refreshes at /token, by outcome (not ok: a failure).", ("outcome",))
        self._guard = counter(
            WRITE_GUARD,
            "Writes that met an identical one in flight, by where and whether they joined it.",
            ("scope", "result"),
        )
        self._by_user = counter(BY_USER, "Tool calls by forge user.", ("tool", "user")) if detailed else None
        self._by_repository = (
            counter(BY_REPOSITORY, "Tool calls by repository.", ("tool", "repository")) if detailed else None
        )
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}

    def _child(self, metric: Any, *labels: str) -> Any:
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def tool_call(self, tool: str, outcome: str, seconds: float) -> None:
        self._child(self._calls, tool, outcome).inc()
        self._child(self._call_seconds, tool).observe(seconds)

    def detailed(self, tool: str, user: str | None, repository: str | None) -> None:
        if self._by_user is not None:
            self._child(self._by_user, tool, user or "").inc()
        if self._by_repository is not None and repository:
            self._child(self._by_repository, tool, repository).inc()

    def forge_request(self, method: str, status: str, seconds: float) -> None:
        self._child(self._forge, method, status).inc()
        self._child(self._forge_seconds, method).observe(seconds)

    def limit_refused(self, kind: str) -> None:
        self._child(self._limits, kind).inc()

    def signin(self, outcome: str) -> None:
        self._child(self._signins, outcome).inc()

    def refresh(self, outcome: str) -> None:
        self._child(self._refreshes, outcome).inc()

    def write_guard(self, scope: str, result: str) -> None:
        self._child(self._guard, scope, result).inc()


class _Alive:
    """gitea_mcp_workers_alive and gitea_mcp_build_info, asked at each scrape (a collector: no value to keep)."""

    def __init__(self, count: Callable[[], int]) -> None:
        self.count = count

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import GaugeMetricFamily  # why: the metrics extra

        yield GaugeMetricFamily(WORKERS_ALIVE, "Processes serving MCP calls (workers, or 1).", value=self.count())
        build = GaugeMetricFamily(BUILD, "This server's version.", labels=["version"])
        build.add_metric([__version__], 1)
        yield build


class Exposition:
    """The metrics port: bound when made (a port in use stops the server at start), served from `serve` on."""

    def __init__(self, settings: Settings, registry: CollectorRegistry) -> None:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest  # why: the metrics extra

        class Scrape(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = generate_latest(registry)
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE_LATEST)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # a scrape every 15 s is no news for stderr
                pass

        address, port = settings.metrics_address, settings.metrics_port or 0
        server_class = _server_class(address)
        try:
            self.httpd = server_class((address, port), Scrape)
        except OSError as exc:
            raise ConfigError(_cannot_listen(exc, address, port)) from None
        self.registry = registry

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/metrics"

    def serve(self) -> None:
        threading.Thread(target=self.httpd.serve_forever, name="metrics", daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _server_class(address: str) -> type[http.server.ThreadingHTTPServer]:
    class Server(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in address else socket.AF_INET
        daemon_threads = True

    return Server


def _cannot_listen(exc: OSError, address: str, port: int) -> str:
    where = f"GITEA_MCP_METRICS_PORT {port} on {address}"
    if exc.errno == errno.EADDRINUSE:
        return f"{where} is in use by another program; choose a free port with GITEA_MCP_METRICS_PORT"
    if exc.errno == errno.EACCES:
        return f"{where} needs privileges this user lacks (ports below 1024 do); choose a port from 1024"
    return (
        f"cannot listen for metrics on {address} port {port} ({exc.strerror or exc}); set GITEA_MCP_METRICS_ADDRESS "
        "to one of this machine's addresses (127.0.0.1, or 0.0.0.0 for all of them)"
    )


class Metrics:
    """Metrics on, for one server: the sink installed, the port bound. `serve()` now for one process; with workers,
    `beside(pids)` in the parent once they are forked."""

    def __init__(self, exposition: Exposition, multiprocess: str | None, owned: bool) -> None:
        self.exposition = exposition
        self.multiprocess = multiprocess  # the directory the workers write to, or None (one process)
        self._owned = owned  # a directory we made (removed at the end), not the operator's

    @property
    def url(self) -> str:
        return self.exposition.url

    def serve(self) -> None:
        self.exposition.serve()

    def beside(self, pids: set[int]) -> Callable[[], None]:
        """In the parent of the workers: serve their sum, counting `pids` (the set the parent keeps of the workers
        still alive) as gitea_mcp_workers_alive; the function returned stops it once they are gone."""
        from prometheus_client import multiprocess  # why: the metrics extra

        multiprocess.MultiProcessCollector(self.exposition.registry)  # type: ignore[no-untyped-call]
        self.exposition.registry.register(_Alive(lambda: len(pids)))
        self.exposition.serve()

        def ended() -> None:
            with contextlib.suppress(Exception):
                self.exposition.close()
            if self._owned and self.multiprocess:
                shutil.rmtree(self.multiprocess, ignore_errors=True)

        return ended


def start(settings: Settings) -> Metrics | None:
    """Metrics as the settings ask: None when off (nothing imported); else the sink installed in observe.py and the
    port bound. The caller serves it (`Metrics.serve`, or `Metrics.beside` in a parent of workers).

    With workers the multiprocess directory is chosen before prometheus-client is first imported: the library reads
    PROMETHEUS_MULTIPROC_DIR once, at import."""
    if settings.metrics_port is None:
        return None
    workers = settings.transport == "http" and settings.workers > 1
    if workers:
        directory, owned = _multiprocess_directory()
    else:  # one process: its own values, whatever the environment says (a directory set for another program)
        directory, owned = None, False
        for name in (MULTIPROC_DIR, MULTIPROC_DIR.lower()):
            os.environ.pop(name, None)
    try:
        from prometheus_client import CollectorRegistry  # why: the metrics extra, only with metrics on
    except ImportError:
        raise ConfigError(NOT_INSTALLED) from None
    from prometheus_client import disable_created_metrics  # why: the metrics extra

    # A `_created` series beside each would double the scrape, for a value no panel reads.
    disable_created_metrics()  # type: ignore[no-untyped-call]
    registry = CollectorRegistry(auto_describe=True)
    if directory is None:
        from prometheus_client import ProcessCollector  # why: the metrics extra

        ProcessCollector(registry=registry)  # CPU seconds, memory, open files: of the one process
        registry.register(_Alive(lambda: 1))
    exposition = Exposition(settings, registry)  # bound first: a port in use leaves nothing installed
    # In multiprocess mode the values live in the workers' files: the metrics are registered nowhere, and the
    # parent's registry reads the files (MultiProcessCollector).
    observe.install(Prometheus(None if directory else registry, settings.metrics_detailed))
    return Metrics(exposition, directory, owned)


def _multiprocess_directory() -> tuple[str, bool]:
    """The operator's PROMETHEUS_MULTIPROC_DIR, emptied of a former run's files, or one made here (and removed at the
    end); set in the environment before prometheus-client is imported."""
    given = os.environ.get(MULTIPROC_DIR)
    if given:
        os.makedirs(given, exist_ok=True)
        for stale in glob.glob(os.path.join(given, "*.db")):  # a former run's counts would be added to ours
            with contextlib.suppress(OSError):
                os.remove(stale)
        return given, False
    made = tempfile.mkdtemp(prefix="gitea-mcp-metrics-")
    os.environ[MULTIPROC_DIR] = made
    return made, True


def stop() -> None:
    """Counts go nowhere again (tests; a server's end)."""
    observe.install(None)
