"""`config` and the client snippets: each parses as its client's format, with the token kept out of it."""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from gitea_mcp.cli import client_entries
from gitea_mcp.cli.client_entries import PLACEHOLDER_REMOTE, Setup, Snippet, remote_endpoint, snippets
from gitea_mcp.cli.launch import launch
from gitea_mcp.cli.main import main
from tests.support import TOKEN
from tests.support.readme import readme_sections

README = Path(__file__).resolve().parents[2] / "README.md"
CLIENTS_DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
PYTHON = Setup(command="/opt/py/bin/python3", args=("-m", "gitea_mcp"))
SETUPS = {
    "uvx": Setup(),
    "python": PYTHON,
    "remote": Setup(remote_url=PLACEHOLDER_REMOTE),
}
# How each client keeps the token out of its file: the value it gets instead (stdio env, remote header).
TOKEN_REFERENCES = {
    "claude-desktop": "<your Gitea token>",
    "claude-code": "${GITEA_TOKEN}",
    "vscode": "${input:gitea-token}",
    "cursor": "${env:GITEA_TOKEN}",
    "windsurf": "${env:GITEA_TOKEN}",
    "gemini": "${GITEA_TOKEN}",
    "zed": "<your Gitea token>",
}
# The settings besides URL and owners a stdio client must pass on when they are not the default.
CARRIED = ("GITEA_READ_ONLY", "GITEA_TIMEOUT", "GITEA_CA_BUNDLE", "GITEA_INSECURE", "GITEA_LOG_LEVEL")
# The key under which each JSON client expects a remote server's URL.
URL_KEYS = {"claude-code": "url", "vscode": "url", "cursor": "url", "windsurf": "serverUrl", "gemini": "httpUrl",
            "zed": "url"}  # fmt: skip
# Each JSON client's documented top-level key for its servers.
TOP_KEYS = {"vscode": "servers", "zed": "context_servers"}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITEA_URL", "GITEA_HOST", "GITEA_ALLOWED_OWNERS", *CARRIED):
        monkeypatch.delenv(name, raising=False)
    # The token is set, so a snippet that read it would show it; the suite-wide fixture then fails the test.
    monkeypatch.setenv("GITEA_TOKEN", TOKEN)


def parsed(snippet: Snippet) -> Any:
    if snippet.language == "json":
        return json.loads(snippet.text)
    if snippet.language == "toml":
        return tomllib.loads(snippet.text)
    assert snippet.language == "sh"
    return shlex.split(snippet.text)


def server_entry(client: str, setup: Setup) -> dict[str, Any]:
    """The `gitea` server entry from the client's configuration file, found under its own top-level key."""
    document = parsed(snippets(client, setup)[-1])
    if client == "codex":
        return dict(document["mcp_servers"]["gitea"])
    key = TOP_KEYS.get(client, "mcpServers")
    vscode = {"servers"} if setup.signin else {"inputs", "servers"}  # a sign-in asks for no token
    assert set(document) == (vscode if client == "vscode" else {key})
    return dict(document[key]["gitea"])


@pytest.mark.parametrize("setup", SETUPS.values(), ids=list(SETUPS))
@pytest.mark.parametrize("client", client_entries.CLIENTS)
def test_every_snippet_parses_without_a_token(client: str, setup: Setup) -> None:
    for snippet in snippets(client, setup):
        assert parsed(snippet)
        assert TOKEN not in snippet.text
    assert server_entry(client, setup)


@pytest.mark.parametrize("client", client_entries.CLIENTS)
@pytest.mark.parametrize("launcher", ["uvx", "python"])
def test_stdio_entry_launches_the_server_with_its_settings(client: str, launcher: str) -> None:
    setup = SETUPS[launcher]
    entry = server_entry(client, Setup(gitea_url="https://git.acme.test", allowed_owners="acme,bob", **_launch(setup)))
    assert (entry["command"], entry["args"]) == (setup.command, list(setup.args))
    assert entry["env"]["GITEA_URL"] == "https://git.acme.test"
    assert entry["env"]["GITEA_ALLOWED_OWNERS"] == "acme,bob"
    if client == "codex":
        assert "GITEA_TOKEN" not in entry["env"] and entry["env_vars"] == ["GITEA_TOKEN"]
    else:
        assert entry["env"]["GITEA_TOKEN"] == TOKEN_REFERENCES[client]
    if client in ("vscode", "claude-code"):
        assert entry["type"] == "stdio"


