"""Global flags before or after the command, for every command; an unknown command named with the closest one."""

from __future__ import annotations

from typing import Any

import pytest

from gitea_mcp import __version__
from gitea_mcp.cli.main import COMMANDS, USAGE, _value_flags, build_parser, main, parse_args

# Each global flag: what is typed after it (None for a switch) and the value it must leave in the namespace.
FLAGS: list[tuple[str, str | None, str, Any]] = [
    ("--url", "https://g.example", "url", "https://g.example"),
    ("--token-file", "/run/secrets/token", "token_file", "/run/secrets/token"),
    ("--allowed-owners", "acme", "allowed_owners", "acme"),
    ("--read-only", None, "read_only", True),
    ("--toolsets", "issues,labels", "toolsets", "issues,labels"),
    ("--timeout", "3", "timeout", "3"),  # as typed: settings_from reads it, saying which flag was wrong
    ("--log-level", "DEBUG", "log_level", "DEBUG"),
    ("--ca-bundle", "/etc/ca.pem", "ca_bundle", "/etc/ca.pem"),
    ("--insecure", None, "insecure", True),
    ("--lockdown", None, "lockdown", True),
    ("--lockdown-trusted", "release-bot", "lockdown_trusted", "release-bot"),
    ("--transport", "http", "transport", "http"),
    ("--host", "0.0.0.0", "host", "0.0.0.0"),
    ("--port", "8001", "port", "8001"),
    ("--allowed-hosts", "mcp.example.com:*", "allowed_hosts", "mcp.example.com:*"),
    ("--http-secret-file", "/run/secrets/s", "http_secret_file", "/run/secrets/s"),
    ("--calls-per-token", "10", "calls_per_token", "10"),
    ("--workers", "2", "workers", "2"),
    ("--redis-url", "redis://r.example:6379/0", "redis_url", "redis://r.example:6379/0"),
    ("--max-connections", "100", "max_connections", "100"),
    ("--max-requests", "8", "max_requests", "8"),
    ("--max-body", "65536", "max_body", "65536"),
    ("--header-timeout", "5", "header_timeout", "5"),
    ("--body-timeout", "20", "body_timeout", "20"),
    ("--signin-requests", "8", "signin_requests", "8"),
    ("--signin-per-address", "2", "signin_per_address", "2"),
    ("--lookups-per-address", "30", "lookups_per_address", "30"),
    ("--calls-per-minute", "120", "calls_per_minute", "120"),
    ("--forge-requests-per-minute", "900", "forge_requests_per_minute", "900"),
    ("--trusted-proxies", "10.0.0.0/8", "trusted_proxies", "10.0.0.0/8"),
    ("--metrics-port", "9100", "metrics_port", "9100"),
    ("--metrics-address", "0.0.0.0", "metrics_address", "0.0.0.0"),
    ("--metrics-detailed", None, "metrics_detailed", True),
    ("--traces", None, "traces", True),
    ("--audit-log", "stderr", "audit_log", "stderr"),
    ("--public-url", "https://mcp.example.com", "public_url", "https://mcp.example.com"),
    ("--oauth-client-id", "5b2c3e9a", "oauth_client_id", "5b2c3e9a"),
    ("--oauth-client-secret-file", "/run/secrets/c", "oauth_client_secret_file", "/run/secrets/c"),
    ("--oauth-key-file", "/run/secrets/k", "oauth_key_file", "/run/secrets/k"),
    ("--client-metadata-documents", "false", "client_metadata_documents", "false"),
]
# What each command needs besides the flags (demo: --serve, without which it uses no setting but the log level).
OPERANDS: dict[str, list[str]] = {
    "serve": [],
    "demo": ["--serve"],
    "check": [],
    "config": ["vscode"],
    "call": ["issue_list"],
    "signin-setup": [],
}
CONNECTION = [
    "--url",
    "--token-file",
    "--allowed-owners",
    "--read-only",
    "--toolsets",
    "--timeout",
    "--log-level",
    "--ca-bundle",
    "--insecure",
    "--lockdown",
    "--lockdown-trusted",
]
LIMITS = [
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
]
# --workers is serve's alone: demo runs its stand-in in threads, and a fork takes one thread along.
HTTP = [
    "--transport", "--host", "--port", "--allowed-hosts", "--http-secret-file", "--redis-url", "--workers", *LIMITS,
]  # fmt: skip
# issue 38: metrics, traces and the audit log, in every mode (stdio too); check says each
OBSERVE = ["--metrics-port", "--metrics-address", "--metrics-detailed", "--traces", "--audit-log"]
# issue 24: serve and check; issue 35: client metadata documents may be turned off
SIGNIN = [
    "--public-url",
    "--oauth-client-id",
    "--oauth-client-secret-file",
    "--oauth-key-file",
    "--client-metadata-documents",
]
# The settings each command uses (written out here, not read from the code, so a change to them is a decision).
USED: dict[str, list[str]] = {
    "serve": CONNECTION + HTTP + SIGNIN + OBSERVE,
    # check verifies the sign-in set-up, and says the per-user limit, the forge budget and what is observed
    "check": [
        *CONNECTION,
        "--transport",
        "--host",  # issue 39: the listener the public URL must reach
        "--port",
        "--redis-url",
        *SIGNIN,
        "--calls-per-minute",
        "--forge-requests-per-minute",
        *OBSERVE,
    ],
    "call": CONNECTION,
    "config": [flag for flag in CONNECTION if flag != "--token-file"],
    "demo": [
        "--log-level",
        "--read-only",
        "--toolsets",
        "--timeout",
        "--transport",
        "--host",
        "--port",
        "--allowed-hosts",
        *LIMITS,
    ],
    # issue 39: the forge's OAuth2 application for sign-in; no owners, nothing served
    "signin-setup": [
        "--url",
        "--token-file",
        "--timeout",
        "--log-level",
        "--ca-bundle",
        "--insecure",
        "--public-url",
        "--oauth-client-id",
        "--oauth-key-file",
    ],
}
PAIRS = [(command, flag) for command in COMMANDS for flag, *_ in FLAGS]


