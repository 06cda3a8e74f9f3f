"""Waiting in tests: on a condition, with a deadline, never a bare sleep. A sleep guesses how long something takes
(too short on a loaded machine: a flaky failure; too long: a slow suite); a condition polled against a deadline
returns the moment it holds and fails, saying what never happened, when it does not."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

POLL = 0.01  # seconds between two looks: short beside any deadline, long enough not to spin a core


class NeverHappened(AssertionError):
    """The condition did not hold within its deadline (an AssertionError: the test fails, it does not error)."""


def wait_until(condition: Callable[[], T | None], timeout: float, what: str, poll: float = POLL) -> T:
    """The first true value `condition()` gives within `timeout` seconds, or NeverHappened naming `what`.
    The last look is at or after the deadline, so a condition that holds just then is not failed."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise NeverHappened(f"{what}: not within {timeout:g} s")
        time.sleep(poll)
