"""Other Gitea/Forgejo MCP servers' settings (issue 39): docs/migrating.md's table held to the declarations, each
alias read as its setting, two names of one setting at odds refused, unknown variables reported with the nearest
name, and the stumbles reproduced from a fresh HOME (`GITEA_READONLY=true` was ignored: the write tools stayed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gitea_mcp.cli import foreign
from gitea_mcp.cli.main import (
    SETTINGS,
    _debug,
    environment_notes,
    from_environment,
    known_variables,
    parse_args,
    settings_from,
)
from gitea_mcp.settings import ConfigError
from tests.cli.process import CLOSED_GITEA, clean_env

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "migrating.md").read_text(encoding="utf-8")
NONE = "—"


def _table(heading: str) -> list[list[str]]:
    section = DOC[DOC.index(heading) :]
    rows = []
    for line in section.splitlines()[2:]:
        if line.startswith("## "):
            break
        if line.startswith("|") and not line.startswith(("|---", "| Theirs")):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`\s]+)", cell)


VARIABLES = _table("## Environment variables")
FLAGS = _table("## Flags")
OURS = {name for setting in SETTINGS.values() for name in setting.env}
BY_VARIABLE = {name: setting for setting in SETTINGS.values() for name in setting.env}
# A value each of our settings reads as itself.
VALUES = {
    "GITEA_URL": "https://git.example.test",
    "GITEA_TOKEN": "0123456789abcdef0123456789abcdef01234567",
    "GITEA_READ_ONLY": "true",
    "GITEA_INSECURE": "true",
    "GITEA_MCP_TRANSPORT": "http",
    "GITEA_MCP_HOST": "127.0.0.2",
    "GITEA_MCP_PORT": "8123",
    "GITEA_TIMEOUT": "12",
    "GITEA_MCP_PUBLIC_URL": "https://mcp.example.test",
    "GITEA_MCP_OAUTH_CLIENT_ID": "0d7c1b52-1b1e-4c1b-9c38-3f1f4c7c0e55",
    "GITEA_MCP_OAUTH_CLIENT_SECRET": "gto_abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst",
}


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith(("GITEA_", "FORGEJO_")) or name == "MCP_MODE":
            monkeypatch.delenv(name)


def test_the_table_has_rows_and_every_name_here_is_declared() -> None:
    assert len(VARIABLES) >= 25 and len(FLAGS) >= 10
    for theirs, _, here, _ in VARIABLES:
        assert here == NONE or set(_names(here)) <= OURS, (theirs, here)


def test_every_alias_and_unmatched_setting_has_its_row() -> None:
    listed = {name for row in VARIABLES for name in _names(row[0])}
    aliases = {name for s in SETTINGS.values() for name in (*s.aliases, *s.alias_files)}
    assert aliases | set(foreign.DEBUG_SWITCHES) | set(foreign.NO_EQUIVALENT) | set(foreign.ORIGIN) <= listed
    flags = {name for row in FLAGS for name in _names(row[0])}
    assert set(foreign.FLAG_HINTS) <= flags


@pytest.mark.parametrize(
    ("theirs", "here"), [(r[0], r[2]) for r in VARIABLES if r[2] != NONE and _names(r[2])[0] != "GITEA_LOG_LEVEL"]
)
def test_each_of_theirs_is_read_as_ours(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, theirs: str, here: str
) -> None:
    name, ours = _names(theirs)[0], _names(here)[0]
    setting = BY_VARIABLE[ours]
    value = VALUES[ours]
    if name.endswith("_FILE"):  # theirs names a file holding the secret
        held = tmp_path / "held"
        held.write_text(value + "\n")
        monkeypatch.setenv(name, str(held))
    else:
        monkeypatch.setenv(name, value)
    assert from_environment(setting) == (value, name)


@pytest.mark.parametrize("switch", foreign.DEBUG_SWITCHES)
def test_their_debug_switch_is_the_debug_level(monkeypatch: pytest.MonkeyPatch, switch: str) -> None:
    assert _debug() is None
    monkeypatch.setenv(switch, "true")
    assert _debug() == "DEBUG"


@pytest.mark.parametrize(("theirs", "notes"), [(r[0], r[3]) for r in VARIABLES if r[2] == NONE])
def test_each_without_equivalent_is_reported_or_refused_as_the_table_says(
    monkeypatch: pytest.MonkeyPatch, theirs: str, notes: str
) -> None:
    name = _names(theirs)[0]
    monkeypatch.setenv(name, "x")
    reported, refused = environment_notes()
    assert notes.startswith(("reported:", "refused:")), notes
    said = refused if notes.startswith("refused:") else reported
    assert len(said) == 1 and said[0].startswith(name) and foreign.NO_EQUIVALENT[name].origin in said[0]
    assert (refused if said is reported else reported) == []


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [("GITEA_TOKEN", "GITEA_ACCESS_TOKEN"), ("GITEA_TOKEN", "FORGEJO_TOKEN"), ("GITEA_URL", "FORGEJO_URL"),
     ("GITEA_READ_ONLY", "GITEA_READONLY"), ("GITEA_MCP_TRANSPORT", "MCP_MODE")],
)  # fmt: skip
def test_two_names_of_one_setting_at_odds_stop_the_start_naming_both(
    monkeypatch: pytest.MonkeyPatch, ours: str, theirs: str
) -> None:
    setting = BY_VARIABLE[ours]
    first = VALUES.get(ours, "true")
    monkeypatch.setenv(ours, first)
    monkeypatch.setenv(theirs, "false" if first == "true" else "stdio" if ours.endswith("TRANSPORT") else first + "0")
    with pytest.raises(ConfigError) as refused:
        from_environment(setting)
    said = str(refused.value)
    assert said.startswith(f"{ours} and {theirs} are both set, to different values") and "keep one" in said
    assert first not in said  # a token is never quoted
    monkeypatch.setenv(theirs, f" {first} ")  # the same value (spaces aside) is no conflict
    assert from_environment(setting) == (first, ours)


@pytest.mark.parametrize(
    ("name", "nearest"),
    [("GITEA_URLL", "GITEA_URL"), ("GITEA_READ_ONY", "GITEA_READ_ONLY"),
     ("GITEA_MCP_PUBLICURL", "GITEA_MCP_PUBLIC_URL"),
     ("GITEA_ALLOWED_OWNER", "GITEA_ALLOWED_OWNERS"), ("FORGEJO_TOKN", "FORGEJO_TOKEN")],
)  # fmt: skip
def test_an_unknown_variable_is_reported_with_the_nearest_name(
    monkeypatch: pytest.MonkeyPatch, name: str, nearest: str
) -> None:
    monkeypatch.setenv(name, "x")
    reported, refused = environment_notes()
    assert reported == [f"{name} is set but is no setting of this server, and is ignored; did you mean {nearest}?"]
    assert refused == []


@pytest.mark.parametrize(
    "name", ["GITEA__server__ROOT_URL", "GITEA_WORK_DIR", "GITEA_ACTIONS", "FORGEJO_RUNNER_NAME", "GITEA_LIVE_URL"]
)
def test_the_forges_own_variables_are_not_reported(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "x")
    assert environment_notes() == ([], [])


def test_every_variable_a_setting_reads_is_known() -> None:
    assert known_variables() >= OURS


def _run(args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The command as a newcomer runs it: a fresh HOME, none of the developer's settings."""
    return subprocess.run(
        [sys.executable, "-m", "gitea_mcp", *args],
        env=clean_env(HOME=str(home), **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_gitea_readonly_true_turns_read_only_on(tmp_path: Path) -> None:
    """The stumble: the official Go server's GITEA_READONLY=true was ignored, and an issue was filed."""
    done = _run(["call", "issue_create", "owner=acme", "name=x", "title=t"], tmp_path, **CLOSED_GITEA,
                GITEA_READONLY="true")  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "no tool 'issue_create'" in done.stderr and "GITEA_READ_ONLY hides the write tools" in done.stderr


def test_gitea_readonly_true_reads_as_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**CLOSED_GITEA, "GITEA_READONLY": "true"}.items():
        monkeypatch.setenv(name, value)
    assert settings_from(parse_args(["serve"])).read_only is True
    monkeypatch.setenv("GITEA_READONLY", "treu")  # failing closed, as GITEA_READ_ONLY does
    with pytest.raises(ConfigError, match="GITEA_READONLY='treu' is not true or false"):
        settings_from(parse_args(["serve"]))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"GITEA_URLL": "x"}, "warning: GITEA_URLL is set but is no setting of this server, and is ignored; did you "
         "mean GITEA_URL?"),
        ({"GITEA_TOOLS": "list_issues"}, "GITEA_TOOLS is a setting of the official Go server (gitea-mcp) with no "
         "equivalent here"),
        ({"GITEA_TOKEN": "abc", "FORGEJO_ACCESS_TOKEN": "def"}, "GITEA_TOKEN and FORGEJO_ACCESS_TOKEN are both set"),
        # serve: the listening address is HTTP mode's, which call does not read
        ({"GITEA_MCP_HOST": "https://gitea.example.test", "GITEA_MCP_TRANSPORT": "http", "COMMAND": "serve"},
         "GITEA_MCP_HOST='https://gitea.example.test' is a URL, but GITEA_MCP_HOST here is the address HTTP mode "
         "listens on"),
    ],
)  # fmt: skip
def test_each_setting_stumble_is_said_at_start(tmp_path: Path, env: dict[str, str], said: str) -> None:
    command = env.pop("COMMAND", "call")
    args = ["serve"] if command == "serve" else ["call", "issue_list", "owner=acme", "name=x"]
    done = _run(args, tmp_path, **CLOSED_GITEA, **env)
    assert done.returncode == (1 if "warning" in said else 2), done.stderr
    assert said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "hint"),
    [(["-t", "http"], "write --transport stdio or --transport http"), (["--debug"], "write --log-level DEBUG"),
     (["-T", "x"], "set GITEA_TOKEN, or pass --token-file FILE"), (["--sse-port", "8080"], "write --port N")],
)  # fmt: skip
def test_their_flags_are_answered_with_ours(capfd: pytest.CaptureFixture[str], args: list[str], hint: str) -> None:
    with pytest.raises(SystemExit) as ended:
        parse_args(args)
    assert ended.value.code == 2
    err = capfd.readouterr().err
    assert f"unknown flag {args[0]} (another Gitea MCP server's); " in err and hint in err


def test_a_url_for_host_is_refused_naming_the_gitea_url(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in CLOSED_GITEA.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args(["--host", "https://gitea.com", "--transport", "http"]))
    assert "--host 'https://gitea.com' is a URL" in str(refused.value) and "--url or GITEA_URL" in str(refused.value)


@pytest.mark.slow
def test_check_lists_an_unknown_variable_among_its_lines(tmp_path: Path) -> None:
    done = _run(["check"], tmp_path, **CLOSED_GITEA, GITEA_URLL="x")
    assert "GITEA_URLL is set but is no setting of this server, and is ignored; did you mean GITEA_URL?" in done.stdout
    assert "warning: GITEA_URLL" not in done.stderr  # said once, among check's lines
