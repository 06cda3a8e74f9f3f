"""Command line: flags and environment → Settings, then a subcommand (serve is the default).

Heavy imports (the MCP SDK) happen inside the subcommands so `--help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType, ModuleType
from typing import Any

from pydantic import SecretStr, ValidationError

from gitea_mcp import __version__
from gitea_mcp.config import ConfigError, Settings, parse_bool, parse_log_level, parse_owner_list
from gitea_mcp.errors import shown

PROG = "gitea-issues-mcp"
# Subcommands whose module exists under gitea_mcp/commands/; serve is the default.
COMMANDS = ("serve", "demo", "check", "config", "call")
DEFAULT_COMMAND = "serve"
_HELP_OR_VERSION = frozenset({"-h", "--help", "--version"})

# Exit codes, the same for every command.
OK = 0
FAILED = 1  # the work was done and failed: a tool's error result, a check that found a problem
USAGE = 2  # the command line or the settings are wrong; nothing was sent to Gitea
INTERRUPTED = 128 + signal.SIGINT  # 130: Ctrl-C, as shells report it
TERMINATED = 128 + signal.SIGTERM  # 143: a stop request (SIGTERM)
EXIT_CODES = "0 ok, 1 failed (a tool error, check not ready), 2 usage or settings error, 130 Ctrl-C, 143 SIGTERM"
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


def _add_settings(parser: argparse.ArgumentParser, default: Any) -> None:
    """The settings every command takes. `default` is None on the top-level parser and SUPPRESS on each command's:
    argparse copies every attribute of a command's namespace over the top level's, so a command-level default
    would erase a flag given before the command (`--url X check`)."""
    group = parser.add_argument_group("settings (each flag can also come from the environment variable named)")
    group.add_argument(
        "--url", default=default, help="Gitea base URL, e.g. https://gitea.example.com [GITEA_URL or GITEA_HOST]"
    )
    group.add_argument(
        "--token", default=default, help="access token; prefer the environment [GITEA_TOKEN or GITEA_ACCESS_TOKEN]"
    )
    group.add_argument(
        "--allowed-owners",
        default=default,
        help="comma-separated owners agents may use, '*' for all [GITEA_ALLOWED_OWNERS]",
    )
    group.add_argument(
        "--read-only", action="store_true", default=default, help="offer no write tools [GITEA_READ_ONLY]"
    )
    group.add_argument(
        "--timeout",
        type=float,
        default=default,
        help="seconds to wait for Gitea per request (default 30) [GITEA_TIMEOUT]",
    )
    group.add_argument(
        "--log-level",
        default=default,
        help="DEBUG, INFO, WARNING (default) or ERROR; logs go to stderr [GITEA_LOG_LEVEL]",
    )
    group.add_argument("--ca-bundle", default=default, help="CA certificates file for a private CA [GITEA_CA_BUNDLE]")
    group.add_argument(
        "--insecure",
        action="store_true",
        default=default,
        help="do not verify TLS (test instances only) [GITEA_INSECURE]",
    )
    http = parser.add_argument_group("streamable HTTP transport")
    http.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default=default,
        help="stdio (default) or http [GITEA_MCP_TRANSPORT]",
    )
    http.add_argument("--host", default=default, help="address to listen on (default 127.0.0.1) [GITEA_MCP_HOST]")
    http.add_argument("--port", type=int, default=default, help="port to listen on (default 8000) [GITEA_MCP_PORT]")
    http.add_argument(
        "--allowed-hosts",
        default=default,
        help="Host headers to accept, e.g. mcp.example.com:*; '*' = any [GITEA_MCP_ALLOWED_HOSTS]",
    )
    http.add_argument(
        "--http-secret",
        default=default,
        help="secret that lets a request use GITEA_TOKEN; prefer the environment [GITEA_MCP_HTTP_SECRET]",
    )


def build_parser() -> argparse.ArgumentParser:
    # The settings appear at the top level too, so `--help` lists every one with its variable.
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MCP server for the issues of a Gitea, Forgejo or Codeberg instance.",
        epilog=f"Run '{PROG} COMMAND --help' for a command's own options. Without a command: serve. "
        f"Exit codes: {EXIT_CODES}.",
    )
    _add_settings(parser, default=None)
    _add_version(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = _command(name)
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        _add_settings(sub, default=argparse.SUPPRESS)
        _add_version(sub)
        module.add_arguments(sub)
    return parser


def _add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Settings before or after the command alike; no command means serve; an unknown one is named (exit 2)."""
    parser = build_parser()
    args = list(argv)
    at = _command_index(args, _value_flags(parser))
    if at is None:
        if not _HELP_OR_VERSION.intersection(args):  # `--help` alone is the top level's help, not serve's
            args.insert(0, DEFAULT_COMMAND)
    elif args[at] not in COMMANDS:
        parser.exit(USAGE, f"{PROG}: {no_command(args[at])}\n")
    return parser.parse_args(args)


def no_command(word: str) -> str:
    close = difflib.get_close_matches(word, COMMANDS, n=1)
    guess = f"; did you mean {close[0]}?" if close else "."
    return f"no command {word!r}{guess} Commands: {', '.join(COMMANDS)}."


def _value_flags(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Each top-level option and whether it takes a value (argparse keeps no public list of them)."""
    return {flag: action.nargs != 0 for action in parser._actions for flag in action.option_strings}


def _command_index(args: list[str], flags: dict[str, bool]) -> int | None:
    """Where the command is: the first word that is neither an option nor an option's value."""
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            return index + 1 if index + 1 < len(args) else None
        elif arg.startswith("-") and arg != "-":
            skip = "=" not in arg and _takes_value(arg, flags)
        else:
            return index
    return None


def _takes_value(arg: str, flags: dict[str, bool]) -> bool:
    if arg in flags:
        return flags[arg]
    # argparse accepts any unambiguous prefix of a long option (`--allowed-o acme`): read it the same way.
    matches = [flag for flag in flags if flag.startswith("--") and flag.startswith(arg)]
    return len(matches) == 1 and flags[matches[0]]


def _seconds(raw: str | None) -> float:
    try:
        return float(raw) if raw else 30.0
    except ValueError:
        raise ConfigError(f"GITEA_TIMEOUT={shown(raw)} is not a number of seconds (e.g. GITEA_TIMEOUT=30)") from None


def _port(raw: str | None) -> int:
    if not raw:
        return 8000
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ConfigError(f"GITEA_MCP_PORT={shown(raw)} is not a port number (1-65535)")
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
    if argv is None:  # the program itself; a test calling main([...]) keeps its own process's signal handlers
        _stop_quietly_on_signals()
    try:
        return _main(argv)
    except BrokenPipeError:
        # `gitea-issues-mcp config vscode | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return OK
    except KeyboardInterrupt:  # Ctrl-C where no handler of ours was installed
        return INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    module = _command(ns.command)
    try:
        configure_logging(ns.log_level)
        settings = None if ns.command in NO_SETTINGS else settings_from(ns)
        code: int = module.run(ns, settings)
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return USAGE
    return code


def _stop_quietly_on_signals() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stop)


def _stop(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM: end now, without a traceback, with 128 + the signal's number.

    Unwinding with an exception cannot be relied on: the stdio server reads stdin in a thread blocked in read(),
    which nothing wakes, so the process would wait for the client's next line (and then print a traceback). The
    HTTP server still shuts down gracefully first: uvicorn holds these signals while it serves and raises them
    again, here, once it has stopped.
    """
    for stream in (sys.stdout, sys.stderr):  # what a command already printed must not be lost
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(128 + signum)
