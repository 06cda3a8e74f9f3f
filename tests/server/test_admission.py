"""Admission: a caller's share of the tool threads, a bounded wait for a slot, the busy sentences."""

from __future__ import annotations

import dataclasses
import time

import anyio
import pytest
from mcp_types import CallToolResult

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.client import CALLER_THREADS, GiteaClient
from gitea_mcp.server.admission import TOOL_THREADS, Admission
from gitea_mcp.server.app import ToolServer
from gitea_mcp.settings import TOOL_CALLS
from gitea_mcp.toolkit import envelope
from gitea_mcp.toolkit.base import Deps, guard
from gitea_mcp.tools import issue_get
from tests.support import TOKEN

A, B = "caller-a", "caller-b"


async def _hold(admission: Admission, caller: str, until: anyio.Event, started: list[str]) -> None:
    async with admission.slot(caller, wait=5) as refused:
        assert refused is None
        started.append(caller)
        await until.wait()


def test_a_caller_at_its_cap_waits_while_another_starts_at_once() -> None:
    async def main() -> None:
        admission = Admission(threads=4, per_caller=2)
        release, started = anyio.Event(), list[str]()
        async with anyio.create_task_group() as tasks:
            for _ in range(3):
                tasks.start_soon(_hold, admission, A, release, started)
            await anyio.wait_all_tasks_blocked()
            assert started == [A, A], "A's third call waits"
            began = time.monotonic()
            async with admission.slot(B, wait=5) as refused:
                assert refused is None and time.monotonic() - began < 0.5
            release.set()
        assert started == [A, A, A], "the waiting call started once a slot freed"
        assert admission.running(A) == 0

    anyio.run(main)


def test_a_call_that_finds_no_slot_in_time_is_refused_in_one_sentence() -> None:
    async def main() -> None:
        admission = Admission(threads=4, per_caller=2)
        release, started = anyio.Event(), list[str]()
        async with anyio.create_task_group() as tasks:
            for _ in range(2):
                tasks.start_soon(_hold, admission, A, release, started)
            await anyio.wait_all_tasks_blocked()
            began = time.monotonic()
            async with admission.slot(A, wait=0.3) as refused:
                waited = time.monotonic() - began
            release.set()
        assert refused == (
            "gitea_mcp is busy with 2 calls of this user already (at most 2 run at once per user, all its tokens "
            "together), so this call was not started and nothing was sent; try again in a few seconds."
        )
        assert 0.25 < waited < 2

    anyio.run(main)


def test_when_every_thread_is_taken_the_server_says_it_is_busy() -> None:
    async def main() -> None:
        admission = Admission(threads=2, per_caller=2)
        release, started = anyio.Event(), list[str]()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_hold, admission, A, release, started)
            tasks.start_soon(_hold, admission, "caller-c", release, started)
            await anyio.wait_all_tasks_blocked()
            async with admission.slot(B, wait=0.1) as refused:
                pass
            release.set()
        assert refused is not None and refused.startswith("The server is busy: it runs at most 2 tool calls at once")

    anyio.run(main)


def test_a_freed_slot_goes_to_the_oldest_call_that_may_take_it() -> None:
    """A slot one caller frees goes to another caller's waiting call when its own waiting call may not start."""

    async def main() -> None:
        admission = Admission(threads=2, per_caller=1)
        release_a, release_c = anyio.Event(), anyio.Event()
        started: list[str] = []
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_hold, admission, A, release_a, started)
            tasks.start_soon(_hold, admission, "caller-c", release_c, started)
            await anyio.wait_all_tasks_blocked()
            tasks.start_soon(_hold, admission, "caller-c", release_c, started)  # C at its cap: waits
            await anyio.wait_all_tasks_blocked()
            tasks.start_soon(_hold, admission, B, release_a, started)  # the server is full: waits
            await anyio.wait_all_tasks_blocked()
            release_a.set()  # A's slot frees: C may not take it (C is at its cap), B may
            await anyio.wait_all_tasks_blocked()
            assert started == [A, "caller-c", B]
            release_c.set()
        assert started == [A, "caller-c", B, "caller-c"]

    anyio.run(main)


@pytest.mark.parametrize("granted_first", [False, True], ids=["while-waiting", "just-granted"])
def test_a_cancelled_wait_gives_its_slot_back(granted_first: bool) -> None:
    """A call whose client went away while it waited holds nothing after, even when a slot was handed to it in the
    same moment (the cancellation is on its way when A's call ends and hands B its slot)."""

    async def main() -> None:
        admission = Admission(threads=1, per_caller=1)
        assert await admission._enter(A, wait=0) is None  # A holds the one slot

        async def cancel(scope: anyio.CancelScope) -> None:
            await anyio.wait_all_tasks_blocked()
            scope.cancel()
            if granted_first:
                admission._leave(A)  # hands A's slot to B's call after the cancellation was sent, before it arrived

        async with anyio.create_task_group() as tasks:
            with anyio.CancelScope() as scope:
                tasks.start_soon(cancel, scope)
                async with admission.slot(B, wait=5):
                    pytest.fail("cancelled before it started")  # pragma: no cover
        assert scope.cancelled_caught
        if not granted_first:
            admission._leave(A)
        assert admission.running(A) == admission.running(B) == 0
        async with admission.slot(B, wait=0) as refused:
            assert refused is None, "nothing is left held"

    anyio.run(main)


def test_time_waiting_for_a_slot_is_part_of_the_calls_budget() -> None:
    """The deadline starts when the call arrives: a call that waited a second for the one thread has a second less
    (four GITEA_TIMEOUTs in all, the wait included), never a fresh budget once a thread picks it up."""
    client = GiteaClient("http://127.0.0.1:9", TOKEN, timeout=2)  # a budget of 8 s
    left: list[float] = []

    def run(deps: Deps, args: object) -> CallToolResult:
        def body() -> CallToolResult:
            seconds = deps.client.time_left()
            assert seconds is not None
            left.append(seconds)
            time.sleep(1.0)  # holds the only thread
            return envelope.error("done")

        return guard(body, issue_get.TOOL.spec, deps)

    tool = dataclasses.replace(issue_get.TOOL, run=run)
    deps = Deps(client=client, policy=Policy(frozenset({"acme"})))
    server = ToolServer(
        [tool.spec],
        [tool.listing()],
        lambda _: deps,
        version="test",
        admission=Admission(threads=1, per_caller=1),
        load=lambda _: tool,
    )
    arguments = {"owner": "acme", "name": "widgets", "number": 1}

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            for _ in range(2):
                tasks.start_soon(server.call_tool, "issue_get", arguments)

    anyio.run(main)
    first, second = left
    assert first > 7.5, "the first call started at once"
    assert second < 7.2, f"the second waited about 1 s of its 8 (had {second:.2f} s left as it started)"


def test_the_settings_bound_is_the_servers_number_of_tool_calls() -> None:
    assert TOOL_CALLS == TOOL_THREADS == CALLER_THREADS
