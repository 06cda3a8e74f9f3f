"""config: print ready-to-paste MCP client configuration. Writes nothing and never reads the token."""

from __future__ import annotations

import argparse
import os
import sys

from gitea_mcp.cli import client_entries
from gitea_mcp.cli.launch import LAUNCHERS, launch

# The server's own reading, naming the flag or the variable as given, other servers' names included.
from gitea_mcp.cli.main import SETTINGS, from_environment, seconds
from gitea_mcp.domain.toolsets import TOOLSETS, Toolset
from gitea_mcp.redaction import shown
from gitea_mcp.settings import (
    ConfigError,
    Settings,
    check_trusted_login,
    parse_bool,
    parse_log_level,
    parse_toolsets,
    parse_trusted,
)
from gitea_mcp.toolkit.registry import serves_nothing

HELP = "print ready-to-paste configuration for an MCP client (writes nothing)"
DEFAULT_TIMEOUT: float = Settings.model_fields["timeout"].default
DEFAULT_LOG_LEVEL = parse_log_level(None)


def _http_url(raw: str) -> str:
    if not raw.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(f"{raw!r} is not an http:// or https:// URL")
    return client_entries.remote_endpoint(raw)


def _signin_url(raw: str) -> str:
    try:
        return client_entries.signin_endpoint(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "client", choices=list(client_entries.CLIENTS), metavar="CLIENT", help=", ".join(client_entries.CLIENTS)
    )
    remote = parser.add_mutually_exclusive_group()
    remote.add_argument(
        "--remote",
        metavar="URL",
        type=_signin_url,
        help="connect to the team's gitea_mcp at URL, which signs users in with Gitea (no token in the file; "
        f"{client_entries.MCP_PATH} is added to a bare origin)",
    )
    remote.add_argument(
        "--http",
        metavar="URL",
        type=_http_url,
        help="connect to a remote gitea_mcp over streamable HTTP at URL "
        f"({client_entries.MCP_PATH} is added if missing)",
    )
    parser.add_argument(
        "--launcher",
        choices=LAUNCHERS,
        default="installed",
        help="how the client starts the server: 'installed' (default: this copy's command by its full path, or "
        f"this Python with -m gitea_mcp), 'python' ({sys.executable} -m gitea_mcp) or 'uvx' "
        f"(uvx {client_entries.DIST}; uvx --from SOURCE for a copy installed from a directory)",
    )


def setup_from(ns: argparse.Namespace) -> client_entries.Setup:
    """Values from the flags or environment when set, placeholders otherwise; the token is never read."""
    url = ns.url or from_environment(SETTINGS["--url"])[0] or client_entries.PLACEHOLDER_URL
    owners = ns.allowed_owners or os.environ.get("GITEA_ALLOWED_OWNERS") or client_entries.PLACEHOLDER_OWNERS
    how = launch(ns.launcher)
    remote = ns.remote or ns.http
    return client_entries.Setup(url.strip(), owners.strip(), how.command, how.args, remote, ns.remote is not None,
                                carried(ns))  # fmt: skip


def carried(ns: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """Every other setting given (flag or environment) and not at its default, as the variable the server reads.

    A client starts the server with only the environment its file names, so a setting left out is a setting lost:
    a read-only user would be offered the write tools. A value the server would refuse stops `config` instead
    (exit 2), with the server's own sentence; the CA file gets its absolute path, as the client runs elsewhere.
    """
    found: list[tuple[str, str]] = []
    read_only = _flag_or_bool(ns.read_only, "--read-only")
    if read_only:
        found.append(("GITEA_READ_ONLY", "true"))
    toolsets = _toolsets(ns.toolsets, read_only)
    if toolsets != TOOLSETS:
        found.append(("GITEA_TOOLSETS", ",".join(toolsets)))
    timeout = _timeout(ns.timeout)
    if timeout != DEFAULT_TIMEOUT:
        found.append(("GITEA_TIMEOUT", str(int(timeout)) if timeout.is_integer() else repr(timeout)))
    ca_bundle = ns.ca_bundle or os.environ.get("GITEA_CA_BUNDLE")
    if ca_bundle:
        if not os.path.isfile(ca_bundle):
            raise ConfigError(
                f"GITEA_CA_BUNDLE={shown(ca_bundle, 200)} is not a readable file; give the path of a PEM file"
            )
        found.append(("GITEA_CA_BUNDLE", os.path.abspath(ca_bundle)))
    if _flag_or_bool(ns.insecure, "--insecure"):
        found.append(("GITEA_INSECURE", "true"))
    level = parse_log_level(ns.log_level or os.environ.get("GITEA_LOG_LEVEL"))
    if level != DEFAULT_LOG_LEVEL:
        found.append(("GITEA_LOG_LEVEL", level))
    if _flag_or_bool(ns.lockdown, "--lockdown"):
        found.append(("GITEA_LOCKDOWN", "true"))
    if trusted := _trusted(ns.lockdown_trusted):
        found.append(("GITEA_LOCKDOWN_TRUSTED", ",".join(trusted)))
    return tuple(found)


def _trusted(flag: str | None) -> list[str]:
    """The logins lockdown trusts, checked as the server checks them (a value it would refuse stops `config`)."""
    raw = flag if flag is not None else os.environ.get("GITEA_LOCKDOWN_TRUSTED")
    try:
        return [check_trusted_login(login) for login in sorted(parse_trusted(raw or "", "GITEA_LOCKDOWN_TRUSTED"))]
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _flag_or_bool(flag: bool | None, option: str) -> bool:
    """The switch as the server reads it: GITEA_READONLY=true (the official Go server's) is read-only too."""
    if flag is not None:
        return flag
    raw, name = from_environment(SETTINGS[option])
    return parse_bool(raw, name)


def _toolsets(flag: str | None, read_only: bool) -> tuple[Toolset, ...]:
    """As the server reads them; a choice that would serve no tool stops `config` as it would stop the server."""
    raw, name = (flag, "--toolsets") if flag is not None else (os.environ.get("GITEA_TOOLSETS"), "GITEA_TOOLSETS")
    toolsets = parse_toolsets(raw, name) if raw else TOOLSETS
    refused = serves_nothing(read_only, toolsets)
    if refused is not None:
        raise ConfigError(refused)
    return toolsets


def _timeout(flag: str | None) -> float:
    raw, name = (flag, "--timeout") if flag is not None else (os.environ.get("GITEA_TIMEOUT"), "GITEA_TIMEOUT")
    if not raw:
        return DEFAULT_TIMEOUT
    value = seconds(raw, name)
    if not value > 0:  # `not >`: NaN is no number of seconds either
        raise ConfigError("GITEA_TIMEOUT must be a positive number of seconds")
    return value


def run(ns: argparse.Namespace, settings: Settings | None) -> int:
    setup = setup_from(ns)
    content, notes = client_entries.render(ns.client, setup)
    print(notes, file=sys.stderr)
    if not os.path.isabs(setup.command):  # only uvx can be missing: the other launchers are this very copy
        print(
            f"# {setup.command} was not found on PATH here: the client must find it on its own PATH, which for a GUI "
            "client is short; install uv, or use --launcher installed",
            file=sys.stderr,
        )
    print(content)
    return 0
