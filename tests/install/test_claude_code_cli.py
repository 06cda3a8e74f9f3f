"""The `claude mcp add …` line that `config claude-code` prints, run as printed by the real Claude Code CLI.

The CLI is `claude` on PATH, or the npm package @anthropic-ai/claude-code installed once into a cache directory
when npm is there (CI's fresh machine has only Python: the test is then skipped, and says why). Each run gets a
fresh HOME, so the line writes its server into a throw-away ~/.claude.json, which is read back.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from gitea_mcp.cli.main import main

pytestmark = pytest.mark.slow

PACKAGE = "@anthropic-ai/claude-code"
# Claude Code's own switches for a quiet, offline-as-possible run.
QUIET = {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1"}


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gitea-issues-mcp" / "claude-code"


def _find_or_install_claude() -> str:
    """The CLI's path, or a skip naming why there is none."""
    found = shutil.which("claude")
    if found:
        return found
    cached = _cache() / "node_modules" / ".bin" / "claude"
    if cached.is_file():
        return str(cached)
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"no `claude` on PATH and no npm to install {PACKAGE} with: the printed line was not run")
    # Into a directory of its own, then renamed into place: test workers installing at once never share a prefix.
    _cache().parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="claude-code.", dir=_cache().parent))
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(staging), PACKAGE],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not (staging / "node_modules" / ".bin" / "claude").is_file():
        shutil.rmtree(staging, ignore_errors=True)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm could not install {PACKAGE} ({last}): the printed line was not run")
    try:
        staging.rename(_cache())
    except OSError:  # another worker was first: use its copy
        shutil.rmtree(staging, ignore_errors=True)
    return str(cached)


@pytest.fixture(scope="module")
def claude() -> str:
    return _find_or_install_claude()


def printed_line(capfd: pytest.CaptureFixture[str], *argv: str) -> str:
    """The terminal line among `config claude-code`'s notes (stderr), exactly as printed."""
    assert main(["config", "claude-code", *argv]) == 0
    _, err = capfd.readouterr()
    lines = [line.removeprefix("#   ") for line in err.splitlines() if line.startswith("#   claude mcp add ")]
    assert len(lines) == 1, err
    return lines[0]


def run_line(claude: str, line: str, home: Path) -> tuple[Path, dict[str, Any]]:
    """Run the line in a shell, in a project directory under a fresh HOME: that directory, and ~/.claude.json."""
    project = home / "project"
    project.mkdir(parents=True)
    env = {**os.environ, **QUIET, "HOME": str(home), "PATH": os.pathsep.join([str(Path(claude).parent), os.defpath])}
    env.pop("GITEA_TOKEN", None)  # the line must store the reference, whatever this shell holds
    done = subprocess.run(["sh", "-c", line], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    return project, json.loads((home / ".claude.json").read_text(encoding="utf-8"))


def run_as_printed(claude: str, line: str, home: Path) -> dict[str, Any]:
    """The `gitea` entry the line wrote, in the project's (default) scope."""
    project, written = run_line(claude, line, home)
    servers = written["projects"][str(project)]["mcpServers"]
    assert set(servers) == {"gitea"}
    return dict(servers["gitea"])


def test_the_cli_runs(claude: str) -> None:
    done = subprocess.run(
        [claude, "--version"], capture_output=True, text=True, timeout=60, env={**os.environ, **QUIET}
    )
    assert done.returncode == 0 and re.match(r"\d+\.\d+\.\d+", done.stdout), done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "extra_env"),
    [
        pytest.param(["--url", "https://git.acme.test", "--allowed-owners", "acme,bob"], {}, id="settings"),
        pytest.param(
            ["--url", "https://git.acme.test", "--allowed-owners", "acme", "--read-only", "--timeout", "5"],
            {"GITEA_READ_ONLY": "true", "GITEA_TIMEOUT": "5"},
            id="non-default-settings",
        ),
        pytest.param([], {}, id="placeholders"),
    ],
)
@pytest.mark.parametrize("launcher", ["installed", "python"])
def test_printed_stdio_line_adds_the_server(
    claude: str,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    extra_env: dict[str, str],
    launcher: str,
) -> None:
    for name in ("GITEA_URL", "GITEA_HOST", "GITEA_ALLOWED_OWNERS", "GITEA_READ_ONLY", "GITEA_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    line = printed_line(capfd, *argv, "--launcher", launcher)
    # What `config cursor` writes for the same settings: the one declaration both come from.
    assert main(["config", "cursor", *argv, "--launcher", launcher]) == 0
    expected = json.loads(capfd.readouterr().out)["mcpServers"]["gitea"]
    entry = run_as_printed(claude, line, tmp_path / "home")
    assert entry["type"] == "stdio"
    assert (entry["command"], entry["args"]) == (expected["command"], expected["args"])
    assert entry["env"] == {**expected["env"], "GITEA_TOKEN": "${GITEA_TOKEN}"}
    for key, value in extra_env.items():
        assert entry["env"][key] == value


def test_printed_remote_line_adds_the_server(claude: str, capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = printed_line(capfd, "--http", "https://mcp.acme.test")
    entry = run_as_printed(claude, line, tmp_path / "home")
    assert entry == {
        "type": "http",
        "url": "https://mcp.acme.test/mcp",
        "headers": {"Authorization": "Bearer ${GITEA_TOKEN}"},
    }


@pytest.mark.parametrize("mode", [[], ["--http", "https://mcp.acme.test"]], ids=["stdio", "remote"])
def test_the_printed_user_scope_hint_adds_the_server_for_every_project(
    claude: str, capfd: pytest.CaptureFixture[str], tmp_path: Path, mode: list[str]
) -> None:
    """The note says where `--scope user` goes; put there, the server lands in the user's scope, its command intact
    (appended at the end, the stdio form would hand `--scope user` to the server as its arguments)."""
    assert main(["config", "claude-code", "--url", "https://git.acme.test", "--allowed-owners", "acme", *mode]) == 0
    _, err = capfd.readouterr()
    assert "`--scope user` right after `claude mcp add`" in err
    line = next(line.removeprefix("#   ") for line in err.splitlines() if line.startswith("#   claude mcp add "))
    in_project = run_as_printed(claude, line, tmp_path / "project-scope")
    user_line = line.replace("claude mcp add ", "claude mcp add --scope user ", 1)
    project, written = run_line(claude, user_line, tmp_path / "user-scope")
    assert written["mcpServers"] == {"gitea": in_project}
    assert not written.get("projects", {}).get(str(project), {}).get("mcpServers")
