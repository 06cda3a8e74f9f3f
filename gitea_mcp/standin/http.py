"""The HTTP side of the stand-in: a threaded HTTP/1.1 server on 127.0.0.1, request recording, faults.

Every answer goes out in one `sendall` (status line, headers and body together) on a socket with
TCP_NODELAY: otherwise Nagle's algorithm and the client's delayed ACK add ~40 ms to each keep-alive
round trip, which would swamp the latency the benchmarks measure.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import socket
import socketserver
import threading
import time
from dataclasses import dataclass, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from gitea_mcp.standin import data
from gitea_mcp.standin.api import Api
from gitea_mcp.standin.core import Request, Response
from gitea_mcp.standin.profile import Profile
from gitea_mcp.standin.store import Store

FaultKind = Literal["status", "delay", "drop", "malformed_json", "html_error", "strip_headers", "commit_then_drop"]
LOOPBACK = "127.0.0.1"
_NGINX_PAGE = (
    "<html>\r\n<head><title>{status} {phrase}</title></head>\r\n<body>\r\n"
    "<center><h1>{status} {phrase}</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
)
_TRUNCATED_JSON = b'[{"id":1,"url":"http://127.0.0.1/api/v1/repos/acme/widgets/issues/1","number":1,"title":"Trunc'


@dataclass
class RecordedRequest:
    """One request as the stand-in received it."""

    method: str
    path: str  # percent-decoded URL path, e.g. "/api/v1/repos/acme/widgets/issues"
    raw_path: str  # the path as received, before decoding
    query: dict[str, list[str]]
    body: Any  # parsed JSON, or None (no body, or not JSON)
    authorized_as: str | None  # the login of a valid token, else None


@dataclass
class Fault:
    """A misbehaviour to apply to the next `times` matching requests."""

    kind: FaultKind
    method: str | None = None  # only this HTTP method (None: any)
    path_contains: str | None = None  # only decoded paths containing this (None: any)
    times: int = 1
    status: int = 500  # for "status" and "html_error"
    retry_after: int | None = None  # for "status": the Retry-After header, in seconds
    seconds: float = 0.0  # for "delay"
    # The request is carried out first, then the fault answers instead (a proxy's 502 page after Gitea committed);
    # "malformed_json" then sends the real answer cut in half, under a Content-Length that matches the cut.
    committed: bool = False

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method.upper() == method) and (
            self.path_contains is None or self.path_contains in path
        )


class StandIn:
    """A Gitea look-alike on 127.0.0.1 with the deterministic seed data; see the package docstring."""

    def __init__(
        self, latency: float = 0.0, profile: Profile | None = None, seed: bool = True, chunked: bool = False
    ) -> None:
        self.latency = latency
        # Bodies framed as Gitea's Go server frames them (`chunked_body`), not under a Content-Length.
        self.chunked = chunked
        self.profile = profile or Profile()
        self.store: Store = data.build() if seed else Store()
        self.api = Api(self.store, self.profile)
        self.url = ""
        self.requests: list[RecordedRequest] = []
        self.connections = 0  # TCP connections accepted: a client that keeps its connections opens few
        self._faults: list[Fault] = []  # private copies; `times` counts down
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------------

    def start(self, host: str = LOOPBACK, port: int = 0) -> str:
        """Serve in a background thread; return the base URL (no trailing slash, no /api/v1)."""
        if host != LOOPBACK:
            raise ValueError(f"the stand-in only listens on {LOOPBACK}, not {host!r}")
        if self._server is not None:
            raise RuntimeError("the stand-in is already running")
        server = _Server((LOOPBACK, port), self)
        self.url = f"http://{LOOPBACK}:{server.server_address[1]}"
        self.api.root = self.url
        self._server = server
        # A short poll interval makes stop() quick, which keeps a fresh stand-in per test cheap.
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.name = f"standin-{server.server_address[1]}"
        self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving and cut every open keep-alive connection."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StandIn:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- recording and faults ------------------------------------------------------------------------------

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def inject(self, fault: Fault) -> None:
        """Queue a fault; the first queued fault matching a request applies to it."""
        with self._lock:
            self._faults.append(replace(fault))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.times > 0 and fault.matches(method, path):
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                    return fault
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # benchmarks open many connections at once

    def __init__(self, address: tuple[str, int], standin: StandIn) -> None:
        self.standin = standin
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (socket.getfqdn), which can stall on a sandbox's DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = LOOPBACK, self.server_address[1]

    def track(self, connection: socket.socket, alive: bool) -> None:
        with self._open_lock:
            (self._open.add if alive else self._open.discard)(connection)
            self.standin.connections += alive

    def close_connections(self) -> None:
        with self._open_lock:
            connections = list(self._open)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, alive=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, alive=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests and benchmarks would drown in access logs

    def do_GET(self) -> None:
        self._serve()

    do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_GET

    # -- one request -----------------------------------------------------------------------------------

    def _serve(self) -> None:
        standin = self.server.standin
        request = self._read()
        path = unquote(request.raw_path)
        standin.record(self._recorded(request, path))
        fault = standin.take_fault(request.method, path)
        if standin.latency > 0:
            time.sleep(standin.latency)
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.seconds)
        if fault is None or fault.kind in ("delay", "strip_headers"):
            response = standin.api.handle(request)
            if fault is not None and fault.kind == "strip_headers":
                _strip_paging(response)
            self._send(response)
        elif fault.kind == "commit_then_drop":
            standin.api.handle(request)
            self._drop()
        elif fault.kind == "drop":
            self._drop()
        elif fault.committed:
            done = standin.api.handle(request)
            cut = replace(done, body=done.body[: len(done.body) // 2])
            self._send(cut if fault.kind == "malformed_json" else _fault_response(fault, standin))
        else:
            self._send(_fault_response(fault, standin))

    def _read(self) -> Request:
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length) if length > 0 else b""
        split = urlsplit(self.path)
        return Request(
            method=self.command,
            raw_path=split.path,
            raw_query=split.query,
            query=parse_qs(split.query, keep_blank_values=True),
            raw_body=raw_body,
            authorization=self.headers.get("Authorization"),
            headers={name.lower(): value for name, value in self.headers.items()},
        )

    def _recorded(self, request: Request, path: str) -> RecordedRequest:
        try:
            body = json.loads(request.raw_body) if request.raw_body.strip() else None
        except (ValueError, UnicodeDecodeError):
            body = None
        login = self.server.standin.api.login_for(request.authorization)
        return RecordedRequest(request.method, path, request.raw_path, request.query, body, login)

    def _drop(self) -> None:
        """Close the connection without a byte of response."""
        self.close_connection = True

    def _send(self, response: Response) -> None:
        body = b"" if self.command == "HEAD" else response.body
        chunked = self.server.standin.chunked and len(response.body) > GO_BUFFER
        lines = [
            f"HTTP/1.1 {response.status} {_phrase(response.status)}",
            f"Date: {email.utils.formatdate(usegmt=True)}",
            "Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(response.body)}",
        ]
        if chunked and body:
            body = chunked_body(body)
        if response.content_type and (response.body or response.status not in (204, 304)):
            lines.append(f"Content-Type: {response.content_type}")  # "": none, as Go's bare statuses and redirects
        lines += [f"{name}: {value}" for name, value in response.headers.items()]
        lines += [f"Set-Cookie: {cookie}" for cookie in response.cookies]
        if self.close_connection:
            lines.append("Connection: close")
        # One write: headers and body leave in a single sendall (see the module docstring).
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


GO_BUFFER = 2048  # bytes Go's net/http holds back before it sends a body in chunks (bufferBeforeChunkingSize)


def chunked_body(body: bytes) -> bytes:
    """`body` as Go's net/http sends a handler's answer larger than its buffer: no Content-Length, chunks of
    GO_BUFFER bytes (seen on Gitea 1.25.4: a 72 KB list came as 36 chunks of 2,048 and one of 222), then the last."""
    chunks = [body[at : at + GO_BUFFER] for at in range(0, len(body), GO_BUFFER)]
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _strip_paging(response: Response) -> None:
    for name in ("X-Total-Count", "Link", "Access-Control-Expose-Headers"):
        response.headers.pop(name, None)


def _fault_response(fault: Fault, standin: StandIn) -> Response:
    if fault.kind == "status":
        response = standin.api.error(fault.status, "")
        if fault.retry_after is not None:
            response.headers["Retry-After"] = str(fault.retry_after)
        return response
    if fault.kind == "html_error":
        page = _NGINX_PAGE.format(status=fault.status, phrase=_phrase(fault.status))
        return Response(fault.status, page.encode(), "text/html", {"Server": "nginx/1.24.0"})
    return Response(200, _TRUNCATED_JSON)  # malformed_json
