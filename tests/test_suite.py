"""The suite's own promises: `pytest -q` ends with its summary line, and a test not marked slow starts no process
(what `task fast` says of itself)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize("flags", [["-q"], []], ids=["-q", "plain"])
def test_pytest_prints_the_summary_line_with_the_projects_settings(tmp_path: Path, flags: list[str]) -> None:
    """A user's own `-q` on top of the project's addopts still ends with `N passed` (-qq would print nothing)."""
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n", encoding="utf-8")
    config = ROOT / "pyproject.toml"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(config), "--rootdir", str(tmp_path), "-p", "no:xdist", *flags,
         str(tmp_path / "test_one.py")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout, done.stdout


def test_a_fast_test_that_starts_a_process_fails() -> None:
    """The guard conftest sets on every test not marked slow: starting a process fails the test, however started."""
    with pytest.raises(pytest.fail.Exception, match="mark it slow"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)
