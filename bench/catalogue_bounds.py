"""Memory of the label catalogue against a misbehaving upstream, and of the catalogue cache (issue 20, items 4–5).

    python bench/catalogue_bounds.py fetch   # one `issue_list labels=nope` against an upstream that ignores
                                             # `limit`, claims X-Total-Count 10⁹ and serves 4 MiB pages
    python bench/catalogue_bounds.py fetch-uncounted   # the same without X-Total-Count (Link only)
    python bench/catalogue_bounds.py cache   # 3,000 (token, repository) catalogues of 50 labels, then expiry

The fake upstream is a threading http.server on 127.0.0.1 in a child process, so the RSS figures are the client's
own. A measurement, not a test: it prints figures and never fails.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

PAGE_BYTES = 4 * 2**20


def rss_kib(field: str = "VmRSS") -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def label(n: int, description: str = "") -> dict[str, Any]:
    return {
        "id": n + 1,
        "name": f"label-{n}",
        "exclusive": False,
        "is_archived": False,
        "color": "ee0701",
        "description": description,
        "url": f"http://127.0.0.1/api/v1/repos/acme/widgets/labels/{n + 1}",
    }


def serve(port: multiprocessing.Queue[int], mode: str) -> None:
    # One 4 MiB page of labels, built once: every page the same size, each with new ids.
    per_page = PAGE_BYTES // len(json.dumps(label(10**6)))
    realistic = json.dumps([label(n, "Something is not working as documented") for n in range(50)]).encode()
    requests = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path, query = urlsplit(self.path).path, dict(parse_qsl(urlsplit(self.path).query))
            headers = {"X-Total-Count": "0"}
            body = b"[]"
            if path.endswith("/labels") and "/repos/" in path:
                requests[0] += 1
                if mode.startswith("fetch"):
                    start = (int(query.get("page", "1")) - 1) * per_page  # `limit` ignored
                    body = json.dumps([label(n) for n in range(start, start + per_page)]).encode()
                    headers = {"X-Total-Count": "1000000000", "Link": f'<{path}?page=2>; rel="next"'}
                    if mode == "fetch-uncounted":
                        del headers["X-Total-Count"]
                else:
                    body, headers = realistic, {"X-Total-Count": "50"}
            if path.endswith("/requests"):
                body = str(requests[0]).encode()
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
    port.put(server.server_address[1])
    server.serve_forever()


def main(mode: str) -> None:
    queue: multiprocessing.Queue[int] = multiprocessing.Queue()
    upstream = multiprocessing.Process(target=serve, args=(queue, mode), daemon=True)
    upstream.start()
    url = f"http://127.0.0.1:{queue.get(timeout=10)}"

    import requests

    from gitea_mcp.domain.policy import Policy
    from gitea_mcp.gitea.catalog import Catalog
    from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
    from gitea_mcp.toolkit.base import Deps
    from gitea_mcp.tools import issue_list

    client = GiteaClient(url, "t", timeout=30, retry=RetryPolicy(attempts=1))
    cache = Catalog()
    before = rss_kib()
    if mode.startswith("fetch"):
        started = time.monotonic()
        result = issue_list.TOOL.call(
            Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=cache),
            {"owner": "acme", "name": "widgets", "labels": "nope"},
        )
        took = time.monotonic() - started
        text = result.content[0].text  # type: ignore[union-attr]
        gc.collect()
        print(f"answer: {text[:160]}")
        print(f"label requests: {requests.get(url + '/requests', timeout=5).text}, {took:.1f} s")
        print(
            f"RSS before {before / 1024:.0f} MiB, peak {rss_kib('VmHWM') / 1024:.0f} MiB, "
            f"after {rss_kib() / 1024:.0f} MiB"
        )
        return
    for n in range(3000):
        cache.labels(client.with_token(f"token-{n}"), "acme", f"repo-{n % 300}")
    gc.collect()
    filled = rss_kib()
    print(
        f"3,000 catalogues: RSS before {before / 1024:.0f} MiB, after {filled / 1024:.0f} MiB "
        f"(+{(filled - before) / 1024:.0f} MiB), entries held {len(cache._entries)}"
    )
    # Every entry read so far is made to have expired (as after the 60 s lifetime), without waiting.
    cache._entries = type(cache._entries)((k, (0.0, *v[1:])) for k, v in cache._entries.items())
    cache.labels(client.with_token("token-new"), "acme", "repo-new")
    gc.collect()
    print(f"after expiry and one more: entries held {len(cache._entries)}, RSS {rss_kib() / 1024:.0f} MiB")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fetch")
