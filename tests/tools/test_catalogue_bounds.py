"""A catalogue read from a real socket is bounded in requests and bytes, whatever the upstream claims.

A threading http.server on 127.0.0.1 plays an upstream that ignores `limit`, claims 10⁹ labels and serves big pages
(the issue measured 3.5 GB held after one `issue_list labels=nope` with 4 MiB pages); here the pages are small so
the test is quick, and what is asserted is how much was asked for and read, and the sentence the tool answers with.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea import catalog
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_list
from tests.support.gitea_json import label
from tests.support.results import failed

ROWS = 2_000  # labels a page, whatever `limit` asked: about 300 kB


@dataclass
class Upstream:
    """What the fake was asked and sent."""

    url: str = ""
    count: str | None = "1000000000"  # X-Total-Count claimed
    per_page: int = ROWS
    description: str = ""  # each label's: heavy rows make heavy pages within `limit`
    label_pages: int = 0
    label_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    state = Upstream()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path, query = urlsplit(self.path).path, dict(parse_qsl(urlsplit(self.path).query))
            headers: dict[str, str] = {}
            if path.endswith("/labels") and "/repos/" in path:
                page = int(query.get("page", "1"))
                start = (page - 1) * state.per_page
                rows: Any = [
                    {**label(f"l{i}", i + 1), "description": state.description}
                    for i in range(start, start + state.per_page)
                ]
                headers["Link"] = f'<{state.url}{path}?page={page + 1}>; rel="next"'
                if state.count is not None:
                    headers["X-Total-Count"] = state.count
            else:  # the list itself, the organisation's labels, the search: nothing
                rows = []
                headers["X-Total-Count"] = "0"
            body = json.dumps(rows).encode()
            if path.endswith("/labels") and "/repos/" in path:
                with state.lock:
                    state.label_pages += 1
                    state.label_bytes += len(body)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def deps_for(url: str) -> Deps:
    client = GiteaClient(url, "t", timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())


def list_labels(upstream: Upstream) -> str:
    return failed(issue_list.TOOL.call(deps_for(upstream.url), {"owner": "acme", "name": "widgets", "labels": "nope"}))


def test_a_claimed_billion_labels_costs_one_page(upstream: Upstream) -> None:
    text = list_labels(upstream)
    assert text.startswith("the labels of acme/widgets could not all be read: Gitea counts 1000000000")
    assert "does not exist" not in text
    assert upstream.label_pages == 1


def test_pages_longer_than_asked_end_the_reading_without_a_count(upstream: Upstream) -> None:
    upstream.count = None
    text = list_labels(upstream)
    assert "could not all be read" in text and "more rows than asked" in text and "does not exist" not in text
    assert upstream.label_pages == 1


def test_the_bytes_read_across_pages_are_capped(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages within `limit`, no count, a next page always: the bytes cap ends it (1 MiB here, for speed)."""
    monkeypatch.setattr(catalog, "MAX_BYTES", 2**20, raising=False)
    upstream.count, upstream.per_page, upstream.description = None, 50, "x" * 1000  # about 58 kB a page
    text = list_labels(upstream)
    assert "could not all be read" in text and "exceed 1 MiB" in text and "does not exist" not in text
    page = upstream.label_bytes / upstream.label_pages  # the pages are alike, within a few bytes
    assert 2**20 < upstream.label_bytes < 2**20 + page + 100, "read until one page passed the cap, and no further"
