"""The write guard replicas share (GITEA_MCP_REDIS_URL), against the Redis stand-in (tests/support/fake_redis.py).

Two replicas are two processes, each with its own in-process guard: here `in_flight.single_flight` is made a
pass-through, so two calls in this process meet only in the shared guard, as calls on two replicas do.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
import responses
from mcp_types import CallToolResult
from redis import exceptions

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import in_flight, shared_flight
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.shared_flight import ANSWER, LOCK, SharedFlights
from gitea_mcp.tools import issue_list
from tests.support import TOKEN
from tests.support.fake_redis import FakeRedis
from tests.support.gitea_json import LABELS, ROOT, issue
from tests.support.mocks import optional
from tests.support.observed import recording
from tests.support.results import failed, ok, rows_of, text_of
from tests.support.waiting import wait_until
from tests.tools.test_issue_create import ISSUES, gitea, now, posts, run

__all__ = ["gitea"]  # the fixture, imported to be used here

WHERE = "redis://redis.example:6379"


@pytest.fixture
def fake() -> FakeRedis:
    return FakeRedis()


@pytest.fixture
def shared(fake: FakeRedis, deps: Deps) -> SharedFlights:
    return SharedFlights(fake, WHERE, lease=deps.client.call_budget + shared_flight.LEASE_MARGIN)


@pytest.fixture
def replicas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call as if on its own replica: no in-process guard in front of the shared one."""
    monkeypatch.setattr(in_flight, "single_flight", lambda key, run, rest=(): run())


def with_guard(deps: Deps, shared: SharedFlights | None) -> Deps:
    return replace(deps, flights=shared)


@dataclass
class SlowPost:
    """Every POST waits for `release`; from then on the issue list holds the issue filed."""

    release: threading.Event = field(default_factory=threading.Event)
    entered: int = 0  # POSTs that have arrived

    def writing(self, calls: int = 1) -> None:
        until(lambda: self.entered >= calls)


def slow_post(gitea: responses.RequestsMock, filed: dict[str, Any]) -> SlowPost:
    slow = SlowPost()

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        slow.entered += 1
        slow.release.wait(3)
        optional(gitea).upsert(responses.GET, ISSUES, json=[filed])  # read only by a call that runs after
        return 201, {}, json.dumps(filed)

    gitea.add_callback(responses.POST, ISSUES, callback=answer)
    return slow


def until(condition: Callable[[], bool], seconds: float = 3.0) -> None:
    wait_until(condition, seconds, "the condition", poll=0.005)


def test_a_write_takes_the_lock_for_longer_than_its_budget_and_lets_go(
    gitea: responses.RequestsMock, deps: Deps, fake: FakeRedis, shared: SharedFlights
) -> None:
    gitea.get(ISSUES, json=[])
    gitea.post(ISSUES, status=201, json=issue(301, "New bug", body="b", author="demo", created=now()))
    ok(run(with_guard(deps, shared), body="b"))
    assert fake.leases and all(lease > deps.client.call_budget * 1000 for lease in fake.leases)
    assert fake.keys(LOCK) == [], "released"
    assert len(fake.keys(ANSWER)) == 1, "its answer left for calls that waited"


@pytest.mark.usefixtures("replicas")
def test_identical_creates_on_two_replicas_file_once_and_answer_alike(
    gitea: responses.RequestsMock, deps: Deps, fake: FakeRedis, shared: SharedFlights
) -> None:
    gitea.get(ISSUES, json=[])
    slow = slow_post(gitea, issue(301, "New bug", body="b", author="demo", created=now()))
    a, b = with_guard(deps, shared), with_guard(deps, replace(shared))
    with ThreadPoolExecutor(2) as pool, recording() as counted:
        first = pool.submit(run, a, body="b")
        slow.writing()
        second = pool.submit(run, b, body="b")
        until(lambda: fake.refused_sets >= 1)  # the second found the lock held
        slow.release.set()
        one, two = first.result(), second.result()
    assert len(posts(gitea)) == 1
    assert ("replicas", "joined") in counted.of("write_guard"), "the other replica's answer, counted (metrics)"
    assert text_of(one) == text_of(two) and ok(two)[1]["number"] == 301
    assert ok(two)[1]["outcome"] == "created", "as a call waiting in the same process is answered"


@pytest.mark.usefixtures("replicas")
def test_without_the_shared_guard_two_replicas_file_twice(gitea: responses.RequestsMock, deps: Deps) -> None:
    """What the guard is for: the same two calls, no Redis, two issues."""
    gitea.get(ISSUES, json=[])
    slow = slow_post(gitea, issue(301, "New bug", body="b", author="demo", created=now()))
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, deps, body="b")
        slow.writing()
        second = pool.submit(run, deps, body="b")
        slow.writing(2)  # the second saw no duplicate either, and is writing too
        slow.release.set()
        first.result(), second.result()
    assert len(posts(gitea)) == 2


@pytest.mark.usefixtures("replicas")
def test_a_create_asking_more_on_another_replica_runs_after_and_says_what_differs(
    gitea: responses.RequestsMock, deps: Deps, fake: FakeRedis, shared: SharedFlights
) -> None:
    """Not handed the first's answer: it runs once the first let go, and its duplicate check finds the issue."""
    gitea.get(ISSUES, json=[])
    slow = slow_post(gitea, issue(301, "New bug", body="b", author="demo", labels=[LABELS[0]], created=now()))
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, with_guard(deps, shared), body="b", labels=["bug"])
        slow.writing()
        second = pool.submit(run, with_guard(deps, shared), body="b", labels=["bug", "ui"])
        until(lambda: fake.refused_sets >= 1)
        slow.release.set()
        (_, one), (_, two) = ok(first.result()), ok(second.result())
    assert len(posts(gitea)) == 1
    assert (one["outcome"], two["outcome"]) == ("created", "already_existed") and two["number"] == 301
    assert two["warnings"] == [
        "#301 already existed, but not as this call asked, and nothing was changed: labels bug (asked bug, ui)."
    ]


