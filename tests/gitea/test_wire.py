"""The client sends each API request to the session's adapter itself (`_Shared.send`, without Session.request's
per-call merging): the bytes on the wire must stay exactly those Session.request sends with the same arguments."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from gitea_mcp.gitea.client import GiteaClient, RetryPolicy, _query

_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


class Recorder:
    """A keep-alive server on 127.0.0.1 that keeps every request's bytes and answers `{}`."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.received: list[bytes] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            while head := b"".join(iter(reader.readline, b"\r\n")):
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)  # fmt: skip
                self.received.append(head + b"\r\n" + reader.read(length))
                conn.sendall(_ANSWER)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    yield server
    server.close()


QUERY = {"state": "open", "q": "a b&é=/+", "page": 1}
CASES: list[tuple[str, str, list[str | int], dict[str, Any] | None, Any]] = [
    ("a read with a query", "GET", ["repos", "acme", "wid gets", "issues"], QUERY, None),
    ("a read without one", "GET", ["version"], None, None),
    ("a write with a JSON body", "POST", ["repos", "acme", "w", "issues"], None, {"title": 'Hé "x"', "labels": [1]}),
]


@pytest.mark.parametrize(("what", "method", "segments", "params", "body"), CASES, ids=[c[0] for c in CASES])
def test_the_request_on_the_wire_is_what_session_request_sends(
    recorder: Recorder, what: str, method: str, segments: list[str | int], params: dict[str, Any] | None, body: Any
) -> None:
    client = GiteaClient(recorder.url, "tok", timeout=5, retry=RetryPolicy(attempts=1))
    if method == "GET":
        client.get(segments, params)
    else:
        client.write(method, segments, body)
    # The reference: the client's own session, asked through Session.request as the client asked before.
    session = client._shared.session()
    path = client._path(segments)
    session.request(method, f"{recorder.url}/api/v1{path}", params=params, json=body, headers=client._headers(),
                    timeout=5, allow_redirects=False, stream=True).close()  # fmt: skip
    ours, reference = recorder.received
    assert ours == reference
    assert b"Authorization: token tok\r\n" in ours and b"User-Agent: gitea-issues-mcp/" in ours


@pytest.mark.parametrize(
    ("params", "query"),
    [
        ({"q": "a b", "page": 2}, "q=a+b&page=2"),
        ({"labels": "bug,good first"}, "labels=bug%2Cgood+first"),
        ({}, None),
        (None, None),
    ],
)
def test_the_query_is_encoded_as_requests_encodes_a_mapping(params: dict[str, Any] | None, query: str | None) -> None:
    assert _query(params) == query
