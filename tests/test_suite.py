"""The suite's own promises: `pytest -q` ends with its summary line, a test not marked slow starts no process (what
`task fast` says of itself), and the README's figures about the suite are measured ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import figures

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize("flags", [["-q"], []], ids=["-q", "plain"])
def test_pytest_prints_the_summary_line_with_the_projects_settings(tmp_path: Path, flags: list[str]) -> None:
    """A user's own `-q` on top of the project's addopts still ends with `N passed` (-qq would print nothing)."""
    # The sample's one test passes on purpose: what is checked is pytest's summary line about it, not the sample.
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


# -- the README's figures (tests/figures.py measures them) -------------------------------------------------------

# How far the suite may grow or shrink from the figures recorded before the README's count must be measured again.
# Not 0: several branches add tests at once, and an exact count would fail every merge until someone re-ran the
# measurement (minutes of a quiet machine, since it also times the suite); 5% keeps "N tests, measured on D" true
# to the reader while the figures stay dated.
WITHIN = 0.05


def test_the_readme_quotes_the_recorded_figures() -> None:
    recorded = json.loads(figures.FIGURES.read_text(encoding="utf-8"))
    quoted = figures.quoted(figures.README.read_text(encoding="utf-8"))
    assert quoted == {key: recorded[key] for key in quoted}, "run `python -m tests.figures`, or fix README.md"


@pytest.mark.slow
def test_the_suite_is_the_size_the_readme_says() -> None:
    recorded = json.loads(figures.FIGURES.read_text(encoding="utf-8"))
    counted = figures.collected()
    far = {key: (recorded[key], n) for key, n in counted.items() if abs(n - recorded[key]) > WITHIN * recorded[key]}
    assert far == {}, "the suite changed size since the figures were measured: run `python -m tests.figures`"


@pytest.mark.parametrize(
    ("line", "tests"),
    [
        ("3057 passed in 81.20s (0:01:21)", 3057),
        ("2690 passed, 7 skipped, 360 deselected in 33.82s", 2697),
        ("1 failed, 2 passed, 1 error in 0.50s", 4),
    ],
)
def test_the_count_is_read_from_pytests_summary_line(line: str, tests: int) -> None:
    assert figures.tests_in(f"....\n{line}\n") == tests
