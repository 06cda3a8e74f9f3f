"""Command line: flags and environment → Settings, then a subcommand (serve is the default).

Heavy imports (the MCP SDK) happen inside the subcommands so `--help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import FrameType, ModuleType
from typing import Any, NoReturn
from urllib.parse import parse_qs, urlsplit

from pydantic import SecretStr, ValidationError

from gitea_mcp import __version__
from gitea_mcp.cli import foreign
from gitea_mcp.domain.toolsets import TOOLSETS
from gitea_mcp.redaction import shown
from gitea_mcp.settings import (
    COUNT_BOUNDS,
    SIGNIN_SETTINGS,
    TOOL_CALLS,
    CannotListen,
    ConfigError,
    Settings,
    parse_bool,
    parse_count,
    parse_log_level,
    parse_owner_list,
    parse_toolsets,
    parse_trusted,
    placeholder_problem,
)
from gitea_mcp.toolkit.registry import serves_nothing

PROG = "gitea-issues-mcp"
# Subcommands whose module exists under gitea_mcp/cli/; serve is the default.
COMMANDS = ("serve", "demo", "check", "config", "call", "signin-setup")
DEFAULT_COMMAND = "serve"
# The settings' defaults, declared once, in Settings: the flags' help and the reading of flags both say these.
_DEFAULT: dict[str, Any] = {name: field.default for name, field in Settings.model_fields.items()}
_HELP_OR_VERSION = frozenset({"-h", "--help", "--version"})

# Exit codes, the same for every command.
OK = 0
FAILED = 1  # the work was done and failed: a tool's error result, a check that found a problem
USAGE = 2  # the command line or the settings are wrong; nothing was sent to Gitea
CANNOT_LISTEN = 3  # HTTP mode could not listen where it was told to (the port is in use, say)
INTERRUPTED = 128 + signal.SIGINT  # 130: Ctrl-C, as shells report it
TERMINATED = 128 + signal.SIGTERM  # 143: a stop request (SIGTERM)
EXIT_CODES = (
    "0 ok, 1 failed (a tool error, check not ready), 2 usage or settings error, 3 HTTP cannot listen (port in use), "
    "130 Ctrl-C, 143 SIGTERM"
)
# Commands that work without a configured Gitea (they bring their own or need none).
NO_SETTINGS: frozenset[str] = frozenset({"demo", "config", "signin-setup"})


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"gitea_mcp.cli.{name.replace('-', '_')}")  # signin-setup: cli/signin_setup.py


@dataclass(frozen=True)
class Setting:
    """One setting: its flag, the environment variables it can come from (first wins) and its help. A secret's
    flag names a file holding it (`--token-file`): a value on the command line is readable by every user of the
    machine (ps, /proc/PID/cmdline), so the secret itself comes from the file or the environment only."""

    flag: str  # the setting's name on the command line (a secret's: the one refused, `--token`)
    env: tuple[str, ...]
    help: str
    switch: bool = False  # a flag without a value (`--read-only`)
    metavar: str | None = None
    secret: bool = False
    # Other Gitea/Forgejo MCP servers' names for the same setting (docs/migrating.md), read after `env`: a move from
    # one of them keeps every setting it had, and one of theirs set beside ours to another value stops the start.
    aliases: tuple[str, ...] = ()
    # Their variables naming a file that holds the secret (`GITEA_ACCESS_TOKEN_FILE`), read after the aliases.
    alias_files: tuple[str, ...] = ()

    @property
    def typed(self) -> str:
        """The flag as it is typed: a secret's names the file holding it."""
        return f"{self.flag}-file" if self.secret else self.flag

    @property
    def name(self) -> str:
        """The setting's attribute in a namespace given the value itself (demo hands the stand-in's token so)."""
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def dest(self) -> str:
        return self.typed.removeprefix("--").replace("-", "_")


