"""The exit codes every command shares, as a shell sees them (signals: test_signals.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gitea_mcp.cli.main import FAILED, OK, USAGE
from tests.cli.process import CLOSED_GITEA, clean_env


@pytest.mark.parametrize(
    ("argv", "env", "code", "said"),
    [
        pytest.param(["config", "vscode"], {}, OK, "", id="ok"),
        pytest.param(
            ["--url", "http://127.0.0.1:9", "check"], {"GITEA_ALLOWED_OWNERS": "acme"}, FAILED, "", id="check"
        ),
        pytest.param(["call", "issue_list", "owner=other", "name=x"], CLOSED_GITEA, FAILED, "not allowed", id="tool"),
        pytest.param(["chek"], {}, USAGE, "did you mean check?", id="unknown-command"),
        pytest.param(["--bogus"], CLOSED_GITEA, USAGE, "unknown flag --bogus", id="unknown-flag"),
        pytest.param(["call", "issue_nope"], CLOSED_GITEA, USAGE, "no tool 'issue_nope'", id="unknown-tool"),
        pytest.param(["check"], {}, USAGE, "GITEA_URL and GITEA_ALLOWED_OWNERS are not set", id="settings"),
        pytest.param(["--transport", "http", "--port", "99999"], CLOSED_GITEA, USAGE, "--port '99999'", id="port"),
    ],
)
def test_exit_codes(argv: list[str], env: dict[str, str], code: int, said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gitea_mcp", *argv], env=clean_env(**env), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == code, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


def test_every_exit_code_is_documented() -> None:
    """docs/settings.md's table and `--help` name the same codes the program uses, no more, no fewer."""
    import re
    from pathlib import Path

    from gitea_mcp.cli.main import CANNOT_LISTEN, EXIT_CODES, INTERRUPTED, TERMINATED

    used = {OK, FAILED, USAGE, CANNOT_LISTEN, INTERRUPTED, TERMINATED}
    readme = (Path(__file__).parents[2] / "docs" / "settings.md").read_text(encoding="utf-8")
    table = readme.split("| exit code | meaning |", 1)[1].split("\n\n", 1)[0]
    assert {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)} == used
    assert {int(code) for code in re.findall(r"(?:^|, )(\d+) ", EXIT_CODES)} == used
