"""config: print ready-to-paste MCP client configuration. Writes nothing and never reads the token."""

from __future__ import annotations

import argparse
import os
import sys

from gitea_mcp import clients
from gitea_mcp.config import Settings
from gitea_mcp.launch import LAUNCHERS, launch

HELP = "print ready-to-paste configuration for an MCP client (writes nothing)"


def _http_url(raw: str) -> str:
    if not raw.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(f"{raw!r} is not an http:// or https:// URL")
    return clients.remote_endpoint(raw)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("client", choices=list(clients.CLIENTS), metavar="CLIENT", help=", ".join(clients.CLIENTS))
    parser.add_argument(
        "--http",
        metavar="URL",
        type=_http_url,
        help=f"connect to a remote gitea_mcp over streamable HTTP at URL ({clients.MCP_PATH} is added if missing)",
    )
    parser.add_argument(
        "--launcher",
        choices=LAUNCHERS,
        default="installed",
        help="how the client starts the server: 'installed' (default: this copy's command by its full path, or "
        f"this Python with -m gitea_mcp), 'python' ({sys.executable} -m gitea_mcp) or 'uvx' (uvx {clients.DIST}; "
        "uvx --from SOURCE for a copy installed from a directory)",
    )


def setup_from(ns: argparse.Namespace) -> clients.Setup:
    """Values from the flags or environment when set, placeholders otherwise; the token is never read."""
    url = ns.url or os.environ.get("GITEA_URL") or os.environ.get("GITEA_HOST") or clients.PLACEHOLDER_URL
    owners = ns.allowed_owners or os.environ.get("GITEA_ALLOWED_OWNERS") or clients.PLACEHOLDER_OWNERS
    how = launch(ns.launcher)
    return clients.Setup(url.strip(), owners.strip(), how.command, how.args, ns.http)


def run(ns: argparse.Namespace, settings: Settings | None) -> int:
    content, notes = clients.render(ns.client, setup_from(ns))
    print(notes, file=sys.stderr)
    print(content)
    return 0