CONNECTION: tuple[Setting, ...] = (
    Setting(
        "--url",
        ("GITEA_URL", "GITEA_HOST"),
        "Gitea base URL, e.g. https://gitea.example.com",
        metavar="URL",
        aliases=("FORGEJO_URL", "FORGEJO_BASE_URL"),
    ),
    Setting(
        "--token",
        ("GITEA_TOKEN", "GITEA_ACCESS_TOKEN"),
        "file holding the access token",
        metavar="FILE",
        secret=True,
        aliases=("FORGEJO_ACCESS_TOKEN", "FORGEJO_TOKEN"),
        alias_files=("GITEA_ACCESS_TOKEN_FILE",),
    ),
    Setting(
        "--allowed-owners",
        ("GITEA_ALLOWED_OWNERS",),
        "comma-separated owners agents may use, '*' for all",
        metavar="OWNERS",
    ),
    Setting("--read-only", ("GITEA_READ_ONLY",), "offer no write tools", switch=True, aliases=("GITEA_READONLY",)),
    Setting(
        "--toolsets",
        ("GITEA_TOOLSETS",),
        f"comma-separated toolsets to serve, of {', '.join(TOOLSETS)} (default all)",
        metavar="TOOLSETS",
    ),
    Setting(
        "--timeout",
        ("GITEA_TIMEOUT",),
        f"seconds to wait for Gitea per request (default {_DEFAULT['timeout']:g})",
        metavar="SECONDS",
    ),
    Setting(
        "--log-level",
        ("GITEA_LOG_LEVEL",),
        "DEBUG, INFO, WARNING (default), ERROR or CRITICAL; logs go to stderr",
        metavar="LEVEL",
    ),
    Setting("--ca-bundle", ("GITEA_CA_BUNDLE",), "CA certificates file for a private CA", metavar="FILE"),
    Setting("--insecure", ("GITEA_INSECURE",), "do not verify TLS (test instances only)", switch=True),
    Setting(
        "--lockdown",
        ("GITEA_LOCKDOWN",),
        "withhold bodies and comments by users without write access to the repository (public forges)",
        switch=True,
    ),
    Setting(
        "--lockdown-trusted",
        ("GITEA_LOCKDOWN_TRUSTED",),
        "comma-separated logins lockdown trusts besides the repository's writers",
        metavar="LOGINS",
    ),
)
HTTP: tuple[Setting, ...] = (
    Setting(
        "--transport",
        ("GITEA_MCP_TRANSPORT",),
        "stdio (default) or http",
        metavar="{stdio,http}",
        aliases=("MCP_MODE",),
    ),
    Setting("--host", ("GITEA_MCP_HOST",), f"address to listen on (default {_DEFAULT['host']})", metavar="HOST"),
    Setting(
        "--port",
        ("GITEA_MCP_PORT",),
        f"port to listen on (default {_DEFAULT['port']}; 0: any free port)",
        metavar="PORT",
    ),
    Setting(
        "--allowed-hosts",
        ("GITEA_MCP_ALLOWED_HOSTS",),
        "Host headers to accept, e.g. mcp.example.com:*; '*' = any",
        metavar="HOSTS",
    ),
    Setting(
        "--http-secret",
        ("GITEA_MCP_HTTP_SECRET",),
        "file holding the secret that lets a request use GITEA_TOKEN",
        metavar="FILE",
        secret=True,
    ),
    Setting(
        "--calls-per-token",
        ("GITEA_MCP_CALLS_PER_TOKEN",),
        f"tool calls one token may have running at once, of the server's {TOOL_CALLS} (default "
        f"{_DEFAULT['calls_per_token']})",
        metavar="N",
    ),
    Setting(
        "--workers",
        ("GITEA_MCP_WORKERS",),
        "HTTP worker processes sharing the port, the limits divided among them (default 1; more than 1 needs "
        "GITEA_MCP_REDIS_URL unless read-only without sign-in)",
        metavar="N",
    ),
    Setting(
        "--redis-url",
        ("GITEA_MCP_REDIS_URL",),
        "Redis or Valkey (redis://, rediss://, unix://) holding the write guard replicas share; one with a password "
        "only from the environment",
        metavar="URL",
    ),
    Setting(
        "--max-connections",
        ("GITEA_MCP_MAX_CONNECTIONS",),
        "connections open at once (default: what the open-files limit allows, at most 1000)",
        metavar="N",
    ),
    Setting(
        "--max-requests",
        ("GITEA_MCP_MAX_REQUESTS",),
        f"MCP requests handled at once; more get 503 (default {_DEFAULT['max_requests']})",
        metavar="N",
    ),
    Setting(
        "--max-body",
        ("GITEA_MCP_MAX_BODY",),
        f"bytes of one request's body; more get 413 (default {_DEFAULT['max_body']})",
        metavar="BYTES",
    ),
    Setting(
        "--header-timeout",
        ("GITEA_MCP_HEADER_TIMEOUT",),
        f"seconds a client has to send a request's line and headers (default {_DEFAULT['header_timeout']:g})",
        metavar="SECONDS",
    ),
    Setting(
        "--body-timeout",
        ("GITEA_MCP_BODY_TIMEOUT",),
        f"seconds a client has to send a request's body (default {_DEFAULT['body_timeout']:g})",
        metavar="SECONDS",
    ),
    Setting(
        "--signin-requests",
        ("GITEA_MCP_SIGNIN_REQUESTS",),
        f"requests to the sign-in and discovery routes (no token yet) handled at once, apart from MCP's; more get "
        f"503 (default {_DEFAULT['signin_requests']})",
        metavar="N",
    ),
    Setting(
        "--signin-per-address",
        ("GITEA_MCP_SIGNIN_PER_ADDRESS",),
        f"of those, from one client address; more get 429 (default {_DEFAULT['signin_per_address']})",
        metavar="N",
    ),
    Setting(
        "--lookups-per-address",
        ("GITEA_MCP_LOOKUPS_PER_ADDRESS",),
        f"Gitea look-ups of new bearer tokens per minute from one client address; more get 429 (default "
        f"{_DEFAULT['lookups_per_address']})",
        metavar="N",
    ),
    Setting(
        "--trusted-proxies",
        ("GITEA_MCP_TRUSTED_PROXIES",),
        "addresses or networks of proxies whose X-Forwarded-For names the client (default "
        f"{','.join(_DEFAULT['trusted_proxies'])}; '*' = any, none = no proxy)",
        metavar="ADDRESSES",
    ),
    Setting(
        "--calls-per-minute",
        ("GITEA_MCP_CALLS_PER_MINUTE",),
        "tool calls a minute per forge user, all its tokens and the replicas together; more are refused with a "
        "time to retry, 429 over HTTP (default 60 over HTTP, 600 on stdio; 0 = no limit)",
        metavar="N",
    ),
    Setting(
        "--forge-requests-per-minute",
        ("GITEA_MCP_FORGE_REQUESTS_PER_MINUTE",),
        f"requests a minute to Gitea for the whole deployment, paused when Gitea asks (default "
        f"{_DEFAULT['forge_requests_per_minute']}; 0 = no budget)",
        metavar="N",
    ),
)
# Sign-in with the forge (issue 24): on when --public-url and --oauth-client-id are set; HTTP only.
SIGNIN: tuple[Setting, ...] = (
    Setting(
        "--public-url",
        ("GITEA_MCP_PUBLIC_URL",),
        "the origin clients reach, e.g. https://mcp.example.com (http only for 127.0.0.1); turns on sign-in",
        metavar="URL",
        aliases=("GITEA_OAUTH_PUBLIC_URL",),
    ),
    Setting(
        "--oauth-client-id",
        ("GITEA_MCP_OAUTH_CLIENT_ID",),
        "Client ID of the OAuth2 application registered in Gitea for sign-in",
        metavar="ID",
        aliases=("GITEA_OAUTH_CLIENT_ID",),
    ),
    Setting(
        "--oauth-client-secret",
        ("GITEA_MCP_OAUTH_CLIENT_SECRET",),
        "file holding its Client Secret, for a confidential application",
        metavar="FILE",
        secret=True,
        alias_files=("GITEA_OAUTH_CLIENT_SECRET_FILE",),
    ),
    Setting(
        "--oauth-key",
        ("GITEA_MCP_OAUTH_KEY",),
        "file holding the 32-byte URL-safe base64 keys, comma-separated, the same on every replica (first signs)",
        metavar="FILE",
        secret=True,
    ),
    Setting(
        "--client-metadata-documents",
        ("GITEA_MCP_CLIENT_METADATA_DOCUMENTS",),
        "true (default): clients may name themselves by a metadata document's URL, read from the internet; false: "
        "they register or use a client ID you made (offline, or behind a proxy)",
        metavar="BOOL",
    ),
)
# Metrics, traces and the audit log (issue 38): off by default; in every mode, stdio too.
OBSERVE: tuple[Setting, ...] = (
    Setting(
        "--metrics-port",
        ("GITEA_MCP_METRICS_PORT",),
        "serve Prometheus metrics on this port, apart from MCP's (default off; needs the metrics extra)",
        metavar="PORT",
    ),
    Setting(
        "--metrics-address",
        ("GITEA_MCP_METRICS_ADDRESS",),
        f"address the metrics port listens on (default {_DEFAULT['metrics_address']})",
        metavar="ADDRESS",
    ),
    Setting(
        "--metrics-detailed",
        ("GITEA_MCP_METRICS_DETAILED",),
        "also count calls by user and by repository (a series for each: mind the cardinality)",
        switch=True,
    ),
    Setting(
        "--traces",
        ("GITEA_MCP_TRACES",),
        "OpenTelemetry traces, exported where OTEL_EXPORTER_OTLP_ENDPOINT says (needs the otel extra; default off)",
        switch=True,
    ),
    Setting(
        "--audit-log",
        ("GITEA_MCP_AUDIT_LOG",),
        "one JSON line per tool call: off (default), stderr, or a file's path",
        metavar="WHERE",
    ),
)
LIMITS = (
    "--calls-per-token",
    "--max-connections",
    "--max-requests",
    "--max-body",
    "--header-timeout",
    "--body-timeout",
    "--signin-requests",
    "--signin-per-address",
    "--lookups-per-address",
    "--trusted-proxies",
    "--calls-per-minute",
    "--forge-requests-per-minute",
)
SETTINGS = {setting.flag: setting for setting in CONNECTION + HTTP + SIGNIN + OBSERVE}
_ALL = tuple(SETTINGS)
TYPED = {setting.typed: setting for setting in SETTINGS.values()}  # by the flag as typed (`--token-file`)
# The secrets' own flags, refused wherever they are typed (the value would be in every user's `ps`).
SECRET_FLAGS = {setting.flag: setting for setting in SETTINGS.values() if setting.secret}
SECRET_FILE_BYTES = 65_536  # a file of more is not a secret (nor /dev/zero read forever)
_SERVE_ONLY = ("--read-only", "--toolsets", "--timeout", "--transport", "--host", "--port", "--allowed-hosts", *LIMITS)
# The settings each command uses: it lists and accepts these, and refuses the others (a flag quietly ignored
# would let `demo --read-only` look read-only while the script writes). The environment is shared by every
# command, so a variable a command does not use is not read by it (call ignores GITEA_MCP_TRANSPORT=http).
USES: dict[str, tuple[str, ...]] = {
    "serve": _ALL,
    # Over HTTP callers bring tokens (none is a warning); the replicas' write guard is checked when set, and the
    # sign-in set-up when one is given (it is the HTTP server's: given to check, it implies --transport http),
    # with the address and port serve would listen on, which the public URL must reach.
    "check": (
        *(s.flag for s in CONNECTION),
        "--transport",
        "--host",
        "--port",
        "--redis-url",
        *(s.flag for s in SIGNIN),
        "--calls-per-minute",
        "--forge-requests-per-minute",
        *(s.flag for s in OBSERVE),
    ),
    "call": tuple(s.flag for s in CONNECTION),
    # config writes the settings into the client's launch; never the token (the client asks for it).
    "config": tuple(s.flag for s in CONNECTION if s.flag != "--token"),
    "demo": ("--log-level", *_SERVE_ONLY),  # the stand-in brings URL, token and owners; the rest with --serve
    # The forge's application for sign-in: where it is, whose token makes it, and what the sign-in will be.
    "signin-setup": (
        "--url",
        "--token",
        "--timeout",
        "--log-level",
        "--ca-bundle",
        "--insecure",
        "--public-url",
        "--oauth-client-id",
        "--oauth-key",
    ),
}
# Why a command would ignore a flag, said when it refuses one.
_WHY_NOT: dict[str, str] = {
    "check": "it serves nothing: it tests the connection to Gitea",
    "call": "it runs one tool in this process and serves nothing",
    "config": "the client starts the server on stdio; for a remote server use --remote URL (sign-in) or --http URL",
    "demo": "it brings its own Gitea stand-in, token and owners",
    "signin-setup": "it makes the forge's OAuth2 application and serves nothing",
}


