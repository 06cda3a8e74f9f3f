"""Shared fixtures: a mocked Gitea (responses) and a Deps wired to it; the token scan over the whole suite.

Helpers (reading a result, optional mocks, Gitea's JSON) live in tests/support/, imported where used.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator

import pytest
import responses

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.toolkit.base import Deps
from tests.support import TOKEN
from tests.support.gitea_json import ROOT
from tests.support.redis_server import redis_url  # noqa: F401 (a fixture: a real redis-server, for slow tests)

# What `task fast` leaves out: tests that start processes, build packages or install them, and the acceptance suite,
# which seeds a whole world first (all run in `task check`).
SLOW = ("e2e", "install", "cli", "test_packaging.py", "acceptance")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(item.config.rootpath).parts
        if parts[:1] == ("tests",) and parts[1] in SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def no_process_unless_slow(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked slow starts no process: `task fast` says so of itself (Taskfile.yml).

    Every way the suite starts one (subprocess.run, asyncio's and anyio's subprocesses, the MCP stdio client) goes
    through Popen; the failure is an OutcomeException, so code catching Exception (or OSError) cannot hide it.
    """
    if request.node.get_closest_marker("slow"):
        return

    def refuse(self: subprocess.Popen[bytes], args: object, *rest: object, **kwargs: object) -> None:
        pytest.fail(f"{request.node.nodeid} started a process ({args!r}): mark it slow, or do it in-process")

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)


@pytest.fixture(autouse=True)
def no_token_anywhere(caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """Across the whole suite: the token never reaches a log record, stdout or stderr."""
    caplog.set_level(logging.DEBUG)
    yield
    out, err = capfd.readouterr()
    assert TOKEN not in caplog.text and TOKEN not in out and TOKEN not in err
    # Let the test's own output through for whoever reads the run.
    sys.stdout.write(out)
    sys.stderr.write(err)


@pytest.fixture
def mocked() -> Iterator[responses.RequestsMock]:
    """Gitea mocked; a test fails if a mock it registered was never used (a dead mock hides a wrong request).

    Fixtures that serve a background a test may or may not touch register it through `optional(rsps)`.
    """
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        yield rsps
        for unused in [r for r in getattr(rsps, "_optional", []) if r.call_count == 0]:
            rsps.remove(unused)


@pytest.fixture
def deps() -> Deps:
    # No retry sleeps in unit tests; retries have their own tests.
    client = GiteaClient(ROOT, TOKEN, timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())
