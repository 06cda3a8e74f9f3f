"""`python -m gitea_mcp.standin [--port N] [--latency S] [--profile NAME] [--chunked]`: serve the stand-in until Ctrl-C.

The base URL and the demo tokens go to stderr, so stdout stays free for whatever pipes into it. Documented for
users in README.md (Develop).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from gitea_mcp.standin.data import TOKENS
from gitea_mcp.standin.http import StandIn
from gitea_mcp.standin.profile import PROFILES


def parser() -> argparse.ArgumentParser:
    """The command's flags (README.md, Develop, documents each)."""
    parser = argparse.ArgumentParser(prog="python -m gitea_mcp.standin", description="Serve the Gitea stand-in.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="gitea-1.25", help="the release to answer as")
    parser.add_argument("--chunked", action="store_true", help="bodies over 2 KiB in chunks, as Gitea's Go server")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Started as a shell's background job (`… &`), the process inherits SIGINT ignored and Python keeps that:
    # Ctrl-C (or `kill -INT`) would then never stop it. Ctrl-C is how it stops, so take SIGINT back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    standin = StandIn(latency=args.latency, profile=PROFILES[args.profile], chunked=args.chunked)
    url = standin.start(port=args.port)
    try:  # from the banner on: a Ctrl-C right after the last line is read (and before the wait) still stops cleanly
        banner = f"Gitea stand-in ({args.profile}) serving at {url} (API: {url}/api/v1); Ctrl-C stops it."
        print(banner, file=sys.stderr)
        for who, token in TOKENS.items():
            print(f"  token for {who}: {token}", file=sys.stderr)
        threading.Event().wait()
    except KeyboardInterrupt:
        print("stopping", file=sys.stderr)
    finally:
        standin.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
