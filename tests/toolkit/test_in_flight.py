"""Writes in flight at once (toolkit/in_flight.py): identical ones share one run, alike ones (the same key, other
fields) run one after another, any other runs at once; the key is the tool, the forge user and what the duplicate
check compares. The tools' own races (two creates at once, two tokens of one user) are in tests/tools/."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import pytest
import responses
from mcp_types import CallToolResult

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea import client as client_module
from gitea_mcp.gitea.users import Users
from gitea_mcp.toolkit import envelope, in_flight
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.in_flight import caller, run_once, single_flight, waiting
from gitea_mcp.toolkit.shared_flight import SharedFlights
from gitea_mcp.toolkit.spec import ToolSpec
from tests.support.fake_redis import FakeRedis
from tests.support.gitea_json import API, user
from tests.support.observed import recording
from tests.support.results import failed, text_of
from tests.support.waiting import wait_until

CREATE = ToolSpec.written_once(
    "issue_create", "d.", "write:issue", toolset="issues", order=1, budget=100, listed_budget=200
)
COMMENT = ToolSpec.written_once(
    "issue_comment", "d.", "write:issue", toolset="issues", order=2, budget=100, listed_budget=200
)
KEY = ("acme", "widgets", "New bug")
SAME_USER = "tok-another-of-the-same-user-0123"
OTHER_USER = "tok-of-another-user-98765"
SECONDS = 5.0  # the most any wait here may take: each ends as soon as its condition holds


def answer(text: str) -> CallToolResult:
    return envelope.error(text)  # any result will do: what matters is which call's it is


@dataclass
class Held:
    """A write that runs until let go: how many runs started, and the most at once."""

    go: threading.Event = field(default_factory=threading.Event)
    started: int = 0
    running: int = 0
    most: int = 0
    fails: Exception | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self) -> CallToolResult:
        with self._lock:
            self.started += 1
            self.running += 1
            self.most = max(self.most, self.running)
            mine = self.started
        try:
            assert self.go.wait(SECONDS), "never let go"
            if self.fails is not None:
                raise self.fails
            return answer(f"run {mine}")
        finally:
            with self._lock:
                self.running -= 1

    def runs(self, count: int) -> None:
        wait_until(lambda: self.started >= count, SECONDS, f"{count} run(s) started")


def until_waiting(calls: int) -> None:
    wait_until(lambda: waiting() >= calls, SECONDS, f"{calls} call(s) waiting on one in flight")


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(3) as threads:
        yield threads
    assert waiting() == 0, "nothing left waiting"


@pytest.fixture(autouse=True)
def users(monkeypatch: pytest.MonkeyPatch) -> Users:
    """Whose each token is, known to this test alone."""
    fresh = Users()
    monkeypatch.setattr(client_module, "USERS", fresh)
    return fresh


# -- single_flight ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rest", "runs", "hit"),
    [
        pytest.param(("b",), 1, "joined", id="identical-share-one-run"),
        pytest.param(("other",), 2, "queued", id="alike-run-after"),
    ],
)
def test_a_call_with_the_key_of_one_in_flight_waits_for_it(
    pool: ThreadPoolExecutor, rest: tuple[object, ...], runs: int, hit: str
) -> None:
    held = Held()
    with recording() as counted:
        first = pool.submit(single_flight, KEY, held, ("b",))
        held.runs(1)
        second = pool.submit(single_flight, KEY, held, rest)
        until_waiting(1)
        assert held.started == 1 and not second.done()
        held.go.set()
        one, two = first.result(SECONDS), second.result(SECONDS)
    assert (held.started, held.most) == (runs, 1), "never two runs of one key at once"
    assert (one is two) is (runs == 1)
    assert text_of(two) == f"run {runs}"
    assert counted.of("write_guard") == [("process", hit)], "the write guard's hit, counted once (metrics)"


def test_calls_with_other_keys_run_at_once(pool: ThreadPoolExecutor) -> None:
    held = Held()
    first = pool.submit(single_flight, KEY, held)
    held.runs(1)
    other = single_flight((*KEY[:2], "Another bug"), lambda: answer("other"))
    assert text_of(other) == "other" and not first.done() and waiting() == 0
    held.go.set()
    assert text_of(first.result(SECONDS)) == "run 1"


def test_a_failure_reaches_the_call_that_shared_it_and_frees_the_key(pool: ThreadPoolExecutor) -> None:
    held = Held(fails=RuntimeError("lost"))
    first = pool.submit(single_flight, KEY, held)
    held.runs(1)
    second = pool.submit(single_flight, KEY, held)
    until_waiting(1)
    held.go.set()
    for call in (first, second):
        with pytest.raises(RuntimeError, match="lost"):
            call.result(SECONDS)
    assert held.started == 1
    assert text_of(single_flight(KEY, lambda: answer("afresh"))) == "afresh", "the key is free again"


def test_a_call_done_is_no_answer_for_the_next() -> None:
    """A guard for calls in flight, not a cache: a retry after the first ended runs (its duplicate check finds the
    first's write)."""
    first = single_flight(KEY, lambda: answer("call 1"), ("b",))
    second = single_flight(KEY, lambda: answer("call 2"), ("b",))
    assert (text_of(first), text_of(second)) == ("call 1", "call 2")


# -- run_once: the key, the boundary, allow_duplicate ----------------------------------------------------------------


def as_user(deps: Deps, token: str, uid: int | None) -> Deps:
    bound = replace(deps, client=deps.client.with_token(token))
    if uid is not None:
        bound.client.learn_user(uid)
    return bound


@pytest.mark.parametrize(
    ("tool", "token", "uid", "key", "allow_duplicate", "waits"),
    [
        pytest.param(CREATE, None, 5, KEY, False, True, id="the-same-call"),
        pytest.param(CREATE, SAME_USER, 5, KEY, False, True, id="the-same-user-with-another-token"),
        pytest.param(CREATE, OTHER_USER, 6, KEY, False, False, id="another-user"),
        pytest.param(CREATE, OTHER_USER, None, KEY, False, False, id="a-token-whose-user-is-unknown"),
        pytest.param(COMMENT, None, 5, KEY, False, False, id="another-tool"),
        pytest.param(CREATE, None, 5, (*KEY[:2], "Another bug"), False, False, id="another-key"),
        pytest.param(CREATE, None, 5, KEY, True, False, id="duplicates-asked-for"),
    ],
)
def test_whose_write_and_what_it_writes_make_the_key(
    pool: ThreadPoolExecutor,
    deps: Deps,
    tool: ToolSpec,
    token: str | None,
    uid: int | None,
    key: tuple[object, ...],
    allow_duplicate: bool,
    waits: bool,
) -> None:
    first_deps = as_user(deps, "tok-first-0123456789", 5)
    second_deps = first_deps if token is None else as_user(deps, token, uid)
    held, quick = Held(), Held()
    quick.go.set()
    first = pool.submit(run_once, first_deps, CREATE, False, KEY, held, ("b",))
    held.runs(1)
    second: Future[CallToolResult] = pool.submit(run_once, second_deps, tool, allow_duplicate, key, quick, ("b",))
    if waits:
        until_waiting(1)
        assert not second.done()
    else:
        assert text_of(second.result(SECONDS)) == "run 1", "ran while the first was in flight"
    held.go.set()
    assert text_of(first.result(SECONDS)) == "run 1"
    assert (second.result(SECONDS) is first.result()) is waits and quick.started == (0 if waits else 1)


@pytest.mark.parametrize("allow_duplicate", [False, True])
def test_a_refusal_inside_is_the_calls_error_result(deps: Deps, allow_duplicate: bool) -> None:
    def refused() -> CallToolResult:
        raise ToolFailure("label 'x' does not exist in acme/widgets.")

    said = failed(run_once(deps, CREATE, allow_duplicate, KEY, refused))
    assert said == "label 'x' does not exist in acme/widgets."


# -- across replicas -------------------------------------------------------------------------------------------------


def shared(deps: Deps, fake: FakeRedis) -> Deps:
    return replace(deps, flights=SharedFlights(fake, "redis://redis.example:6379", lease=60))


def test_calls_alike_here_ask_the_shared_guard_once(pool: ThreadPoolExecutor, deps: Deps) -> None:
    """This process's guard stands in front of Redis: the second identical call waits here, and Redis sees one."""
    fake = FakeRedis()
    here = shared(as_user(deps, "tok-first-0123456789", 5), fake)
    held = Held()
    first = pool.submit(run_once, here, CREATE, False, KEY, held, ("b",))
    held.runs(1)
    second = pool.submit(run_once, here, CREATE, False, KEY, held, ("b",))
    until_waiting(1)
    held.go.set()
    assert text_of(first.result(SECONDS)) == text_of(second.result(SECONDS)) == "run 1"
    assert len(fake.leases) == 1 and fake.refused_sets == 0


@pytest.mark.parametrize(
    ("flights", "known", "answer", "expected_user"),
    [
        pytest.param(False, False, 200, True, id="one-process-unknown-user-is-looked-up"),
        pytest.param(True, False, 200, True, id="replicas-unknown-user-is-looked-up"),
        pytest.param(False, True, None, True, id="one-process-known-user"),
        pytest.param(True, True, None, True, id="replicas-known-user"),
        pytest.param(False, False, 403, False, id="no-read-user-is-its-token"),
    ],
)
def test_whose_write_it_is(
    mocked: responses.RequestsMock, deps: Deps, flights: bool, known: bool, answer: int | None, expected_user: bool
) -> None:
    """An unknown user is looked up (`GET /user`) before the key is made, in one process as across replicas: a key
    that changed once the first call learnt whose the token is would let an identical second call file again. A
    token Gitea will not name the user of stays its own caller."""
    if answer == 200:
        mocked.get(f"{API}/user", json=user("demo", 5))
    elif answer is not None:
        mocked.get(
            f"{API}/user",
            status=answer,
            json={"message": "token does not have at least one of required scope(s), required=[read:user]"},
        )
    if known:
        deps.client.learn_user(5)
    with_flights = shared(deps, FakeRedis()) if flights else deps
    expected = f"{API}|user:5" if expected_user else deps.client.cache_key
    assert caller(with_flights) == expected
    assert len(mocked.calls) == int(answer is not None)


def test_a_second_identical_create_meets_the_first_while_it_learns_whose_the_token_is(
    pool: ThreadPoolExecutor, mocked: responses.RequestsMock, deps: Deps
) -> None:
    """The key is the same before and after the first call learns the user: the second call waits on the first
    instead of running (it once keyed on the token first and on the user after, and filed twice)."""
    mocked.get(f"{API}/user", json=user("demo", 5))
    held = Held()
    first = pool.submit(run_once, deps, CREATE, False, KEY, held, ("b",))
    held.runs(1)
    deps.client.learn_user(5)  # what the first call's duplicate check learns on its way, as the write runs
    second = pool.submit(run_once, deps, CREATE, False, KEY, held, ("b",))
    until_waiting(1)
    held.go.set()
    assert text_of(first.result(SECONDS)) == text_of(second.result(SECONDS)) == "run 1"


def test_the_in_process_table_is_empty_between_calls() -> None:
    """Nothing is kept once a call ends: the table holds calls in flight only."""
    single_flight(KEY, lambda: answer("done"))
    assert in_flight._IN_FLIGHT == {} and waiting() == 0
