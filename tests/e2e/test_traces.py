"""GITEA_MCP_TRACES for real: the server process exports its spans over OTLP/HTTP to a collector on 127.0.0.1, the
client's trace carried to the forge's requests, the last batch sent at the stop; with worker processes too (each
starts its exporter once forked)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from gitea_mcp.server.http import GRACE
from gitea_mcp.server.workers import MARGIN
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.e2e.conftest import HttpServer
from tests.e2e.test_http import rpc

pytestmark = pytest.mark.slow  # two server processes, each stopped within GRACE + MARGIN

CLIENT_TRACE = "5b8efff798038103d269b633813fc60c"
TRACEPARENT = f"00-{CLIENT_TRACE}-eee19b7ec3c1b174-01"


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP collector's one route, POST /v1/traces: the requests it was sent, as they came."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.bodies: list[bytes] = []
        self.paths: list[str] = []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def spans(self) -> list[Any]:
        found = []
        for body in self.bodies:
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_spans:
                service = {a.key: a.value.string_value for a in resource.resource.attributes}["service.name"]
                found += [(service, span) for scope in resource.scope_spans for span in scope.spans]
        return found


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.paths.append(self.path)
        self.server.bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    started = Collector()
    yield started
    started.shutdown()
    started.server_close()


@pytest.mark.parametrize("workers", [1, 2])
def test_spans_reach_the_collector_with_the_clients_trace(forge: StandIn, collector: Collector, workers: int) -> None:
    env = {
        "GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_MCP_TRACES": "true",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_SERVICE_NAME": "mcp-e2e",
    }  # fmt: skip
    server = HttpServer(env, args=("--workers", str(workers), "--read-only"))
    try:
        assert any("traces on as mcp-e2e, exported over OTLP/HTTP to " in line for line in server.err)
        arguments = {"owner": "acme", "name": "widgets", "limit": 3}
        answer = rpc(server.url, "tools/call", {"name": "issue_list", "arguments": arguments}, traceparent=TRACEPARENT)
        assert answer.status_code == 200 and not answer.json()["result"].get("isError")
        # Stopped well before the batch's own 5 s: the stop sends what waits.
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=GRACE + MARGIN + 5) == 128 + signal.SIGTERM
    finally:
        server.stop()
    spans = collector.spans()
    assert set(collector.paths) == {"/v1/traces"} and {service for service, _ in spans} == {"mcp-e2e"}
    ours = {span.name: span for _, span in spans if span.trace_id.hex() == CLIENT_TRACE}
    message, tool = ours["tools/call issue_list"], ours["execute_tool issue_list"]
    forge_span = ours["GET /repos/{owner}/{repo}/issues"]
    assert message.parent_span_id.hex() == TRACEPARENT.split("-")[2]
    assert tool.parent_span_id == message.span_id and forge_span.parent_span_id == tool.span_id
    assert not any(DEMO_TOKEN.encode() in body for body in collector.bodies)
