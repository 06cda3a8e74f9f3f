"""The stand-in the in-process sign-in tests sign in at: one per module (starting one costs a few tenths of a
second, and each test makes its own application and client)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gitea_mcp.standin import StandIn
from tests.server.signin.flow_driver import forge


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    started = forge()
    try:
        yield started
    finally:
        started.stop()
