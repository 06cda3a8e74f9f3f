"""The README's figures, measured: `python -m tests.figures` (a few minutes: it runs the whole suite).

It copies the checkout as a clone has it (tracked and new files, nothing ignored; a git repository) to a temporary
folder, runs there the README's two commands verbatim (the `setup:try` and `setup:test` blocks) and then `task fast`,
times each, counts the tests from pytest's summary lines, and writes tests/figures.json and the README sentences that
quote it.
tests/test_suite.py checks that the README quotes the file exactly, and that the suite's size is still within reach
of the figures recorded (see there why within reach, not equal).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIGURES = ROOT / "tests" / "figures.json"

# Each README sentence that quotes figures: its words, with a group for each figure, and the figures' keys in order.
# A space stands for any run of blanks, a line break included, so the README may wrap anywhere.
_WORDS: list[tuple[str, tuple[str, ...]]] = [
    (r"It took (\d+) s on a (\d+)-core machine whose package cache", ("try_seconds", "cores")),
    (r"It took (\d+) s on the same machine \(([\d,]+) tests, on every core\)", ("check_seconds", "tests")),
    (r"`task fast` runs the quick part of the suite \(([\d,]+) tests\) in (\d+) s", ("fast_tests", "fast_seconds")),
    (
        r"Figures measured on (\d{4}-\d\d-\d\d) by `python -m tests\.figures`, the machine's load averaging ([\d.]+)",
        ("date", "load"),
    ),
]
SENTENCES = [(pattern.replace(" ", r"\s+"), keys) for pattern, keys in _WORDS]
_SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|error|errors)\b")


def quoted(readme: str) -> dict[str, Any]:
    """The figures the README quotes, by key; a sentence missing or there twice is an error."""
    found: dict[str, Any] = {}
    for pattern, keys in SENTENCES:
        matches = list(re.finditer(pattern, readme))
        if len(matches) != 1:
            raise ValueError(f"README.md has {len(matches)} sentences like {pattern!r}; it needs one")
        for key, value in zip(keys, matches[0].groups(), strict=True):
            found[key] = value if key == "date" else float(value) if key == "load" else int(value.replace(",", ""))
    return found


def quote(readme: str, figures: dict[str, Any]) -> str:
    """The README with every sentence quoting these figures."""
    for pattern, keys in SENTENCES:
        match = re.search(pattern, readme)
        if not match:
            raise ValueError(f"README.md has no sentence like {pattern!r}")
        text = match.group(0)
        for index in reversed(range(len(keys))):
            value = figures[keys[index]]
            shown = f"{value:,}" if isinstance(value, int) and value >= 1000 else str(value)
            start, end = match.start(index + 1) - match.start(), match.end(index + 1) - match.start()
            text = text[:start] + shown + text[end:]
        readme = readme[: match.start()] + text + readme[match.end() :]
    return readme


def tests_in(output: str) -> int:
    """The number of tests pytest's summary line counts (every outcome; deselected ones are not run)."""
    lines = [line for line in output.splitlines() if _SUMMARY.search(line) and " in " in line]
    if not lines:
        raise ValueError(f"no pytest summary line in:\n{output[-2000:]}")
    return sum(int(count) for count, _ in _SUMMARY.findall(lines[-1]))


def _block(marker: str) -> str:
    found = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)\n```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert found, f"README.md lacks the {marker} block"
    return found.group(1)


def _copy_checkout(target: Path) -> None:
    listed = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    for name in subprocess.run(listed, cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines():
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    # A clone is a git repository: the install tests list its files with git.
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the checkout measured"]):
        env = {**os.environ, "GIT_AUTHOR_NAME": "figures", "GIT_AUTHOR_EMAIL": "figures@localhost"}
        env |= {"GIT_COMMITTER_NAME": "figures", "GIT_COMMITTER_EMAIL": "figures@localhost"}
        subprocess.run(["git", *git], cwd=target, env=env, check=True)


def _timed(command: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    print(f"+ {command}", file=sys.stderr)
    started = time.monotonic()
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True, text=True)
    seconds = round(time.monotonic() - started)
    if done.returncode != 0:
        raise SystemExit(f"{command} failed ({done.returncode}); no figures from a red run:\n{done.stdout[-3000:]}")
    print(f"  {seconds} s", file=sys.stderr)
    return seconds, done.stdout + done.stderr


class _LoadSampler:
    """The 1-minute load average sampled every 5 s while the figures are measured; `mean` once done."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self.mean = 0.0

    def _sample(self) -> None:
        while not self._done.wait(5):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> _LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
        self.mean = round(sum(self.samples) / len(self.samples), 1) if self.samples else os.getloadavg()[0]


def measure() -> dict[str, Any]:
    # The user's own machine: no venv of ours on PATH, no GITEA_ settings; the package cache stays (as the README
    # says: "whose package cache already held the dependencies").
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GITEA_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT)))
    with tempfile.TemporaryDirectory(prefix="gitea-mcp-figures-") as folder:
        checkout = Path(folder) / "gitea-mcp"
        _copy_checkout(checkout)
        _record(checkout, {**_recorded(), **collected(checkout)})  # so the copy's gate passes with today's count
        with _LoadSampler() as load:  # the machine may be shared: the times are only as good as its quiet
            try_seconds, _ = _timed(_block("setup:try"), checkout, env)
            check_seconds, check_output = _timed(_block("setup:test"), checkout, env)
            fast_seconds, fast_output = _timed(". .venv/bin/activate && task fast", checkout, env)
    return {
        "date": datetime.now(UTC).date().isoformat(),
        "cores": os.cpu_count() or 1,
        "load": load.mean,
        "try_seconds": try_seconds,
        "check_seconds": check_seconds,
        "tests": tests_in(check_output),
        "fast_seconds": fast_seconds,
        "fast_tests": tests_in(fast_output),
    }


def collected(checkout: Path = ROOT) -> dict[str, int]:
    """The tests pytest collects in a checkout, all and the fast part: `2697/3057 tests collected (360 deselected)`."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-m", "not slow"]
    done = subprocess.run(command, cwd=checkout, capture_output=True, text=True, timeout=300)
    found = re.search(r"^(\d+)/(\d+) tests collected", done.stdout, re.MULTILINE)
    if done.returncode != 0 or not found:
        raise ValueError(f"pytest --collect-only failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return {"fast_tests": int(found.group(1)), "tests": int(found.group(2))}


def _recorded() -> dict[str, Any]:
    figures: dict[str, Any] = json.loads(FIGURES.read_text(encoding="utf-8")) if FIGURES.exists() else {}
    return {**quoted(README.read_text(encoding="utf-8")), **figures}


def _record(checkout: Path, figures: dict[str, Any]) -> None:
    (checkout / FIGURES.relative_to(ROOT)).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    readme = checkout / README.relative_to(ROOT)
    readme.write_text(quote(readme.read_text(encoding="utf-8"), figures), encoding="utf-8")


def main() -> int:
    figures = measure()
    _record(ROOT, figures)
    print(json.dumps(figures), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
