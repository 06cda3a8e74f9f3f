"""serve (the default): run the MCP server on stdio."""

from __future__ import annotations

import argparse

from gitea_mcp.config import Settings

HELP = "run the MCP server on stdio (default)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """serve takes only the common settings."""


def run(ns: argparse.Namespace, settings: Settings) -> int:
    from gitea_mcp.server import build_server  # the SDK import is most of start-up: only when serving

    build_server(settings).run("stdio")
    return 0