class UsageProblem(Exception):
    """The command line is wrong; `str(exc)` is the one sentence that says so (exit 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors turned into our sentences (no usage block, no "error:" heading)."""

    def error(self, message: str) -> NoReturn:
        raise UsageProblem(_plain(message, self.prog))


def _plain(message: str, prog: str) -> str:
    """argparse's error wording → one sentence naming the cause and the remedy."""
    command = prog.removeprefix(PROG).strip() or None
    see = f"{PROG} {command} --help" if command else f"{PROG} --help"
    if found := re.fullmatch(r"argument (\S+?)(?:/\S+)?: expected one argument", message):
        flag = found.group(1)
        metavar = TYPED[flag].metavar if flag in TYPED else "VALUE"
        return f"{flag} needs a value; write {flag} {metavar}"
    if found := re.fullmatch(r"argument (\S+?)(?:/\S+)?: ignored explicit argument '.*'", message):
        return _switch(found.group(1))
    if found := re.fullmatch(r"argument (\S+): invalid choice: '(.*?)' \(choose from (.*)\)", message):
        choices = [choice.strip(" '") for choice in found.group(3).split(",")]
        return f"{found.group(1)} {found.group(2)!r} is not one of {', '.join(choices)}; {see} says what each means"
    if found := re.fullmatch(r"the following arguments are required: (.*)", message):
        first = found.group(1).split(", ")[0]  # the first one missing; the rest follow it on the line
        return f"{command or PROG} needs {first}; {see} says what it takes"
    if found := re.fullmatch(r"unrecognized arguments: (.*)", message):
        return f"{command or PROG} takes no {found.group(1)!r}; {see} says what it takes"
    if found := re.fullmatch(r"argument (\S+?)(?:/\S+)?: (.*)", message):
        return f"{found.group(1)}: {found.group(2)}; {see} says what it takes"
    return f"{message}; {see} says what it takes"


