"""The README's commands, run verbatim in a fresh copy of the repository with a fresh HOME: the try-it command, and
each install path, each followed by starting the installed server and listing its tools over MCP.

The test command (`task check`) is not run from here — it would run this very suite again; CI runs it verbatim
from the README (.ci/run, checked in tests/test_readme.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import gitea_mcp
from gitea_mcp.cli import main as cli
from gitea_mcp.cli.stdio_client import stdio_session
from gitea_mcp.toolkit import registry

ROOT = Path(__file__).resolve().parent.parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# Every variable a setting is read from, as declared; other servers' names read as aliases are docs/migrating.md's.
SETTINGS = sorted({name for setting in cli.SETTINGS.values() for name in setting.env})
TOOLS = {spec.name for spec in registry.every()}


def readme_block(marker: str) -> str:
    """The shell block right after `<!-- marker -->`."""
    found = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)\n```", README, re.DOTALL)
    assert found, f"README.md lacks the {marker} block"
    return found.group(1)


def install_lines() -> list[str]:
    """The lines of the first sh block under '### Install', without their comments."""
    section = README[README.index("### Install") :]
    block = re.search(r"```sh\n(.*?)\n```", section, re.DOTALL)
    assert block
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The files git tracks (what a clone has), copied; never the work tree, where builds would collide."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    target = tmp_path / "gitea-mcp"
    for name in files.splitlines():
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def fresh_env(home: Path, path_first: list[Path]) -> dict[str, str]:
    """A new HOME; on PATH only the tools asked for and the system's (no venv of ours, no GITEA_ settings)."""
    keep = {key: value for key, value in os.environ.items() if not key.startswith(("GITEA_", "VIRTUAL_ENV", "PYTHON"))}
    home.mkdir(parents=True, exist_ok=True)
    system = [p for p in keep.get("PATH", "").split(os.pathsep) if p and not p.startswith(str(ROOT))]
    # uv's package cache stays shared: a cold one only costs downloads, not a different result.
    cache = os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")
    return {**keep, "HOME": str(home), "UV_CACHE_DIR": cache,
            "PATH": os.pathsep.join([*map(str, path_first), *system])}  # fmt: skip


def sh(command: str, cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def serves(command: list[str], env: dict[str, str]) -> set[str]:
    """Start the installed server on stdio, as a client would, and list its tools."""
    settings = {**env, "GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}

    async def listed() -> set[str]:
        async with stdio_session(settings, command=command) as session:
            return {tool.name for tool in (await session.list_tools()).tools}

    return asyncio.run(listed())


def test_try_it_command_runs_the_demo_from_a_fresh_checkout(checkout: Path, tmp_path: Path) -> None:
    env = fresh_env(tmp_path / "home", [])
    done = sh(readme_block("setup:try"), checkout, env)
    assert "── an owner outside the allowlist" in done.stdout, done.stdout[-2000:]
    assert "owner 'other' is not allowed" in done.stdout
    installed = checkout / ".venv" / "bin" / "gitea-issues-mcp"
    assert serves([str(installed)], env) == TOOLS
    # The runtime install has none of the development tools.
    dev = subprocess.run([str(checkout / ".venv" / "bin" / "python"), "-c", "import pytest"], capture_output=True)
    assert dev.returncode != 0


def _path(line: str) -> str:
    return "wheel" if "pip wheel" in line else "venv" if line.startswith("python3") else line.split()[0]


@pytest.mark.parametrize("line", install_lines(), ids=_path)
def test_each_install_path_in_the_readme_gives_a_server_that_starts(checkout: Path, tmp_path: Path, line: str) -> None:
    home = tmp_path / "home"
    # pipx and uv come with the dev extras; no venv's pip is on PATH, so a bare `pip` would be the system's.
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("pipx", "uv", "uvx"):
        (tools / name).symlink_to(Path(sys.executable).parent / name)
    env = fresh_env(home, [tools])
    done = sh(line, checkout, env)
    command = _installed_command(line, home, checkout)
    version = subprocess.run([*command, "--version"], env=env, capture_output=True, text=True, timeout=120)
    assert version.stdout.strip() == f"gitea-issues-mcp {gitea_mcp.__version__}", version.stderr + done.stderr
    assert serves(command, env) == TOOLS
    helped = subprocess.run([*command, "--help"], env=env, capture_output=True, text=True, timeout=120).stdout
    assert all(variable in helped for variable in SETTINGS) and all(name in helped for name in cli.COMMANDS)
    # config launches what was installed: the command's own path, or uvx --from this checkout again — each by its
    # full path, as found on PATH, since a client's own PATH may be too short to find it.
    configured = subprocess.run([*command, "config", "vscode"], env=env, capture_output=True, text=True, timeout=120)
    entry = json.loads(configured.stdout)["servers"]["gitea"]
    launched = [entry["command"], *entry["args"]]
    found = shutil.which(command[0], path=env["PATH"])
    assert found and os.path.isabs(launched[0]), launched
    assert launched[1:] == command[1:] and Path(launched[0]).resolve() == Path(found).resolve(), launched
    if "pip wheel" in line:
        _wheel_carries_the_registry_name(next((checkout / "dist").glob("*.whl")))


def _wheel_carries_the_registry_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        text = archive.read(next(name for name in names if name.endswith(".dist-info/METADATA"))).decode("utf-8")
    assert "Name: gitea-issues-mcp" in text and f"Version: {gitea_mcp.__version__}" in text
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    assert f"mcp-name: {server['name']}" in text, "PyPI shows the README: the registry reads mcp-name there"
    assert "gitea_mcp/py.typed" in names
    # The license the metadata names travels with the wheel (a packager's first look).
    assert "License-Expression: MIT" in text and "License-File: LICENSE" in text
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


def _installed_command(line: str, home: Path, checkout: Path) -> list[str]:
    if line.startswith("uvx"):
        return ["uvx", "--from", str(checkout), "gitea-issues-mcp"]
    if line.startswith("python3") and "pipx install" not in line:
        return [str(home / ".venvs" / "gitea-mcp" / "bin" / "gitea-issues-mcp")]
    return [str(home / ".local" / "bin" / "gitea-issues-mcp")]  # pipx, from the checkout or from the wheel