def test_a_failure_is_handed_on_as_its_sentence(fake: FakeRedis, shared: SharedFlights) -> None:
    """A waiter on another replica reads the holder's answer whatever it was, as a waiter in-process would."""
    key, refused = ("issue_create", "k"), CallToolResult(content=[], is_error=True)
    fake.set(LOCK + shared_flight.digest(key), "other", px=60_000, nx=True)
    waiter = ThreadPoolExecutor(1).submit(shared.run, key, (), lambda: pytest.fail("ran although answered"))
    until(lambda: fake.refused_sets >= 1)
    fake.set(ANSWER + "other", _answer((), refused), px=60_000)
    fake.eval(shared_flight.RELEASE, 1, LOCK + shared_flight.digest(key), "other")
    assert waiter.result(timeout=3) == refused


def test_only_the_holder_releases(fake: FakeRedis, shared: SharedFlights) -> None:
    """Its lease ran out and another call took the lock: letting go must not free the other's."""
    key = ("issue_create", "k")
    lock = LOCK + shared_flight.digest(key)

    def overrun() -> CallToolResult:
        fake.eval(shared_flight.RELEASE, 1, lock, fake.get(lock) or "")  # the lease ends...
        fake.set(lock, "another call", px=60_000, nx=True)  # ...and another call takes it
        return CallToolResult(content=[])

    shared.run(key, (), overrun)
    assert fake.get(lock) == "another call"


def test_a_dead_holders_lock_ends_with_its_lease_and_the_waiter_runs(fake: FakeRedis, shared: SharedFlights) -> None:
    key = ("issue_create", "k")
    fake.set(LOCK + shared_flight.digest(key), "crashed replica", px=150, nx=True)  # no answer will come
    done = CallToolResult(content=[])
    started = time.monotonic()
    assert shared.run(key, (), lambda: done) is done
    assert 0.1 < time.monotonic() - started < 2


class HeldElsewhere(FakeRedis):
    """Another replica holds every lock, and never lets go."""

    def set(self, name: str, value: str, *, px: int, nx: bool = False) -> bool | None:
        if nx:
            super().set(name, "other replica", px=px, nx=True)
        return super().set(name, value, px=px, nx=nx)


@pytest.mark.usefixtures("replicas")
def test_a_waiter_gives_up_at_its_deadline_having_sent_nothing(gitea: responses.RequestsMock) -> None:
    client = GiteaClient(ROOT, TOKEN, timeout=0.25, retry=RetryPolicy(attempts=1))  # a call's budget: 1 s
    deps = Deps(client=client, policy=Policy(frozenset({"acme"})), flights=SharedFlights(HeldElsewhere(), WHERE, 60))
    started = time.monotonic()
    text = failed(run(deps, body="b"))
    assert 0.7 < time.monotonic() - started < 2, "waited out its own deadline (less its last pause), no longer"
    assert text == (
        "The same write is still being sent by another call (on another replica), and this call ran out of time "
        "waiting for it; nothing was sent by this call. Look for what it writes before retrying."
    )
    assert len(gitea.calls) == 0


def test_redis_down_refuses_writes_in_one_sentence_and_reads_still_work(
    gitea: responses.RequestsMock, deps: Deps, fake: FakeRedis, shared: SharedFlights
) -> None:
    fake.down = True
    guarded = with_guard(deps, shared)
    text = failed(run(guarded, body="b"))
    assert text == (
        f"The shared write guard at {WHERE} cannot be reached (no connection: refused, or no such host), so nothing "
        "was sent; check GITEA_MCP_REDIS_URL and the Redis server."
    )
    assert len(gitea.calls) == 0, "nothing went to Gitea"
    gitea.get(ISSUES, json=[issue(300, "Old", author="demo", created=now(2))])
    listed = issue_list.TOOL.call(guarded, {"owner": "acme", "name": "widgets"})
    assert rows_of(ok(listed)[1])[0]["number"] == 300


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (exceptions.AuthenticationError("invalid username-password pair"), "it refused the URL's user or password"),
        (exceptions.TimeoutError("Timeout reading from socket"), "it did not answer within 3 s"),
        (exceptions.ConnectionError("Error 111 connecting to h:1."), "no connection: refused, or no such host"),
        (exceptions.ReadOnlyError("READONLY You can't write against a read only replica."), "it answered READONLY"),
        (exceptions.ResponseError("unknown failure"), "it answered with an error"),
    ],
)
def test_each_failure_of_redis_is_said_in_words(error: Exception, cause: str, shared: SharedFlights) -> None:
    def failing() -> bool:
        raise error

    with pytest.raises(shared_flight.Unreachable) as refused:
        shared._ask(failing)
    assert refused.value.cause == cause and str(error) not in str(refused.value)


def test_without_a_url_there_is_no_shared_guard() -> None:
    settings = Settings(url="https://g.example", allowed_owners=frozenset({"acme"}))
    from gitea_mcp.server.app import shared_flights

    assert shared_flights(settings) is None


def _answer(rest: tuple[object, ...], result: CallToolResult) -> str:
    asked = shared_flight.digest(rest)
    return json.dumps({"asked": asked, "result": result.model_dump(mode="json", by_alias=True)})