def _switch(flag: str) -> str:
    return f"{flag} is a switch and takes no value; write {flag} alone"


def _add_settings(parser: argparse.ArgumentParser, flags: Sequence[str], default: Any) -> None:
    """The settings `flags`, each naming its variables. `default` is None on the top-level parser and SUPPRESS on
    each command's, so a command's namespace holds only the flags given (and argparse, which copies a command's
    namespace over the top level's, never erases one)."""
    groups = {
        "settings": parser.add_argument_group("settings (each flag can also come from the environment variable named)"),
        "http": parser.add_argument_group("streamable HTTP transport"),
    }
    for flag in flags:
        setting = SETTINGS[flag]
        group = groups["http" if setting in HTTP + SIGNIN else "settings"]
        help_text = f"{setting.help} [{' or '.join(setting.env)}]"
        if setting.secret:
            help_text = f"{setting.help} [or the value itself in {' or '.join(setting.env)}]"
        if setting.switch:
            group.add_argument(setting.typed, action="store_true", default=default, help=help_text)
        else:
            group.add_argument(setting.typed, default=default, metavar=setting.metavar, help=help_text)


def build_parser() -> argparse.ArgumentParser:
    # Every setting appears at the top level too, so `--help` lists each one with its variable.
    parser = _Parser(
        prog=PROG,
        description="MCP server for the issues of a Gitea, Forgejo or Codeberg instance.",
        epilog=f"Run '{PROG} COMMAND --help' for a command's own options and the settings it uses. Without a "
        f"command: serve. Exit codes: {EXIT_CODES}.",
    )
    _add_settings(parser, _ALL, default=None)
    _add_version(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = _command(name)
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        _add_settings(sub, USES[name], default=argparse.SUPPRESS)
        _add_version(sub)
        module.add_arguments(sub)
    return parser


def _add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Settings before or after the command alike; no command means serve; an unknown command or flag, or a flag
    the command does not use, is one sentence (exit 2)."""
    parser = build_parser()
    try:
        return _parse(parser, list(argv))
    except UsageProblem as exc:
        sentence = str(exc)
        parser.exit(USAGE, f"{PROG}: {sentence}{'' if sentence.endswith(('.', '?')) else '.'}\n")


def _parse(parser: argparse.ArgumentParser, args: list[str]) -> argparse.Namespace:
    commands = _subparsers(parser)
    every: dict[str, bool] = {}
    for each in (parser, *commands.values()):
        every.update(_value_flags(each))
    at = _command_index(args, every)
    if at is None:
        if _HELP_OR_VERSION.intersection(args):  # `--help` alone is the top level's help, not serve's
            return parser.parse_args(args)
        command, rest = DEFAULT_COMMAND, args
    elif args[at] not in COMMANDS:
        raise UsageProblem(no_command(args[at]).removesuffix("."))
    else:
        command, rest = args[at], args[:at] + args[at + 1 :]
    taking = {name: _value_flags(each) for name, each in commands.items()}
    owners = {flag: [name for name, flags in taking.items() if flag in flags] for flag in every}
    _check_flags(command, rest, _value_flags(commands[command]), every, owners)
    if command == "call" and {"-h", "--help"}.intersection(rest):
        _command("call").list_tools_in(commands[command])  # only for its help: the tools and what each does
    # The command first: every flag, wherever it was typed, goes to the command's own parser.
    ns, extra = parser.parse_known_args([command, *rest])
    if extra:  # said here: the top-level parser would name itself, not the command
        raise UsageProblem(f"{command} takes no {' '.join(extra)!r}; {PROG} {command} --help says what it takes")
    if command == "demo" and not ns.serve:
        given = [flag for flag in _SERVE_ONLY if getattr(ns, SETTINGS[flag].dest, None) is not None]
        if given:
            raise UsageProblem(
                f"{given[0]} does nothing for demo without --serve (the scripted session makes its own calls); "
                "add --serve, or remove it"
            )
    return ns


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps no public list of them
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def no_command(word: str) -> str:
    from difflib import get_close_matches  # only after a mistake: not at start-up

    close = get_close_matches(word, COMMANDS, n=1)
    guess = f"; did you mean {close[0]}?" if close else "."
    return f"no command {word!r}{guess} Commands: {', '.join(COMMANDS)}."


def _value_flags(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Each option and whether it takes a value (argparse keeps no public list of them)."""
    return {flag: action.nargs != 0 for action in parser._actions for flag in action.option_strings}


def _command_index(args: list[str], flags: dict[str, bool]) -> int | None:
    """Where the command is: the first word that is neither an option nor an option's value. An unknown option
    before it is refused here: its value would be taken for the command (`--tokn x check`: "no command 'x'")."""
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            return index + 1 if index + 1 < len(args) else None
        elif arg.startswith("-") and arg != "-":
            name, eq, _ = arg.partition("=")
            _not_a_secret(name)
            flag = _resolve(name, flags)
            if flag is None:
                raise UsageProblem(_unknown(name, flags, None, args[index + 1 : index + 2]))
            skip = not eq and flags[flag]
        else:
            return index
    return None


def _check_flags(
    command: str, args: list[str], own: dict[str, bool], every: dict[str, bool], owners: dict[str, list[str]]
) -> None:
    """Every option is the command's own, written as it takes it; else one sentence saying what is wrong. `owners`:
    the commands that take each flag."""
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            return
        if not arg.startswith("-") or arg == "-":
            continue
        name, eq, _ = arg.partition("=")
        _not_a_secret(name)
        flag = _resolve(name, own)
        if flag is None:
            elsewhere = _resolve(name, every)
            if elsewhere is None:
                raise UsageProblem(_unknown(name, own, command, args[index + 1 : index + 2]))
            raise UsageProblem(_refused(command, elsewhere, owners.get(elsewhere, [])))
        if eq and not own[flag]:
            raise UsageProblem(_switch(flag))
        skip = not eq and own[flag]


def _not_a_secret(name: str) -> None:
    """A secret typed on the command line is refused, whatever the command: its value is in every user's `ps`."""
    setting = SECRET_FLAGS.get(name)
    if setting is not None:
        raise UsageProblem(
            f"{name} would put a secret on the command line, where every user of this machine can read it (ps); "
            f"set {setting.env[0]} in the environment instead, or put it in a file and pass {setting.typed} FILE"
        )


def _resolve(name: str, flags: dict[str, bool]) -> str | None:
    """The flag `name` stands for: itself, or (as argparse allows) the one long flag it begins; ambiguous: refused."""
    if name in flags:
        return name
    if not name.startswith("--"):
        return None
    matches = [flag for flag in flags if flag.startswith(name) and flag.startswith("--")]
    if len(matches) > 1:
        raise UsageProblem(f"{name} is ambiguous: {' or '.join(matches)}; write it in full")
    return matches[0] if matches else None


def _unknown(name: str, flags: dict[str, bool], command: str | None, after: list[str]) -> str:
    if name in foreign.FLAG_HINTS:  # another Gitea/Forgejo MCP server's flag (docs/migrating.md)
        return f"unknown flag {name} (another Gitea MCP server's); {foreign.FLAG_HINTS[name]}"
    long_flags = [flag for flag in flags if flag.startswith("--")]
    from difflib import get_close_matches  # only after a mistake: not at start-up

    # A secret's own flag is matched too (`--tokn` is a slip for --token), and its file flag suggested.
    close = get_close_matches(name, [*long_flags, *SECRET_FLAGS], n=1, cutoff=0.75)
    if close:
        meant = SECRET_FLAGS[close[0]].typed if close[0] in SECRET_FLAGS else close[0]
        return f"unknown flag {name}; did you mean {meant}?"
    if command == "call" and name.startswith("--"):
        # `call issue_list --owner x`: a tool argument written as a flag.
        value = after[0] if after and not after[0].startswith("-") else "VALUE"
        key = name.removeprefix("--").replace("-", "_")
        return f"unknown flag {name}; call takes the tool's arguments as KEY=VALUE: write {key}={value}"
    see = f"{PROG} {command} --help" if command else f"{PROG} --help"
    return f"unknown flag {name}; {see} lists the flags"


def _refused(command: str, flag: str, owners: Sequence[str] = ()) -> str:
    if command == "config" and flag == "--token-file":
        reason = "it never writes the token: the client asks for it"
    elif command == "demo" and flag == "--http-secret-file":
        reason = "each request sends the stand-in's token itself"
    elif command in _WHY_NOT:
        reason = _WHY_NOT[command]
    else:  # serve uses every setting: what it refuses is another command's own flag (`serve --json`)
        taken = " and ".join(f"{PROG} {owner} --help" for owner in owners) or f"{PROG} --help"
        reason = f"another command's flag: {taken}"
    return f"{flag} does nothing for {command} ({reason}); remove it"


PORT_RANGE = "use 1 to 65535 (or 0 for any free port)"


def seconds(raw: str, name: str) -> float:
    try:
        return float(raw)
    except ValueError:
        example = f"{name} 30" if name.startswith("-") else f"{name}=30"
        raise ConfigError(f"{_named(name, raw)} is not a number of seconds (e.g. {example})") from None


def _port(raw: str, name: str) -> int:
    text = raw.strip()
    if not text.isdigit() or int(text) > 65535:
        raise ConfigError(f"{_named(name, raw)} is not a port number; {PORT_RANGE}")
    return int(text)


def _transport(raw: str, name: str) -> str:
    if raw not in ("stdio", "http"):
        raise ConfigError(f"{_named(name, raw)} is not a transport; use stdio or http")
    return raw


def _named(name: str, raw: str) -> str:
    """A value as it was given: `--port '99999'` from the command line, `GITEA_MCP_PORT='99999'` from the
    environment."""
    return f"{name} {shown(raw)}" if name.startswith("-") else f"{name}={shown(raw)}"


_NEITHER = (
    "GITEA_URL and GITEA_ALLOWED_OWNERS are not set: point GITEA_URL at your Gitea (e.g. "
    "GITEA_URL=https://gitea.example.com) and name the owners agents may use in GITEA_ALLOWED_OWNERS (e.g. "
    "GITEA_ALLOWED_OWNERS=acme,alice, or '*' for every owner)"
)


class _Reader:
    """Each setting from its flag if given, else from its variables if the command uses it, else unset."""

    def __init__(self, ns: argparse.Namespace, uses: Sequence[str]) -> None:
        self.ns, self.uses = ns, uses

    def raw(self, flag: str) -> tuple[str | None, str]:
        """The value and where it came from (the flag, or the variable that held it)."""
        setting = SETTINGS[flag]
        given = getattr(self.ns, setting.name, None) if setting.secret else None  # handed over as it is (demo)
        if given is None:
            given = getattr(self.ns, setting.dest, None)
            if given is not None and setting.secret:
                return read_secret(str(given), setting.typed), setting.typed
        if given is not None:
            return (given if isinstance(given, str) else str(given)), flag
        if flag not in self.uses:
            return None, setting.env[0]
        return from_environment(setting)

    def value(self, flag: str) -> str | None:
        return self.raw(flag)[0]

    def switch(self, flag: str) -> bool:
        if getattr(self.ns, SETTINGS[flag].dest, None):
            return True
        raw, name = self.raw(flag)
        return parse_bool(raw, name)


# Settings whose value set to nothing is a client's unexpanded variable, never a choice (placeholders are refused).
_NOT_BLANK = ("--url", "--token", "--http-secret", "--public-url", "--oauth-client-id", "--oauth-client-secret",
              "--oauth-key")  # fmt: skip


def from_environment(setting: Setting) -> tuple[str | None, str]:
    """The setting's value in the environment and the variable holding it: ours first, then other servers' names
    for it (docs/migrating.md). Two of them holding different values stop the start: which was meant is not ours to
    guess, and the first one winning would quietly drop the other."""
    found = [(name, os.environ[name]) for name in (*setting.env, *setting.aliases) if name in os.environ]
    found += [(name, read_secret(os.environ[name], name)) for name in setting.alias_files if os.environ.get(name)]
    if setting.flag in _NOT_BLANK:  # said before any conflict: it is the cause, and names the variable as set
        for name, value in found:
            problem = placeholder_problem(name, value, examples=setting.flag != "--oauth-key")
            if problem is not None:
                raise ConfigError(problem + ".")
    found = [(name, value) for name, value in found if value]
    if not found:
        return None, setting.env[0]
    first, value = found[0]
    for other, theirs in found[1:]:
        if theirs.strip() != value.strip():
            raise ConfigError(_both(first, other))
    return value, first


def _both(ours: str, other: str) -> str:
    whose = f"the name {foreign.ORIGIN[other]} gives it" if other in foreign.ORIGIN else "another name for it"
    return (
        f"{ours} and {other} are both set, to different values, and both mean one setting ({other} is {whose}); "
        "keep one of them, or give both the same value."
    )


def read_secret(path: str, flag: str) -> str:
    """The secret in the file `flag` names, its final line break dropped; a file that cannot be one is said in one
    sentence naming the file (never what it holds)."""
    try:
        with open(path, "rb") as file:
            held = file.read(SECRET_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(
            f"{flag} {shown(path, 200)} cannot be read ({exc.strerror or exc}); give the path of a file holding the "
            "secret alone"
        ) from None
    if len(held) > SECRET_FILE_BYTES or b"\0" in held:
        raise ConfigError(f"{flag} {shown(path, 200)} is not a file holding a secret alone (it is too long or binary)")
    return held.decode("utf-8", errors="replace").rstrip("\r\n")


def settings_from(ns: argparse.Namespace, uses: Sequence[str] | None = None) -> Settings:
    """The settings `uses` (default: those of `ns.command`), flags winning over the environment. Every setting
    missing or malformed is said at once, in one message."""
    read = _Reader(ns, uses if uses is not None else USES.get(getattr(ns, "command", DEFAULT_COMMAND), _ALL))
    problems: list[str] = []

    def checked(convert: Any, default: Any) -> Any:
        try:
            return convert()
        except ConfigError as exc:
            problems.append(str(exc).removesuffix("."))
            return default

    url, owners_raw = read.value("--url"), read.value("--allowed-owners")
    owners: frozenset[str] = frozenset()
    if not url and not owners_raw:  # a first run: both required settings, in one sentence
        problems.append(_NEITHER)
    else:
        if not url:
            problems.append("GITEA_URL is not set: point it at your Gitea, e.g. GITEA_URL=https://gitea.example.com")
        owners = checked(lambda: parse_owner_list(owners_raw), frozenset())  # unset: it says so itself
    read_only = checked(lambda: read.switch("--read-only"), False)
    toolsets = checked(lambda: _from(read, "--toolsets", parse_toolsets, TOOLSETS), TOOLSETS)
    insecure = checked(lambda: read.switch("--insecure"), False)
    timeout = checked(lambda: _from(read, "--timeout", seconds, _DEFAULT["timeout"]), _DEFAULT["timeout"])
    signin = {field: read.value("--" + field.replace("_", "-")) for field in SIGNIN_SETTINGS}
    # check verifies the set-up serve would run: sign-in settings are the HTTP server's, so they imply HTTP there
    # (an explicit --transport stdio is still refused with serve's sentence).
    implied = "http" if getattr(ns, "command", None) == "check" and any(signin.values()) else _DEFAULT["transport"]
    transport = checked(lambda: _from(read, "--transport", _transport, implied), implied)
    port = checked(lambda: _from(read, "--port", _port, _DEFAULT["port"]), _DEFAULT["port"])
    limits = {name: checked(lambda name=name: _limit(read, name), _DEFAULT[name]) for name in _LIMIT_FIELDS}
    documents = checked(lambda: _from(read, "--client-metadata-documents", parse_bool, True), True)
    lockdown = checked(lambda: read.switch("--lockdown"), False)
    trusted = checked(lambda: _from(read, "--lockdown-trusted", parse_trusted, frozenset()), frozenset())
    metrics_port = checked(lambda: _from(read, "--metrics-port", _port, None), None)
    detailed = checked(lambda: read.switch("--metrics-detailed"), False)
    traces = checked(lambda: read.switch("--traces"), False)
    nothing = None if problems else serves_nothing(read_only, toolsets)  # said once the choice itself reads right
    if nothing is not None:
        problems.append(nothing)
    if problems:
        raise ConfigError("; ".join(problems) + ".")
    token = read.value("--token")
    secret = read.value("--http-secret")
    redis_url, redis_from = read.raw("--redis-url")
    if redis_from == "--redis-url" and redis_url and _credentials(redis_url):
        raise ConfigError(
            "--redis-url carries a password, which every user of this machine can read on the command line (ps); "
            "set GITEA_MCP_REDIS_URL in the environment instead."
        )
    listen, listen_from = read.raw("--host")
    if listen and listen.strip().lower().startswith(("http://", "https://")):
        # The official Go server's --host (and GITEA_HOST) is the Gitea URL; here it is where HTTP mode listens.
        raise ConfigError(
            f"{_named(listen_from, listen)} is a URL, but {listen_from} here is the address HTTP mode listens on "
            "(e.g. 127.0.0.1); the Gitea URL goes in --url or GITEA_URL (the official Go server's --host)."
        )
    hosts = read.value("--allowed-hosts") or ""
    proxies = read.value("--trusted-proxies")
    try:
        return Settings(
            url=url or "",
            token=SecretStr(token) if token else None,
            allowed_owners=owners,
            read_only=read_only,
            toolsets=toolsets,
            timeout=timeout,
            ca_bundle=read.value("--ca-bundle"),
            insecure=insecure,
            transport=transport,
            host=read.value("--host") or _DEFAULT["host"],
            port=port,
            allowed_hosts=tuple(h.strip() for h in hosts.split(",") if h.strip()),
            trusted_proxies=_listed(proxies) if proxies is not None else _DEFAULT["trusted_proxies"],
            http_secret=SecretStr(secret) if secret else None,
            redis_url=SecretStr(redis_url) if redis_url else None,
            public_url=signin["public_url"],
            oauth_client_id=signin["oauth_client_id"],
            oauth_client_secret=_secret(signin["oauth_client_secret"]),
            oauth_key=_secret(signin["oauth_key"]),
            client_metadata_documents=documents,
            lockdown=lockdown,
            lockdown_trusted=trusted,
            metrics_port=metrics_port,
            metrics_address=read.value("--metrics-address") or _DEFAULT["metrics_address"],
            metrics_detailed=detailed,
            audit_log=read.value("--audit-log"),
            traces=traces,
            **limits,
        )
    except ValidationError as exc:  # show only our messages, never the input (it may hold the token)
        messages = (str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
        raise ConfigError("; ".join(messages)) from None


def _credentials(url: str) -> bool:
    """A user name or password in the URL, or a password in its query (redis-py reads `?password=`)."""
    try:
        parts = urlsplit(url)
        return parts.password is not None or parts.username is not None or "password" in parse_qs(parts.query)
    except ValueError:  # a URL past reading is refused by the setting's own check, in its words
        return False


def _listed(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _secret(value: str | None) -> SecretStr | None:
    return SecretStr(value) if value else None


# Each HTTP limit's field in Settings: whole numbers within COUNT_BOUNDS, or seconds.
_LIMIT_FIELDS = (
    "calls_per_token",
    "max_connections",
    "max_requests",
    "max_body",
    "header_timeout",
    "body_timeout",
    "workers",
    "signin_requests",
    "signin_per_address",
    "lookups_per_address",
    "calls_per_minute",
    "forge_requests_per_minute",
)


def _limit(read: _Reader, field: str) -> Any:
    flag = "--" + field.replace("_", "-")
    if field in COUNT_BOUNDS:
        return _from(read, flag, lambda raw, name: parse_count(raw, name, COUNT_BOUNDS[field]), _DEFAULT[field])
    return _from(read, flag, seconds, _DEFAULT[field])


def _from(read: _Reader, flag: str, convert: Any, default: Any) -> Any:
    raw, name = read.raw(flag)
    return default if raw is None or raw == "" else convert(raw, name)


def configure_logging(level: str | None) -> None:
    # stdout is the MCP protocol channel: every log line goes to stderr.
    name = parse_log_level(level or _env("GITEA_LOG_LEVEL") or _debug())
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, name), format="%(levelname)s %(name)s: %(message)s")


def _debug() -> str | None:
    """The other servers' debug switches (GITEA_DEBUG=true) as the level they mean; against a level set here to
    another, one sentence naming both."""
    on = [name for name in foreign.DEBUG_SWITCHES if parse_bool(os.environ.get(name), name)]
    return "DEBUG" if on else None


def _debug_agrees(level: str | None) -> None:
    wanted = level or _env("GITEA_LOG_LEVEL")
    for name in foreign.DEBUG_SWITCHES:
        if parse_bool(os.environ.get(name), name) and wanted and parse_log_level(wanted) != "DEBUG":
            given = f"--log-level {wanted}" if level else f"GITEA_LOG_LEVEL={shown(wanted)}"
            raise ConfigError(
                f"{given} and {name}=true are both set, and {name} (a setting of {foreign.ORIGIN[name]}) means "
                "GITEA_LOG_LEVEL=DEBUG; keep one of them."
            )


def known_variables() -> frozenset[str]:
    """Every variable some setting reads, ours and the aliases."""
    return frozenset(name for s in SETTINGS.values() for name in (*s.env, *s.aliases, *s.alias_files)) | frozenset(
        _READ_ELSEWHERE
    )


# Read outside the Setting declarations: the stand-in's version (demo) and the other servers' debug switches.
_READ_ELSEWHERE = ("GITEA_VERSION", *foreign.DEBUG_SWITCHES)


def environment_notes() -> tuple[list[str], list[str]]:
    """(reported, refused): the GITEA_*/FORGEJO_* variables this server does not read (foreign.notes)."""
    return foreign.notes(os.environ, known_variables())


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the program itself; a test calling main([...]) keeps its own process's signal handlers
        _stop_quietly_on_signals()
    try:
        return _main(argv)
    except BrokenPipeError:
        # `gitea-issues-mcp config vscode | head`: the reader left; that is not an error worth a traceback.
        return _reader_left()
    except BaseExceptionGroup as group:  # `demo | head`: the same, raised inside the MCP client's task group
        if group.split(BrokenPipeError)[1] is not None:
            raise
        return _reader_left()
    except KeyboardInterrupt:  # Ctrl-C where no handler of ours was installed
        return INTERRUPTED


def _reader_left() -> int:
    # Nothing more can reach the reader, and Python's own flush of stdout at exit would complain on stderr.
    sys.stderr.close()
    return OK


def _main(argv: Sequence[str] | None) -> int:
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    module = _command(ns.command)
    try:
        _debug_agrees(ns.log_level)
        configure_logging(ns.log_level)
        _report_environment(ns.command)
        settings = None if ns.command in NO_SETTINGS else settings_from(ns)
        code: int = module.run(ns, settings)
    except CannotListen as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return CANNOT_LISTEN
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return USAGE
    return code


def _report_environment(command: str) -> None:
    """Variables this server does not read, said on stderr before anything else (check says them among its lines);
    one whose loss would offer more than it allowed stops the commands that use settings."""
    reported, refused = environment_notes()
    if refused and command not in NO_SETTINGS:
        raise ConfigError("; ".join(refused) + ".")
    if command != "check":
        for sentence in reported + refused:
            print(f"{PROG}: warning: {sentence}", file=sys.stderr)


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