def test_the_table_covers_every_global_flag_and_command() -> None:
    listed = {flag for flag in _value_flags(build_parser()) if flag not in ("-h", "--help", "--version")}
    assert listed == {flag for flag, *_ in FLAGS} == set(CONNECTION + HTTP + SIGNIN + OBSERVE)
    assert set(OPERANDS) == set(USED) == set(COMMANDS)


@pytest.mark.parametrize(("command", "flag"), [pair for pair in PAIRS if pair[1] in USED[pair[0]]])
@pytest.mark.parametrize("where", ["before", "after"])
def test_global_flags_work_before_and_after_the_command(command: str, flag: str, where: str) -> None:
    typed, attribute, value = next((t, a, v) for f, t, a, v in FLAGS if f == flag)
    given = [flag] if typed is None else [flag, typed]
    command_line = [command, *OPERANDS[command]]
    argv = [*given, *command_line] if where == "before" else [*command_line, *given]
    ns = parse_args(argv)
    assert ns.command == command and getattr(ns, attribute) == value


@pytest.mark.parametrize(("command", "flag"), [pair for pair in PAIRS if pair[1] not in USED[pair[0]]])
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_flag_the_command_would_ignore_is_refused(
    command: str, flag: str, where: str, capfd: pytest.CaptureFixture[str]
) -> None:
    typed = next(t for f, t, *_ in FLAGS if f == flag)
    given = [flag] if typed is None else [flag, typed]
    command_line = [command, *OPERANDS[command]]
    argv = [*given, *command_line] if where == "before" else [*command_line, *given]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capfd.readouterr()
    assert (exited.value.code, out) == (USAGE, "")
    assert err.startswith(f"gitea-issues-mcp: {flag} does nothing for {command} (") and err.endswith("; remove it.\n")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "command", "attribute", "value"),
    [
        pytest.param([], "serve", "url", None, id="nothing-is-serve"),
        pytest.param(["--url", "https://g.example"], "serve", "url", "https://g.example", id="flags-only-is-serve"),
        pytest.param(["--url=https://g.example", "check"], "check", "url", "https://g.example", id="flag=value"),
        pytest.param(["--allowed-o", "acme", "check"], "check", "allowed_owners", "acme", id="abbreviated-flag"),
        pytest.param(
            ["--url", "https://a", "check", "--url", "https://b"], "check", "url", "https://b", id="later-wins"
        ),
    ],
)
def test_where_the_command_is(argv: list[str], command: str, attribute: str, value: Any) -> None:
    ns = parse_args(argv)
    assert ns.command == command and getattr(ns, attribute) == value


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        pytest.param(["chek"], "no command 'chek'; did you mean check?", id="typo"),
        pytest.param(["--url", "http://x", "serv"], "no command 'serv'; did you mean serve?", id="after-a-flag"),
        pytest.param(["confg", "vscode"], "no command 'confg'; did you mean config?", id="with-operands"),
        pytest.param(["frobnicate"], "no command 'frobnicate'.", id="nothing-close"),
    ],
)
def test_an_unknown_command_is_named_with_the_closest(
    argv: list[str], said: str, capfd: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capfd.readouterr()
    assert exited.value.code == USAGE and out == ""
    commands = "serve, demo, check, config, call, signin-setup"
    assert err == f"gitea-issues-mcp: {said} Commands: {commands}.\n", "one line, on stderr"


@pytest.mark.parametrize("argv", [["--version"], *([command, "--version"] for command in COMMANDS)])
def test_version_before_or_after_the_command(argv: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0 and capfd.readouterr().out == f"gitea-issues-mcp {__version__}\n"