def _launch(setup: Setup) -> dict[str, Any]:
    return {"command": setup.command, "args": setup.args}


@pytest.mark.parametrize("client", sorted(URL_KEYS))
def test_remote_entry_sends_the_token_as_a_bearer_header(client: str) -> None:
    entry = server_entry(client, SETUPS["remote"])
    assert entry[URL_KEYS[client]] == PLACEHOLDER_REMOTE
    assert entry["headers"] == {"Authorization": f"Bearer {TOKEN_REFERENCES[client]}"}
    assert "command" not in entry


def test_vscode_prompts_for_the_token_as_a_password() -> None:
    for setup in SETUPS.values():
        document = parsed(snippets("vscode", setup)[0])
        assert document["inputs"] == [
            {"type": "promptString", "id": "gitea-token", "description": "Gitea access token", "password": True}
        ]


def test_codex_remote_uses_bearer_token_env_var() -> None:
    entry = server_entry("codex", SETUPS["remote"])
    assert entry == {"url": PLACEHOLDER_REMOTE, "bearer_token_env_var": "GITEA_TOKEN"}


def test_claude_desktop_remote_bridges_through_mcp_remote() -> None:
    entry = server_entry("claude-desktop", SETUPS["remote"])
    assert entry["command"] == "npx"
    assert entry["args"] == ["-y", "mcp-remote", PLACEHOLDER_REMOTE, "--header", "Authorization:${AUTH_HEADER}"]
    assert entry["env"] == {"AUTH_HEADER": "Bearer <your Gitea token>"}


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        pytest.param(
            Setup(gitea_url="https://git.acme.test", allowed_owners="acme"),
            [
                *("claude", "mcp", "add", "--transport", "stdio", "gitea"),
                *("--env", "GITEA_URL=https://git.acme.test", "--env", "GITEA_ALLOWED_OWNERS=acme"),
                *("--env", "GITEA_TOKEN=${GITEA_TOKEN}", "--", "uvx", "gitea-issues-mcp"),
            ],
            id="stdio",
        ),
        pytest.param(
            Setup(command="C:\\Program Files\\Python\\python.exe", args=("-m", "gitea_mcp"), allowed_owners="a b"),
            [
                *("claude", "mcp", "add", "--transport", "stdio", "gitea"),
                *("--env", f"GITEA_URL={client_entries.PLACEHOLDER_URL}", "--env", "GITEA_ALLOWED_OWNERS=a b"),
                *("--env", "GITEA_TOKEN=${GITEA_TOKEN}", "--"),
                *("C:\\Program Files\\Python\\python.exe", "-m", "gitea_mcp"),
            ],
            id="python-path-with-spaces",
        ),
        pytest.param(
            SETUPS["remote"],
            [
                *("claude", "mcp", "add", "--transport", "http", "gitea", PLACEHOLDER_REMOTE),
                *("--header", "Authorization: Bearer ${GITEA_TOKEN}"),
            ],
            id="remote",
        ),
    ],
)
def test_claude_code_command_line(setup: Setup, expected: list[str]) -> None:
    command = snippets("claude-code", setup)[0]
    assert command.language == "sh" and shlex.split(command.text) == expected
    # Single quotes keep the shell from expanding the token into Claude Code's config file.
    assert "'GITEA_TOKEN=${GITEA_TOKEN}'" in command.text or "'Authorization: Bearer ${GITEA_TOKEN}'" in command.text


@pytest.mark.parametrize("setup", [*SETUPS.values(), Setup(settings=(("GITEA_READ_ONLY", "true"),))])
def test_claude_code_line_puts_no_operand_after_a_variadic_flag(setup: Setup) -> None:
    """`claude mcp add`'s --env and --header take several values: a word after one would be swallowed by it
    (the server's name was, before)."""
    argv = shlex.split(snippets("claude-code", setup)[0].text)
    for at, word in enumerate(argv):
        if word in ("--env", "-e", "--header", "-H"):
            assert argv[at + 2 : at + 3] in ([], ["--"], [word]), argv


