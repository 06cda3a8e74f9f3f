"""`config CLIENT` writes the launch command of the copy that runs it, the way it was installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from gitea_mcp.cli import client_entries, launch
from gitea_mcp.cli.launch import Launch


@pytest.fixture
def no_local_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "local_source", lambda: None)


def test_an_installed_command_is_launched_by_its_absolute_path(tmp_path: Path, no_local_source: None) -> None:
    command = tmp_path / "venv" / "bin" / "gitea-issues-mcp"
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\n")
    assert launch.launch("installed", argv0=str(command)) == Launch(str(command))


def test_python_dash_m_is_launched_by_the_interpreters_path(no_local_source: None) -> None:
    argv0 = str(Path(launch.__file__).parents[1] / "__main__.py")  # gitea_mcp/__main__.py
    assert launch.launch("installed", argv0=argv0, executable="/opt/py/bin/python3") == Launch(
        "/opt/py/bin/python3", ("-m", "gitea_mcp")
    )
    assert launch.launch("python", executable="/opt/py/bin/python3") == Launch(
        "/opt/py/bin/python3", ("-m", "gitea_mcp")
    )


@pytest.mark.parametrize(("source", "args"), [("/src/gitea-mcp", ("--from", "/src/gitea-mcp", "gitea-issues-mcp")),
                                              (None, ("gitea-issues-mcp",))])  # fmt: skip
@pytest.mark.parametrize("on_path", [True, False], ids=["uvx-on-path", "no-uvx"])
def test_uvx_from_the_source_it_was_installed_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str | None, args: tuple[str, ...], on_path: bool
) -> None:
    monkeypatch.setattr(launch, "local_source", lambda: source)
    cached = tmp_path / ".cache" / "uv" / "archive-v0" / "Xy12" / "bin" / "gitea-issues-mcp"
    cached.parent.mkdir(parents=True)
    cached.write_text("#!/bin/sh\n")
    uvx = tmp_path / "uv-bin" / "uvx"
    uvx.parent.mkdir()
    if on_path:
        uvx.write_text("#!/bin/sh\n")
        uvx.chmod(0o755)
    monkeypatch.setenv("PATH", str(uvx.parent))
    # By its full path (a client's short PATH may not hold it); bare only when there is none to find.
    command = str(uvx) if on_path else "uvx"
    # Run by uvx, the command lives in uv's cache: the client gets uvx again, never the cache path.
    assert launch.launch("installed", argv0=str(cached)) == Launch(command, args)
    assert launch.launch("uvx", argv0="/anything") == Launch(command, args)


class _Dist:
    def __init__(self, direct_url: str | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return self.direct_url


@pytest.mark.parametrize(
    ("direct_url", "source"),
    [
        pytest.param('{"url": "file://{dir}", "dir_info": {"editable": true}}', "{dir}", id="checkout"),
        pytest.param('{"url": "file://{dir}/gone"}', None, id="directory-gone"),
        pytest.param('{"url": "https://files.example/x.whl", "archive_info": {}}', None, id="downloaded"),
        pytest.param(None, None, id="from-the-index"),
    ],
)
def test_the_source_directory_comes_from_pep_610(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct_url: str | None, source: str | None
) -> None:
    raw = direct_url.replace("{dir}", str(tmp_path)) if direct_url else None
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(raw))  # the module launch reads
    assert launch.local_source() == (source.replace("{dir}", str(tmp_path)) if source else None)


def _config(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitea_mcp", "config", *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.slow
@pytest.mark.parametrize("client", [name for name in client_entries.CLIENTS if name != "codex"])
def test_config_stdout_is_the_json_file_alone(client: str) -> None:
    done = _config(client)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # `> file` gives a valid file: no comments on stdout
    assert "gitea" in json.dumps(document)
    assert done.stderr.startswith("# ") and all(line.startswith("#") for line in done.stderr.splitlines())


@pytest.mark.slow
def test_config_stdout_for_codex_is_valid_toml() -> None:
    done = _config("codex")
    assert tomllib.loads(done.stdout)["mcp_servers"]["gitea"]["env_vars"] == ["GITEA_TOKEN"]


@pytest.mark.slow
def test_config_launches_this_copy_by_default() -> None:
    entry = json.loads(_config("cursor").stdout)["mcpServers"]["gitea"]
    # Run as `python -m gitea_mcp`, this copy is this interpreter with -m gitea_mcp.
    assert (entry["command"], entry["args"]) == (sys.executable, ["-m", "gitea_mcp"])
    uvx = json.loads(_config("cursor", "--launcher", "uvx").stdout)["mcpServers"]["gitea"]
    assert (uvx["command"], uvx["args"][-1]) == (shutil.which("uvx") or "uvx", "gitea-issues-mcp")


@pytest.mark.slow
def test_claude_code_prints_the_project_file_and_the_command_as_a_note() -> None:
    done = _config("claude-code")
    assert json.loads(done.stdout)["mcpServers"]["gitea"]["type"] == "stdio"
    assert "#   claude mcp add --transport stdio" in done.stderr
