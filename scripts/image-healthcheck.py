#!/usr/bin/env python3
"""The image's HEALTHCHECK: GET /healthz where the server listens; exit 0 on a 200, 1 otherwise.

Python's standard library only (the image has no curl). It reads the variables the server reads, GITEA_MCP_HOST
and GITEA_MCP_PORT, so a port moved with `-e GITEA_MCP_PORT=9000` is followed; a wildcard address (the image
listens on 0.0.0.0) is probed on loopback. Proxy variables are ignored on purpose: an HTTPS_PROXY set for reaching
Gitea must not carry the probe out of the container.
"""

from __future__ import annotations

import os
import sys
import urllib.request

WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def health_url() -> str:
    host = os.environ.get("GITEA_MCP_HOST", "").strip().strip("[]")
    host = WILDCARDS.get(host, host)
    if ":" in host:
        host = f"[{host}]"
    port = os.environ.get("GITEA_MCP_PORT", "").strip() or "8000"
    return f"http://{host}:{port}/healthz"


def main() -> int:
    url = health_url()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=4) as answer:
            status = answer.status
    except OSError as exc:  # refused, timed out, or an HTTP error status (HTTPError is an OSError)
        print(f"unhealthy: GET {url}: {exc}", file=sys.stderr)
        return 1
    return 0 if status == 200 else 1


if __name__ == "__main__":
    raise SystemExit(main())
