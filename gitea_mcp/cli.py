"""Command line: flags and environment → Settings, then a subcommand (serve is the default).

Heavy imports (the MCP SDK) happen inside the subcommands so `--help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from pydantic import SecretStr, ValidationError

from gitea_mcp import __version__
from gitea_mcp.config import ConfigError, Settings, parse_bool, parse_owner_list

PROG = "gitea-issues-mcp"


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MCP server for the issues of a Gitea, Forgejo or Codeberg instance (stdio by default).",
        epilog="Every flag can also be set by the environment variable named in its help.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("command", nargs="?", default="serve", choices=["serve"], help="what to run (default: serve)")
    parser.add_argument("--url", help="Gitea base URL, e.g. https://gitea.example.com [GITEA_URL or GITEA_HOST]")
    parser.add_argument("--token", help="access token; prefer the environment [GITEA_TOKEN or GITEA_ACCESS_TOKEN]")
    parser.add_argument(
        "--allowed-owners", help="comma-separated owners agents may use, or '*' for all [GITEA_ALLOWED_OWNERS]"
    )
    parser.add_argument(
        "--read-only", action="store_true", default=None, help="do not offer the write tools [GITEA_READ_ONLY]"
    )
    parser.add_argument(
        "--timeout", type=float, help="seconds to wait for Gitea per request (default 30) [GITEA_TIMEOUT]"
    )
    parser.add_argument(
        "--log-level", default=None, help="DEBUG, INFO, WARNING (default) or ERROR; logs go to stderr [GITEA_LOG_LEVEL]"
    )
    return parser


def _seconds(raw: str | None) -> float:
    try:
        return float(raw) if raw else 30.0
    except ValueError:
        raise ConfigError(f"GITEA_TIMEOUT={raw!r} is not a number of seconds (e.g. GITEA_TIMEOUT=30)") from None


def settings_from(ns: argparse.Namespace) -> Settings:
    url = ns.url or _env("GITEA_URL", "GITEA_HOST")
    if not url:
        raise ConfigError("GITEA_URL is not set: point it at your Gitea, e.g. GITEA_URL=https://gitea.example.com")
    read_only = ns.read_only if ns.read_only is not None else parse_bool(_env("GITEA_READ_ONLY"))
    timeout = ns.timeout if ns.timeout is not None else _seconds(_env("GITEA_TIMEOUT"))
    try:
        return Settings(
            url=url,
            token=SecretStr(token) if (token := ns.token or _env("GITEA_TOKEN", "GITEA_ACCESS_TOKEN")) else None,
            allowed_owners=parse_owner_list(ns.allowed_owners or _env("GITEA_ALLOWED_OWNERS")),
            read_only=read_only,
            timeout=timeout,
        )
    except ValidationError as exc:  # show only our messages, never the input (it may hold the token)
        messages = (str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
        raise ConfigError("; ".join(messages)) from None


def configure_logging(level: str | None) -> None:
    # stdout is the MCP protocol channel: every log line goes to stderr.
    name = (level or _env("GITEA_LOG_LEVEL") or "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr, level=getattr(logging, name, logging.WARNING), format="%(levelname)s %(name)s: %(message)s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ns = build_parser().parse_args(argv)
    configure_logging(ns.log_level)
    try:
        settings = settings_from(ns)
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    from gitea_mcp.server import build_server

    build_server(settings).run("stdio")
    return 0
