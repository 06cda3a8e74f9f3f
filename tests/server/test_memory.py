"""server/memory.py: what large answers leave behind is given back once the server is quiet (the figures are the
bench's, `task bench --only answers`; here, when it trims and when it does not)."""

from __future__ import annotations

import asyncio
import platform
import threading
from typing import Any

import pytest

from gitea_mcp.server import memory
from gitea_mcp.server.memory import GROWTH, Trimmer


class FakeLibc:
    def __init__(self) -> None:
        self.trims = 0
        self.done = threading.Event()

    def malloc_trim(self, pad: int) -> int:
        self.trims += 1
        self.done.set()
        return 1


def trimmer(resident: list[int]) -> tuple[Trimmer, FakeLibc]:
    made = Trimmer()
    libc = FakeLibc()
    made.libc, made.prepared, made.mark = libc, True, 100 * 2**20  # type: ignore[assignment]
    made.resident = lambda: resident[0]  # type: ignore[method-assign]
    return made, libc


def quiet(made: Trimmer, still_idle: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "QUIET", 0.01)

    async def main() -> None:
        made.idle(lambda: still_idle)
        await asyncio.sleep(0.05)

    asyncio.run(main())


@pytest.mark.parametrize(
    ("grown", "still_idle", "trims"),
    [(GROWTH, True, 1), (GROWTH - 4096, True, 0), (GROWTH, False, 0)],
    ids=["grown-and-quiet", "not-grown-enough", "a-call-came-meanwhile"],
)
def test_a_quiet_moment_after_growth_gives_memory_back(
    monkeypatch: pytest.MonkeyPatch, grown: int, still_idle: bool, trims: int
) -> None:
    resident = [100 * 2**20 + grown]
    made, libc = trimmer(resident)
    quiet(made, still_idle, monkeypatch)
    libc.done.wait(1 if trims else 0.1)
    assert libc.trims == trims


def test_the_mark_is_the_size_after_the_trim(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory still in use after a trim (caches that grew) is measured from: the next quiet moment does not trim."""
    resident = [100 * 2**20 + GROWTH]
    made, libc = trimmer(resident)
    made.trim()
    assert made.mark == resident[0] and libc.trims == 1
    quiet(made, True, monkeypatch)
    assert libc.trims == 1


def test_a_burst_of_idle_moments_looks_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each quiet moment puts off the look: calls that keep coming never trim in between."""
    monkeypatch.setattr(memory, "QUIET", 0.05)
    made, libc = trimmer([100 * 2**20 + GROWTH])
    looks: list[Any] = []

    async def main() -> None:
        for _ in range(5):
            made.idle(lambda: looks.append(1) or True)  # type: ignore[func-returns-value]
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)

    asyncio.run(main())
    libc.done.wait(1)
    assert len(looks) == 1 and libc.trims == 1


def test_with_glibc_the_thresholds_are_fixed_at_the_first_call() -> None:
    made = Trimmer()
    made.prepare()
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert made.libc is not None and made.mark > 0
    else:  # musl, macOS, Windows: nothing is done
        assert made.libc is None
