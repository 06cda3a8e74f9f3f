"""Command line: flags and environment → Settings, then a subcommand (serve is the default).

Heavy imports (the MCP SDK) happen inside the subcommands so `--help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from pydantic import SecretStr, ValidationError

from gitea_mcp import __version__
from gitea_mcp.config import ConfigError, Settings, parse_bool, parse_log_level, parse_owner_list

PROG = "gitea-issues-mcp"
# Subcommands whose module exists under gitea_mcp/commands/; serve is the default.
COMMANDS = ("serve", "demo", "check", "config", "call")
# Commands that work without a configured Gitea (they bring their own or need none).
NO_SETTINGS: frozenset[str] = frozenset({"demo", "config"})


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"gitea_mcp.commands.{name}")


def _settings_arguments() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("settings (each flag can also come from the environment variable named)")
    group.add_argument("--url", help="Gitea base URL, e.g. https://gitea.example.com [GITEA_URL or GITEA_HOST]")
    group.add_argument("--token", help="access token; prefer the environment [GITEA_TOKEN or GITEA_ACCESS_TOKEN]")
    group.add_argument(
        "--allowed-owners", help="comma-separated owners agents may use, '*' for all [GITEA_ALLOWED_OWNERS]"
    )
    group.add_argument("--read-only", action="store_true", default=None, help="offer no write tools [GITEA_READ_ONLY]")
    group.add_argument(
        "--timeout", type=float, help="seconds to wait for Gitea per request (default 30) [GITEA_TIMEOUT]"
    )
    group.add_argument(
        "--log-level", help="DEBUG, INFO, WARNING (default) or ERROR; logs go to stderr [GITEA_LOG_LEVEL]"
    )
    group.add_argument("--ca-bundle", help="CA certificates file for a private CA [GITEA_CA_BUNDLE]")
    group.add_argument(
        "--insecure", action="store_true", default=None, help="do not verify TLS (test instances only) [GITEA_INSECURE]"
    )
    http = common.add_argument_group("streamable HTTP transport")
    http.add_argument("--transport", choices=["stdio", "http"], help="stdio (default) or http [GITEA_MCP_TRANSPORT]")
    http.add_argument("--host", help="address to listen on (default 127.0.0.1) [GITEA_MCP_HOST]")
    http.add_argument("--port", type=int, help="port to listen on (default 8000) [GITEA_MCP_PORT]")
    http.add_argument(
        "--allowed-hosts", help="Host headers to accept, e.g. mcp.example.com:*; '*' = any [GITEA_MCP_ALLOWED_HOSTS]"
    )
    http.add_argument(
        "--http-secret",
        help="secret that lets a request use GITEA_TOKEN; prefer the environment [GITEA_MCP_HTTP_SECRET]",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _settings_arguments()
    # The settings appear at the top level too, so `--help` lists every one with its variable.
    parser = argparse.ArgumentParser(
        prog=PROG,
        parents=[common],
        description="MCP server for the issues of a Gitea, Forgejo or Codeberg instance.",
        epilog=f"Run '{PROG} COMMAND --help' for a command's own options. Without a command: serve.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = _command(name)
        sub = commands.add_parser(name, parents=[common], help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
    return parser


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    if not args or (args[0] not in COMMANDS and args[0] not in ("-h", "--help", "--version")):
        args.insert(0, "serve")
    return build_parser().parse_args(args)


def _seconds(raw: str | None) -> float:
    try:
        return float(raw) if raw else 30.0
    except ValueError:
        raise ConfigError(f"GITEA_TIMEOUT={raw!r} is not a number of seconds (e.g. GITEA_TIMEOUT=30)") from None


def _port(raw: str | None) -> int:
    if not raw:
        return 8000
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ConfigError(f"GITEA_MCP_PORT={raw!r} is not a port number (1-65535)")
    return int(raw)


def settings_from(ns: argparse.Namespace) -> Settings:
    url = ns.url or _env("GITEA_URL", "GITEA_HOST")
    if not url:
        raise ConfigError("GITEA_URL is not set: point it at your Gitea, e.g. GITEA_URL=https://gitea.example.com")
    read_only = ns.read_only if ns.read_only is not None else parse_bool(_env("GITEA_READ_ONLY"), "GITEA_READ_ONLY")
    timeout = ns.timeout if ns.timeout is not None else _seconds(_env("GITEA_TIMEOUT"))
    token = ns.token or _env("GITEA_TOKEN", "GITEA_ACCESS_TOKEN")
    secret = ns.http_secret or _env("GITEA_MCP_HTTP_SECRET")
    hosts = ns.allowed_hosts or _env("GITEA_MCP_ALLOWED_HOSTS") or ""
    try:
        return Settings(
            url=url,
            token=SecretStr(token) if token else None,
            allowed_owners=parse_owner_list(ns.allowed_owners or _env("GITEA_ALLOWED_OWNERS")),
            read_only=read_only,
            timeout=timeout,
            ca_bundle=ns.ca_bundle or _env("GITEA_CA_BUNDLE"),
            insecure=ns.insecure if ns.insecure is not None else parse_bool(_env("GITEA_INSECURE"), "GITEA_INSECURE"),
            transport=ns.transport or _env("GITEA_MCP_TRANSPORT") or "stdio",
            host=ns.host or _env("GITEA_MCP_HOST") or "127.0.0.1",
            port=ns.port if ns.port is not None else _port(_env("GITEA_MCP_PORT")),
            allowed_hosts=tuple(h.strip() for h in hosts.split(",") if h.strip()),
            http_secret=SecretStr(secret) if secret else None,
        )
    except ValidationError as exc:  # show only our messages, never the input (it may hold the token)
        messages = (str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
        raise ConfigError("; ".join(messages)) from None


def configure_logging(level: str | None) -> None:
    # stdout is the MCP protocol channel: every log line goes to stderr.
    name = parse_log_level(level or _env("GITEA_LOG_LEVEL"))
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, name), format="%(levelname)s %(name)s: %(message)s")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `gitea-issues-mcp config vscode | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return 0


def _main(argv: Sequence[str] | None) -> int:
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    module = _command(ns.command)
    try:
        configure_logging(ns.log_level)
        settings = None if ns.command in NO_SETTINGS else settings_from(ns)
        code: int = module.run(ns, settings)
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    return code
