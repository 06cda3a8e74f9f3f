"""The terminal clients' snippets of docs/clients.md (claude, codex, gemini, the Inspector through npx), each run as
written by that client's own command line in a fresh HOME, the installed `gitea-issues-mcp` on PATH. Run by
`task snippets`; a client whose command line is missing (or a Node too old for the Inspector) is skipped with the
reason. Claude Code is installed from npm into a cache when npm is there (tests/install/test_claude_code_cli.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests import test_snippets
from tests.install.test_claude_code_cli import QUIET, _find_or_install_claude
from tests.support.waiting import wait_until
from tests.test_snippets import Snippet

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.environ.get("GITEA_MCP_SNIPPETS"), reason="run by `task snippets` (the clients' CLIs)"),
]
INSPECTOR_NODE = (22, 19)  # the Inspector's current releases need it; an older Node runs 0.15.0 silently


def program(snippet: Snippet) -> str:
    return next(words[0] for words in test_snippets.commands(snippet) if words[0] not in test_snippets.SETUP)


def _node() -> tuple[int, ...]:
    node = shutil.which("node")
    if node is None:
        return ()
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60).stdout
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


def _tool(name: str) -> str:
    if name == "claude":
        return _find_or_install_claude()
    if name == "npx" and _node() < INSPECTOR_NODE:
        pytest.skip(f"Node {'.'.join(map(str, _node())) or 'absent'}: the Inspector needs Node ≥ 22.19")
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"no `{name}` on PATH: its snippet was not run")
    return found


@pytest.mark.parametrize("snippet", test_snippets.shell("client"), ids=lambda s: s.id)
def test_each_client_snippet_runs_as_written(snippet: Snippet, tmp_path: Path) -> None:
    tool = _tool(program(snippet))
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    installed = Path(sys.executable).parent  # this venv's gitea-issues-mcp, as pipx's would be on PATH
    path = os.pathsep.join([str(Path(tool).parent), str(installed), os.defpath])
    env = {**os.environ, **QUIET, "HOME": str(home), "PATH": path}
    with StandIn() as forge:
        env |= {"GITEA_TOKEN": DEMO_TOKEN}
        text = snippet.text.replace("https://gitea.example.com", forge.url)  # the Inspector's call reaches a Gitea
        if program(snippet) == "npx" and "--cli" not in text:
            _inspector_comes_up(text, project, env)
            return
        done = subprocess.run(["bash", "-c", text], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{snippet.id}\n{text}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    if program(snippet) == "claude":
        written = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
        entry = written["projects"][str(project)]["mcpServers"]["gitea"]
        assert DEMO_TOKEN not in json.dumps(entry), "the line stores the token's reference, never the token"
    if "tools/list" in text:
        assert '"issue_list"' in done.stdout, done.stdout[-2000:]


INSPECTOR_UP = "is up and running"  # "MCP Inspector Web is up and running at:" (2.x), "MCP Inspector is …" (0.x)


def _inspector_comes_up(text: str, project: Path, env: dict[str, str]) -> None:
    """The Inspector's browser launch serves until stopped: it ran as written when it says it is up (its web UI
    and the proxy that starts the server on the UI's Connect), within 180 s; then its process group is stopped."""
    env = {**env, "MCP_AUTO_OPEN_ENABLED": "false"}  # no browser to open here
    process = subprocess.Popen(["bash", "-c", text], cwd=project, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)  # fmt: skip
    seen: list[str] = []
    try:
        assert process.stdout is not None
        reader = threading.Thread(target=lambda: seen.extend(process.stdout or ()), daemon=True)
        reader.start()
        wait_until(lambda: any(INSPECTOR_UP in line for line in seen) or process.poll() is not None, 180,
                   "the Inspector saying it is up")  # fmt: skip
        assert any(INSPECTOR_UP in line for line in seen), "".join(seen)[-2000:]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
