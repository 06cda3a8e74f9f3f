"""serve (the default): run the MCP server on stdio, or on streamable HTTP for many users."""

from __future__ import annotations

import argparse

from gitea_mcp.config import Settings

HELP = "run the MCP server (stdio by default; --transport http for streamable HTTP)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """serve takes only the common settings (transport ones included)."""


def run(ns: argparse.Namespace, settings: Settings) -> int:
    from gitea_mcp.server import build_server  # the SDK import is most of start-up: only when serving

    server = build_server(settings)
    if settings.transport == "http":
        from gitea_mcp.http import serve

        serve(server, settings)
    else:
        server.run("stdio")
    return 0
