"""The snippets of the newcomer's pages that need only Python (or a Gitea, which the stand-in plays), run as written
in a fresh copy of the checkout with a fresh HOME where the package was installed as the pages say first
(`pipx install .`, its `~/.local/bin` on PATH as `pipx ensurepath` puts it for the next shell).

tests/test_snippets.py sorts every snippet; the README's try-it and install commands are run by
tests/install/test_readme_commands.py, its test command by CI (.ci/run). Docker and the clients' own command lines
run with `task snippets` (tests/snippets/).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests import test_snippets
from tests.install.test_readme_commands import README, fresh_env, readme_block
from tests.test_snippets import Snippet

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent.parent
# Run elsewhere: the README's two commands and its install block (tests/install/test_readme_commands.py, .ci/run).
ELSEWHERE = {readme_block("setup:try"), readme_block("setup:test")}
_INSTALL = re.search(r"```sh\n(.*?)\n```", README[README.index("### Install") :], re.DOTALL)
assert _INSTALL, "README.md's Install section has no sh block"
ELSEWHERE.add(_INSTALL.group(1))
# The example's Gitea and token, which the stand-in replaces (it has the owner `acme` and its `widgets`).
EXAMPLE_URL, EXAMPLE_TOKEN = "https://gitea.example.com", "GITEA_TOKEN=…"


def run_here() -> list[Snippet]:
    return [s for kind in ("python", "forge") for s in test_snippets.shell(kind) if s.text.strip() not in ELSEWHERE]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A clone's files and a HOME where `pipx install .` ran in it: (the checkout, the shell's environment)."""
    base = tmp_path_factory.mktemp("snippets")
    checkout = base / "gitea-mcp"
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in listed.splitlines():
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    tools = base / "tools"
    tools.mkdir()
    for name in ("pipx", "uv", "uvx"):
        (tools / name).symlink_to(Path(sys.executable).parent / name)
    home = base / "home"
    env = fresh_env(home, [home / ".local" / "bin", tools])
    done = subprocess.run(["pipx", "install", "."], cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    yield checkout, env


@pytest.mark.parametrize("snippet", run_here(), ids=lambda s: s.id)
def test_each_python_snippet_runs_as_written(snippet: Snippet, installed: tuple[Path, dict[str, str]]) -> None:
    checkout, env = installed
    text = snippet.text
    with StandIn() as forge:
        if test_snippets.needs(snippet) == "forge":
            assert EXAMPLE_URL in text, "a forge snippet names the example's Gitea, for the stand-in to replace"
            text = text.replace(EXAMPLE_URL, forge.url).replace(EXAMPLE_TOKEN, f"GITEA_TOKEN={DEMO_TOKEN}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", text], cwd=checkout, env=env, capture_output=True, text=True, timeout=300
        )
    said = f"{snippet.id}\n{text}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    assert done.returncode == 0, said
    assert "Traceback" not in done.stdout + done.stderr, said
    if "config claude-code > .mcp.json" in text:
        _is_the_readmes_mcp_json(checkout / ".mcp.json", Path(env["HOME"]))
    if "pipx install --force '.[redis]'" in text:  # the extra lands in pipx's venv of the command
        shown = ["pipx", "runpip", "gitea-issues-mcp", "show", "redis"]
        assert subprocess.run(shown, env=env, capture_output=True, timeout=120).returncode == 0, said
    if "check" in text.split():
        assert "✓ token valid: acts as @demo" in done.stdout and "ready" in done.stdout, said


def _is_the_readmes_mcp_json(written: Path, home: Path) -> None:
    """What `config claude-code > .mcp.json` wrote is the README's example, the user's HOME where it says /home/you."""
    shown = README.split("<!-- snippet: claude-code .mcp.json -->\n```json\n", 1)[1].split("\n```", 1)[0]
    expected = json.loads(shown.replace("/home/you", str(home)))
    assert json.loads(written.read_text(encoding="utf-8")) == expected
