"""Command-line mistakes: (argv, environment) → exit 2 and one plain sentence on stderr, nothing on stdout.

Never a traceback, never argparse's own wording ("unrecognized arguments", "invalid choice", a usage block), and a
flag a command would ignore is refused rather than silently dropped.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest

from gitea_mcp.cli.main import CANNOT_LISTEN, COMMANDS, USAGE, main
from tests.cli.process import CLOSED_GITEA, Running, clean_env

PROG = "gitea-issues-mcp"
PORT_RANGE = "use 1 to 65535 (or 0 for any free port)"
DEMO_OWN = "it brings its own Gitea stand-in, token and owners"
SERVES_NOTHING = "it serves nothing: it tests the connection to Gitea"
IN_PROCESS = "it runs one tool in this process and serves nothing"
STDIO_LAUNCH = "the client starts the server on stdio; for a remote server use --remote URL (sign-in) or --http URL"


def run(
    argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> tuple[int | str | None, str, str]:
    """The exit code (main's, or a SystemExit's: argparse exits so), stdout and stderr."""
    for name in list(os.environ):
        if name.startswith("GITEA_"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code: int | str | None
    try:
        code = main(argv)
    except SystemExit as exited:
        code = exited.code
    out, err = capfd.readouterr()
    return code, out, err


CASES = [
    # 6. a port out of range: the same sentence and exit code from the flag and from the environment
    pytest.param(["--transport", "http", "--port", "99999"], CLOSED_GITEA,
                 f"--port '99999' is not a port number; {PORT_RANGE}.", id="port-flag-too-big"),
    pytest.param(["--transport", "http", "--port", "-1"], CLOSED_GITEA,
                 f"--port '-1' is not a port number; {PORT_RANGE}.", id="port-flag-negative"),
    pytest.param(["serve", "--port=abc"], CLOSED_GITEA,
                 f"--port 'abc' is not a port number; {PORT_RANGE}.", id="port-flag-word"),
    pytest.param(["--transport", "http"], {**CLOSED_GITEA, "GITEA_MCP_PORT": "99999"},
                 f"GITEA_MCP_PORT='99999' is not a port number; {PORT_RANGE}.", id="port-env-too-big"),
    pytest.param(["--transport", "http", "--calls-per-token", "0"], CLOSED_GITEA,
                 "--calls-per-token '0' is not a whole number from 1 to 40.",
                 id="calls-per-token-flag-zero"),
    pytest.param(["--transport", "http"], {**CLOSED_GITEA, "GITEA_MCP_CALLS_PER_TOKEN": "half"},
                 "GITEA_MCP_CALLS_PER_TOKEN='half' is not a whole number from 1 to 40.", id="calls-per-token-env-word"),
    pytest.param(["--timeout", "soon", "check"], CLOSED_GITEA,
                 "--timeout 'soon' is not a number of seconds (e.g. --timeout 30).", id="timeout-flag-word"),
    # 8. a misspelt flag is named as such, never blamed on its value
    pytest.param(["--tokn", "x", "check"], CLOSED_GITEA, "unknown flag --tokn; did you mean --token-file?", id="typo"),
    pytest.param(["check", "--urk", "http://x"], CLOSED_GITEA, "unknown flag --urk; did you mean --url?",
                 id="typo-after"),
    pytest.param(["--bogus"], CLOSED_GITEA, f"unknown flag --bogus; {PROG} --help lists the flags.", id="unknown"),
    pytest.param(["--read-only=true", "check"], CLOSED_GITEA,
                 "--read-only is a switch and takes no value; write --read-only alone.", id="switch-with-value"),
    pytest.param(["call", "issue_list", "--owner", "x"], CLOSED_GITEA,
                 "unknown flag --owner; call takes the tool's arguments as KEY=VALUE: write owner=x.",
                 id="call-flag-for-argument"),
    pytest.param(["--transport", "htp"], CLOSED_GITEA, "--transport 'htp' is not a transport; use stdio or http.",
                 id="transport-flag"),
    pytest.param([], {**CLOSED_GITEA, "GITEA_MCP_TRANSPORT": "htp"},
                 "GITEA_MCP_TRANSPORT='htp' is not a transport; use stdio or http.", id="transport-env"),
    pytest.param(["serve", "--allowed", "x"], CLOSED_GITEA,
                 "--allowed is ambiguous: --allowed-owners or --allowed-hosts; write it in full.", id="ambiguous"),
    pytest.param(["check", "--url"], CLOSED_GITEA, "--url needs a value; write --url URL.", id="missing-value"),
    pytest.param(["check", "extra"], CLOSED_GITEA,
                 f"check takes no 'extra'; {PROG} check --help says what it takes.", id="extra-operand"),
    pytest.param(["call"], CLOSED_GITEA,
                 f"call needs TOOL; {PROG} call --help says what it takes.", id="call-without-tool"),
    pytest.param(["check"], {},
                 "GITEA_URL and GITEA_ALLOWED_OWNERS are not set: point GITEA_URL at your Gitea (e.g. "
                 "GITEA_URL=https://gitea.example.com) and name the owners agents may use in GITEA_ALLOWED_OWNERS "
                 "(e.g. GITEA_ALLOWED_OWNERS=acme,alice, or '*' for every owner).", id="all-missing-at-once"),
    pytest.param(["check"], {"GITEA_READ_ONLY": "treu", "GITEA_TIMEOUT": "soon"},
                 "GITEA_URL and GITEA_ALLOWED_OWNERS are not set: point GITEA_URL at your Gitea (e.g. "
                 "GITEA_URL=https://gitea.example.com) and name the owners agents may use in GITEA_ALLOWED_OWNERS "
                 "(e.g. GITEA_ALLOWED_OWNERS=acme,alice, or '*' for every owner); GITEA_READ_ONLY='treu' is not true "
                 "or false; use true or false (also 1/0, yes/no, on/off); GITEA_TIMEOUT='soon' is not a number of "
                 "seconds (e.g. GITEA_TIMEOUT=30).", id="every-problem-at-once"),
    # 9. a flag the command would ignore is refused
    pytest.param(["demo", "--url", "http://x", "--allowed-owners", "foo"], {},
                 f"--url does nothing for demo ({DEMO_OWN}); remove it.", id="demo-url"),
    pytest.param(["--allowed-owners", "foo", "demo"], {},
                 f"--allowed-owners does nothing for demo ({DEMO_OWN}); remove it.", id="demo-owners-before"),
    pytest.param(["demo", "--read-only"], {},
                 "--read-only does nothing for demo without --serve (the scripted session makes its own calls); "
                 "add --serve, or remove it.", id="demo-read-only"),
    pytest.param(["demo", "--port", "8001"], {},
                 "--port does nothing for demo without --serve (the scripted session makes its own calls); "
                 "add --serve, or remove it.", id="demo-port"),
    pytest.param(["demo", "--serve", "--http-secret-file", "s"], {},
                 "--http-secret-file does nothing for demo (each request sends the stand-in's token itself); remove "
                 "it.", id="demo-secret"),
    # check takes --host and --port (the listener a public URL must reach; issue 39), not the rest of HTTP's
    pytest.param(["check", "--allowed-hosts", "x"], CLOSED_GITEA,
                 f"--allowed-hosts does nothing for check ({SERVES_NOTHING}); remove it.", id="check-allowed-hosts"),
    pytest.param(["--max-body", "1000", "check"], CLOSED_GITEA,
                 f"--max-body does nothing for check ({SERVES_NOTHING}); remove it.", id="check-limit-before"),
    pytest.param(["call", "issue_list", "--transport", "http"], CLOSED_GITEA,
                 f"--transport does nothing for call ({IN_PROCESS}); remove it.", id="call-transport"),
    pytest.param(["config", "vscode", "--allowed-h", "x"], {},
                 f"--allowed-hosts does nothing for config ({STDIO_LAUNCH}); remove it.", id="config-abbreviated"),
    pytest.param(["config", "vscode", "--token-file", "x"], {},
                 "--token-file does nothing for config (it never writes the token: the client asks for it); remove "
                 "it.", id="config-token"),
    # serve takes every setting: what it refuses is another command's own flag, named with where it belongs (this
    # was a KeyError traceback)
    pytest.param(["serve", "--json"], CLOSED_GITEA,
                 f"--json does nothing for serve (another command's flag: {PROG} call --help); remove it.",
                 id="serve-json"),
    pytest.param(["--launcher", "python"], CLOSED_GITEA,
                 f"--launcher does nothing for serve (another command's flag: {PROG} config --help); remove it.",
                 id="serve-launcher-no-command"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "env", "sentence"), CASES)
def test_a_mistake_is_one_sentence_and_exit_2(
    argv: list[str],
    env: dict[str, str],
    sentence: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(argv, env, monkeypatch, capfd)
    assert (code, out, err) == (USAGE, "", f"{PROG}: {sentence}\n")


# Which flags each command's --help lists: the ones it uses, and no other.
HTTP_ONLY = ["--host", "--port", "--allowed-hosts", "--http-secret-file"]
HELP = {
    "serve": (["--url", "--token-file", "--read-only", "--transport", *HTTP_ONLY], []),
    "check": (["--url", "--token-file", "--read-only", "--transport", "--host", "--port"], HTTP_ONLY[2:]),
    "call": (["--url", "--token-file", "--read-only", "--json"], ["--transport", *HTTP_ONLY]),
    "signin-setup": (["--url", "--token-file", "--public-url", "--oauth-client-id", "--rotate", "--public"],
                     ["--read-only", "--transport", "--oauth-client-secret-file", *HTTP_ONLY]),
    "config": (["--url", "--allowed-owners", "--launcher"], ["--token-file", "--transport", *HTTP_ONLY]),
    "demo": (["--serve", "--read-only", "--port"], ["--url", "--token-file", "--allowed-owners", "--http-secret-file"]),
}  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_only_the_flags_the_command_uses(command: str, capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capfd.readouterr().out
    listed, absent = HELP[command]
    assert [flag for flag in listed if f"{flag} " not in text and f"{flag}\n" not in text] == []
    assert [flag for flag in absent if f"{flag} " in text or f"{flag}\n" in text] == []


def test_call_help_lists_the_tools(capfd: pytest.CaptureFixture[str]) -> None:
    from gitea_mcp.toolkit.registry import offered

    with pytest.raises(SystemExit):
        main(["call", "--help"])
    text = capfd.readouterr().out
    for spec in offered(read_only=False):
        assert f"\n  {spec.name} " in text, spec.name


def test_a_port_in_use_is_named_with_the_remedy() -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:  # held listening throughout: in use, by us
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "gitea_mcp", "--transport", "http", "--port", str(port)],
            env=clean_env(**CLOSED_GITEA),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert (done.returncode, done.stdout) == (CANNOT_LISTEN, "")
    assert done.stderr == (
        f"{PROG}: port {port} on 127.0.0.1 is in use by another program; stop it, or choose a free port with "
        "--port or GITEA_MCP_PORT.\n"
    )


@pytest.mark.parametrize(
    ("host", "sentence"),
    [
        pytest.param(
            "10.255.255.1", "cannot listen on 10.255.255.1: it is not an address of this machine; ", id="foreign"
        ),
        pytest.param("nosuch.invalid", "cannot listen on nosuch.invalid: no such host name; ", id="unresolvable"),
    ],
)
def test_a_host_it_cannot_listen_on_is_named(host: str, sentence: str) -> None:
    from gitea_mcp.server.http import listening_socket
    from gitea_mcp.settings import CannotListen

    with pytest.raises(CannotListen) as refused:
        listening_socket(host, 0)
    fix = "set --host or GITEA_MCP_HOST to one of this machine's addresses (127.0.0.1, or 0.0.0.0 for all of them)."
    assert str(refused.value) == sentence + fix


@pytest.mark.skipif(sys.platform == "win32", reason="ptys")
def test_demo_serve_on_a_terminal_does_not_suggest_the_demo() -> None:
    main_end, replica = os.openpty()
    try:
        running = Running(["demo", "--serve"], clean_env(), stdin=replica)
        try:
            first = running.err_line()
            assert first.startswith(f"{PROG} demo: serving MCP on stdio against the stand-in at http://127.0.0.1:")
            line = running.err_line()
            assert line == (
                f"{PROG}: speaking MCP on stdio, waiting for an MCP client on stdin (Ctrl-C stops). Client setup: "
                f"{PROG} config --help; all options: {PROG} demo --help\n"
            )
            assert running.signal(signal.SIGINT) == 130
        finally:
            running.kill()
    finally:
        os.close(main_end)
        os.close(replica)