@pytest.mark.parametrize(
    ("url", "owners"),
    [
        ('https://git.acme.test/a "quoted" path\\', "acme"),
        ("https://gitea.example.com", "Ärger,ünïcode"),
        ("https://gitea.example.com", "tab\there"),
    ],
)
def test_codex_toml_round_trips_odd_values(url: str, owners: str) -> None:
    entry = server_entry("codex", Setup(gitea_url=url, allowed_owners=owners))
    assert entry["env"] == {"GITEA_URL": url, "GITEA_ALLOWED_OWNERS": owners}


@pytest.mark.parametrize(
    ("given", "endpoint"),
    [
        ("https://mcp.example.com", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/mcp/", "https://mcp.example.com/mcp"),
        (" http://127.0.0.1:8000/gitea ", "http://127.0.0.1:8000/gitea/mcp"),
    ],
)
def test_remote_endpoint(given: str, endpoint: str) -> None:
    assert remote_endpoint(given) == endpoint


def config(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    """stdout: the file's content alone; stderr: the `#` notes."""
    assert main(["config", *argv]) == 0
    out, err = capfd.readouterr()
    return out, err


@pytest.mark.parametrize("client", client_entries.CLIENTS)
@pytest.mark.parametrize(
    "mode", [[], ["--launcher", "python"], ["--launcher", "uvx"], ["--http", "https://mcp.acme.test"]]
)
def test_config_command_prints_the_snippets(client: str, mode: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    out, err = config(capfd, client, *mode)
    found = snippets(client, _setup_for(mode))
    file = next(snippet for snippet in reversed(found) if snippet.language != "sh")
    assert out == file.text + "\n"
    assert err.startswith(f"# {client_entries.CLIENTS[client].title}: ") and f"# stdout → {file.where}" in err
    assert TOKEN not in out + err


def _setup_for(mode: list[str]) -> Setup:
    if mode[:1] == ["--http"]:
        return Setup(remote_url="https://mcp.acme.test/mcp")
    how = launch(mode[1] if mode else "installed")  # in-process, this copy runs as this interpreter
    return Setup(command=how.command, args=how.args)


@pytest.mark.parametrize(
    ("env", "argv", "url", "owners"),
    [
        pytest.param({}, [], client_entries.PLACEHOLDER_URL, client_entries.PLACEHOLDER_OWNERS, id="placeholders"),
        pytest.param(
            {"GITEA_URL": "https://git.env.test", "GITEA_ALLOWED_OWNERS": "envorg"},
            [],
            "https://git.env.test",
            "envorg",
            id="environment",
        ),
        pytest.param({"GITEA_HOST": "https://go.env.test"}, [], "https://go.env.test", "your-org", id="go-name"),
        pytest.param(
            {"GITEA_URL": "https://git.env.test", "GITEA_ALLOWED_OWNERS": "envorg"},
            ["--url", "https://flag.test", "--allowed-owners", "flagorg"],
            "https://flag.test",
            "flagorg",
            id="flags-win",
        ),
    ],
)
def test_config_fills_in_settings(
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    argv: list[str],
    url: str,
    owners: str,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out, _ = config(capfd, "cursor", *argv)
    entry = json.loads(out)["mcpServers"]["gitea"]
    assert entry["env"] == {"GITEA_URL": url, "GITEA_ALLOWED_OWNERS": owners, "GITEA_TOKEN": "${env:GITEA_TOKEN}"}


@pytest.mark.parametrize(
    "argv",
    [["nosuchclient"], ["vscode", "--http", "mcp.example.com"], ["vscode", "--launcher", "npx"], []],
)
def test_config_refuses_bad_arguments(capfd: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["config", *argv])
    assert exit_.value.code == 2
    assert capfd.readouterr().out == ""


def test_readme_sections_cover_every_client_in_both_modes() -> None:
    text = readme_sections()
    for name, client in client_entries.CLIENTS.items():
        assert f"### {client.title}\n" in text and f"`gitea-issues-mcp config {name}`" in text
        for setup in (client_entries.LINKED, Setup(remote_url=PLACEHOLDER_REMOTE)):
            for snippet in snippets(name, setup):
                assert f"```{snippet.language}\n{snippet.text}\n```" in text
    assert TOKEN not in text


def test_the_docs_launch_the_installed_command_never_an_unpublished_package() -> None:
    """The package is on no index: `uvx gitea-issues-mcp` (or pipx's, pip's) finds nothing, so no documented entry
    launches it by name from an index; each launches the command a clone's or wheel's install put on PATH."""
    text = readme_sections()
    assert "uvx gitea-issues-mcp" not in text and '"uvx"' not in text
    for name in client_entries.CLIENTS:
        entry = server_entry(name, client_entries.LINKED)
        assert (entry["command"], list(entry["args"])) == ("gitea-issues-mcp", []), name


def test_clients_doc_has_the_generated_client_sections() -> None:
    """docs/clients.md carries readme_sections() verbatim between the markers: the docs cannot drift from `config`."""
    doc = CLIENTS_DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- clients:start -->\n(.*?)<!-- clients:end -->", doc, re.DOTALL)
    assert found, "docs/clients.md lacks the <!-- clients:start --> ... <!-- clients:end --> markers"
    if os.environ.get("UPDATE_README"):
        CLIENTS_DOC.write_text(doc[: found.start(1)] + readme_sections() + doc[found.end(1) :], encoding="utf-8")
        return
    assert found.group(1) == readme_sections(), "the client sections changed: review, then UPDATE_README=1"


def _stdio_env(client: str, out: str, err: str) -> dict[str, str]:
    """The environment a client gives the server, from `config`'s stdout (and the terminal line, for Claude Code)."""
    document = tomllib.loads(out) if client == "codex" else json.loads(out)
    if client == "codex":
        return dict(document["mcp_servers"]["gitea"]["env"])
    entry = document[TOP_KEYS.get(client, "mcpServers")]["gitea"]
    if client == "claude-code":  # the terminal line carries the same environment
        line = next(line.removeprefix("#   ") for line in err.splitlines() if line.startswith("#   claude mcp add"))
        argv = shlex.split(line)
        assert dict(argv[at + 1].split("=", 1) for at, word in enumerate(argv) if word == "--env") == entry["env"]
    return dict(entry["env"])


# (flags, environment, the variable written and its value); "{cwd}" is the directory `config` runs in.
NON_DEFAULT = {
    "read-only-flag": (["--read-only"], {}, "GITEA_READ_ONLY", "true"),
    "read-only-env": ([], {"GITEA_READ_ONLY": "yes"}, "GITEA_READ_ONLY", "true"),
    # Issue 39: the official Go server's name, carried under ours (it was dropped, and the client offered writes).
    "read-only-go-name": ([], {"GITEA_READONLY": "true"}, "GITEA_READ_ONLY", "true"),
    "timeout-flag": (["--timeout", "5"], {}, "GITEA_TIMEOUT", "5"),
    "timeout-env": ([], {"GITEA_TIMEOUT": "12.5"}, "GITEA_TIMEOUT", "12.5"),
    "ca-bundle-flag": (["--ca-bundle", "ca.pem"], {}, "GITEA_CA_BUNDLE", "{cwd}/ca.pem"),
    "ca-bundle-env": ([], {"GITEA_CA_BUNDLE": "ca.pem"}, "GITEA_CA_BUNDLE", "{cwd}/ca.pem"),
    "insecure-flag": (["--insecure"], {}, "GITEA_INSECURE", "true"),
    "insecure-env": ([], {"GITEA_INSECURE": "true"}, "GITEA_INSECURE", "true"),
    "log-level-flag": (["--log-level", "debug"], {}, "GITEA_LOG_LEVEL", "DEBUG"),
    "log-level-env": ([], {"GITEA_LOG_LEVEL": "INFO"}, "GITEA_LOG_LEVEL", "INFO"),
    "toolsets-flag": (["--toolsets", "Issues"], {}, "GITEA_TOOLSETS", "issues"),
    "toolsets-env": ([], {"GITEA_TOOLSETS": "people, issues"}, "GITEA_TOOLSETS", "issues,people"),
}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("case", NON_DEFAULT.values(), ids=list(NON_DEFAULT))
@pytest.mark.parametrize("client", client_entries.CLIENTS)
def test_config_carries_every_non_default_setting(
    client: str,
    case: tuple[list[str], dict[str, str], str, str],
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    in_tmp: Path,
) -> None:
    flags, env, name, value = case
    for key, raw in env.items():
        monkeypatch.setenv(key, raw)
    out, err = config(capfd, client, "--url", "https://git.acme.test", "--allowed-owners", "acme", *flags)
    written = _stdio_env(client, out, err)
    assert written[name] == value.replace("{cwd}", str(in_tmp))
    assert set(written) - {"GITEA_URL", "GITEA_ALLOWED_OWNERS", "GITEA_TOKEN"} == {name}, "only what was set"


@pytest.mark.parametrize("client", client_entries.CLIENTS)
def test_config_leaves_out_settings_at_their_default(
    client: str, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    defaults = {
        "GITEA_READ_ONLY": "false",
        "GITEA_INSECURE": "0",
        "GITEA_LOG_LEVEL": "warning",
        "GITEA_TOOLSETS": "all",
    }
    for key, raw in defaults.items():
        monkeypatch.setenv(key, raw)
    out, err = config(capfd, client, "--url", "https://git.acme.test", "--allowed-owners", "acme", "--timeout", "30")
    assert set(_stdio_env(client, out, err)) <= {"GITEA_URL", "GITEA_ALLOWED_OWNERS", "GITEA_TOKEN"}


@pytest.mark.parametrize("case", NON_DEFAULT.values(), ids=list(NON_DEFAULT))
def test_remote_config_says_the_servers_settings_are_not_written(
    case: tuple[list[str], dict[str, str], str, str],
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    in_tmp: Path,
) -> None:
    """A remote server reads its settings where it runs; the client's file has no place for them. Said, not dropped."""
    flags, env, name, _ = case
    for key, raw in env.items():
        monkeypatch.setenv(key, raw)
    out, err = config(capfd, "cursor", "--http", "https://mcp.acme.test", *flags)
    assert name not in out
    assert f"not written: {name}" in err and "where the remote server runs" in err


@pytest.mark.parametrize(
    ("flags", "env", "said"),
    [
        pytest.param([], {"GITEA_READ_ONLY": "treu"}, "GITEA_READ_ONLY='treu' is not true or false", id="bad-boolean"),
        pytest.param(
            [], {"GITEA_TIMEOUT": "soon"}, "GITEA_TIMEOUT='soon' is not a number of seconds", id="bad-timeout"
        ),
        pytest.param(["--timeout", "0"], {}, "GITEA_TIMEOUT must be a positive number", id="zero-timeout"),
        pytest.param(["--ca-bundle", "missing.pem"], {}, "is not a readable file", id="missing-ca"),
        pytest.param(["--log-level", "loud"], {}, "GITEA_LOG_LEVEL='loud' is not a log level", id="bad-log-level"),
        pytest.param(
            [],
            {"GITEA_TOOLSETS": "lables"},
            "GITEA_TOOLSETS entry 'lables' is not a toolset; did you mean labels?",
            id="unknown-toolset",
        ),
    ],
)
def test_config_refuses_a_setting_the_server_would_refuse(
    flags: list[str],
    env: dict[str, str],
    said: str,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    in_tmp: Path,
) -> None:
    for key, raw in env.items():
        monkeypatch.setenv(key, raw)
    assert main(["config", "cursor", "--url", "https://git.acme.test", "--allowed-owners", "acme", *flags]) == 2
    out, err = capfd.readouterr()
    assert out == "" and said in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "placeholders"),
    [
        pytest.param([], ["GITEA_URL=https://gitea.example.com", "GITEA_ALLOWED_OWNERS=your-org"], id="nothing-set"),
        pytest.param(["--url", "https://git.acme.test"], ["GITEA_ALLOWED_OWNERS=your-org"], id="owners-missing"),
        pytest.param(["--allowed-owners", "acme"], ["GITEA_URL=https://gitea.example.com"], id="url-missing"),
        pytest.param(["--url", "https://git.acme.test", "--allowed-owners", "acme"], [], id="both-set"),
        pytest.param(["--http", "https://mcp.acme.test"], [], id="remote"),
    ],
)
@pytest.mark.parametrize("client", client_entries.CLIENTS)
def test_config_says_which_values_are_placeholders(
    client: str, argv: list[str], placeholders: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    _, err = config(capfd, client, *argv)
    notes = [line for line in err.splitlines() if "placeholder" in line]
    if placeholders:
        assert len(notes) == 1 and notes[0].startswith("# ") and all(value in notes[0] for value in placeholders)
        assert "--url" in notes[0] or "--allowed-owners" in notes[0], "and how to fill them in"
    else:
        assert notes == []


def test_config_writes_uvx_by_its_full_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    uvx = tmp_path / "bin" / "uvx"
    uvx.parent.mkdir()
    uvx.write_text("#!/bin/sh\n")
    uvx.chmod(0o755)
    monkeypatch.setenv("PATH", str(uvx.parent))
    out, err = config(capfd, "cursor", "--launcher", "uvx")
    assert json.loads(out)["mcpServers"]["gitea"]["command"] == str(uvx)
    assert "uvx" not in "".join(line for line in err.splitlines() if "not found" in line)


def test_config_says_when_uvx_is_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    out, err = config(capfd, "cursor", "--launcher", "uvx")
    assert json.loads(out)["mcpServers"]["gitea"]["command"] == "uvx"
    said = [line for line in err.splitlines() if "uvx" in line and "not found" in line]
    assert len(said) == 1 and "PATH" in said[0] and "--launcher" in said[0], err


# -- `config CLIENT --remote URL`: the team server that signs users in with Gitea (issue 24) -----------------------

SIGNIN_GOLDEN = Path(__file__).resolve().parent / "golden" / "config_remote"
SIGNIN = Setup(remote_url=PLACEHOLDER_REMOTE, signin=True)
# What each client's file holds for such a server: its URL under the client's own key, and nothing else.
SIGNIN_ENTRIES: dict[str, dict[str, Any]] = {
    "claude-code": {"type": "http", "url": PLACEHOLDER_REMOTE},
    "vscode": {"type": "http", "url": PLACEHOLDER_REMOTE},
    "cursor": {"url": PLACEHOLDER_REMOTE},
    "windsurf": {"serverUrl": PLACEHOLDER_REMOTE},
    "gemini": {"httpUrl": PLACEHOLDER_REMOTE},
    "codex": {"url": PLACEHOLDER_REMOTE},
}


@pytest.mark.parametrize("client", sorted(SIGNIN_ENTRIES))
def test_signin_entry_is_the_url_alone(client: str) -> None:
    """No token, no header, no environment: the client finds the sign-in from the server's 401 (RFC 9728)."""
    assert server_entry(client, SIGNIN) == SIGNIN_ENTRIES[client]


def test_vscode_signin_asks_for_no_token() -> None:
    assert parsed(snippets("vscode", SIGNIN)[0]) == {"servers": {"gitea": SIGNIN_ENTRIES["vscode"]}}


def test_claude_code_signin_command_line_sends_no_header() -> None:
    argv = shlex.split(snippets("claude-code", SIGNIN)[0].text)
    assert argv == ["claude", "mcp", "add", "--transport", "http", "gitea", PLACEHOLDER_REMOTE]


def test_claude_desktop_signin_is_a_connector_not_a_bridge() -> None:
    """Claude Desktop's file takes local servers only: a remote one is a connector added in its Settings, and no
    mcp-remote bridge (which would keep the sign-in's tokens outside Claude) is suggested."""
    (connector,) = snippets("claude-desktop", SIGNIN)
    assert connector.language == "text" and connector.where.startswith("Settings → Connectors")
    assert connector.text == f"Name: gitea\nRemote MCP server URL: {PLACEHOLDER_REMOTE}"
    _, notes = client_entries.render("claude-desktop", SIGNIN)
    assert "mcp-remote" not in connector.text + notes and "npx" not in connector.text + notes


@pytest.mark.parametrize("client", client_entries.CLIENTS)
def test_config_remote_output_is_golden(client: str, capfd: pytest.CaptureFixture[str]) -> None:
    """The whole of `config CLIENT --remote URL`, stdout then stderr, as a user reads it."""
    out, err = config(capfd, client, "--remote", "https://mcp.example.com")
    text = f"$ gitea-issues-mcp config {client} --remote https://mcp.example.com\n--- stdout\n{out}--- stderr\n{err}"
    path = SIGNIN_GOLDEN / f"{client}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed; UPDATE_GOLDEN=1 and review the diff"
    for word in (TOKEN, "Authorization", "Bearer", "GITEA_TOKEN", "headers", "env"):
        assert word not in out, word


@pytest.mark.parametrize(
    ("given", "endpoint"),
    [
        ("https://mcp.example.com", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/mcp/", "https://mcp.example.com/mcp"),
        (" http://127.0.0.1:8765 ", "http://127.0.0.1:8765/mcp"),
        ("https://example.com/gitea/mcp", "https://example.com/gitea/mcp"),  # a path is the operator's: kept
    ],
)
def test_signin_endpoint(given: str, endpoint: str) -> None:
    assert client_entries.signin_endpoint(given) == endpoint


@pytest.mark.parametrize(
    ("url", "said"),
    [
        pytest.param("mcp.example.com", "'mcp.example.com' is not an http:// or https:// URL", id="no-scheme"),
        pytest.param("ftp://mcp.example.com", "'ftp://mcp.example.com' is not an http:// or https:// URL", id="ftp"),
        pytest.param("https://bob:pw@mcp.example.com", "the URL holds a user name or password", id="credentials"),
        pytest.param("https://mcp.example.com/mcp?token=x", "the URL has a query or fragment", id="query"),
        pytest.param("https://mcp.example.com/mcp#top", "the URL has a query or fragment", id="fragment"),
        pytest.param("https://mcp.example.com/mcp?", "the URL has a query or fragment", id="empty-query"),
    ],
)
def test_config_remote_refuses_a_url_in_one_sentence(url: str, said: str, capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["config", "vscode", "--remote", url])
    out, err = capfd.readouterr()
    assert (exit_.value.code, out) == (2, "")
    assert err.startswith(f"gitea-issues-mcp: --remote: {said}") and err.count("\n") == 1
    assert "pw" not in err and "token=x" not in err


def test_config_takes_remote_or_http_not_both(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["config", "vscode", "--remote", "https://a.test", "--http", "https://b.test"])
    assert exit_.value.code == 2 and capfd.readouterr().out == ""


# -- one-click install links (VS Code, Cursor) ------------------------------------------------------------------


def _decoded(link: str) -> tuple[str, dict[str, Any]]:
    """The editor's own reading of an install link: (the server's name, the file `config` would write)."""
    parts = urlsplit(link)
    query = {key: values[0] for key, values in parse_qs(parts.query, strict_parsing=True).items()}
    if link.startswith(client_entries.VSCODE_LINK):
        document: dict[str, Any] = {"servers": {query["name"]: json.loads(query["config"])}}
        if "inputs" in query:
            document = {"inputs": json.loads(query["inputs"]), **document}
        return query["name"], document
    assert (parts.scheme, parts.netloc, parts.path) == ("cursor", "anysphere.cursor-deeplink", "/mcp/install")
    return query["name"], {"mcpServers": {query["name"]: json.loads(base64.b64decode(query["config"]))}}


@pytest.mark.parametrize("client", ["vscode", "cursor"])
def test_an_install_link_adds_what_config_writes_launching_the_installed_command(
    client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Decoded as the editor decodes it, the link is `gitea-issues-mcp config CLIENT`'s file, the command aside:
    the link names the installed command (it cannot know where the reader's copy is), `config` its full path."""
    installed = tmp_path / "bin" / "gitea-issues-mcp"  # a copy installed by pipx or into a venv
    installed.parent.mkdir()
    installed.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(installed)])
    written = json.loads(config(capfd, client)[0])
    name, linked = _decoded(client_entries.install_link(client))
    key = TOP_KEYS.get(client, "mcpServers")
    assert name == "gitea" and written[key]["gitea"].pop("command") == str(installed)
    assert linked[key]["gitea"].pop("command") == "gitea-issues-mcp"
    assert linked == written


def test_the_readme_carries_the_install_links() -> None:
    readme = README.read_text(encoding="utf-8")
    for client in ("vscode", "cursor"):
        assert f"]({client_entries.install_link(client)})" in readme, client
    with pytest.raises(ValueError, match="only vscode and cursor"):
        client_entries.install_link("zed")
