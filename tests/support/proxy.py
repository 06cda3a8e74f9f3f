"""A reverse proxy on 127.0.0.1 that misbehaves on purpose, in front of any Gitea (the stand-in or a real one).

Every request is passed on as it came. A request a `Rule` matches is passed on too — so Gitea really does the write —
and then its answer is thrown away and replaced: an nginx 502 or 504 page, the real body cut short under a matching
Content-Length, or an HTML page under 200. `before=True` answers without passing the request on at all.
"""

from __future__ import annotations

import http.client
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal
from urllib.parse import urlsplit

Kind = Literal["page_502", "page_504", "cut_short", "html_200"]
_PAGE = (
    "<html><head><title>{0}</title></head><body><center><h1>{0}</h1></center><hr><center>nginx</center></body></html>"
)


@dataclass
class Rule:
    method: str
    path_end: str  # the request path ends with this (no query)
    kind: Kind
    before: bool = False  # answer without passing the request on: the write never reaches Gitea
    times: int = 1


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    replaced: bool


class Proxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.rules: list[Rule] = []
        self.seen: list[Seen] = []
        self.url = ""
        self._lock = threading.Lock()

    def add(self, rule: Rule) -> None:
        with self._lock:
            self.rules.append(rule)

    def take(self, method: str, path: str) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.times > 0 and rule.method == method and path.split("?")[0].endswith(rule.path_end):
                    rule.times -= 1
                    return rule
        return None

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method, path, body=body or None, headers=headers)
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read()
        finally:
            connection.close()


def replacement(kind: Kind, real: bytes) -> tuple[int, str, bytes]:
    if kind == "page_502":
        return 502, "text/html", _PAGE.format("502 Bad Gateway").encode()
    if kind == "page_504":
        return 504, "text/html", _PAGE.format("504 Gateway Time-out").encode()
    if kind == "cut_short":
        return 201, "application/json", real[: len(real) // 2]
    return 200, "text/html", _PAGE.format("Welcome").encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        proxy = self.server.proxy
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        rule = proxy.take(self.command, self.path)
        with proxy._lock:
            proxy.seen.append(Seen(self.command, self.path, rule is not None))
        if rule is not None and rule.before:
            status, kind, payload = replacement(rule.kind, b"")
            self._answer(status, {"Content-Type": kind}, payload)
            return
        status, answer_headers, payload = proxy.forward(self.command, self.path, headers, body)
        if rule is not None:
            status, kind, payload = replacement(rule.kind, payload)
            answer_headers = {"Content-Type": kind}
        self._answer(status, answer_headers, payload)

    do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

    def _answer(self, status: int, headers: dict[str, str], payload: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, proxy: Proxy) -> None:
        self.proxy = proxy
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks the host name up (socket.getfqdn), which can stall on a sandbox's DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]


@contextmanager
def misbehaving_proxy(upstream: str) -> Iterator[Proxy]:
    proxy = Proxy(upstream)
    server = _Server(proxy)
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
