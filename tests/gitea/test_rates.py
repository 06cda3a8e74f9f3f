"""gitea/rates.py: so many a minute per key (GCRA), in process with a fake clock and on a real redis-server, shared
by two processes; the forge's rate-limit headers read."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitea_mcp.gitea.rates import MAX_PAUSE, Budget, Local, Rate, Shared, Taken, key, reset_after


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_whole_minute_may_be_spent_at_once_then_one_an_interval() -> None:
    clock = Clock()
    store, rate = Local(clock), Rate(60)
    assert all(store.take("k", rate, 0).granted for _ in range(60))
    refused = store.take("k", rate, 0)
    assert refused == Taken(False, pytest.approx(1.0)), "the 61st within the second: one interval (1 s) to wait"  # type: ignore[arg-type]
    clock.now += 0.999
    assert not store.take("k", rate, 0).granted
    clock.now += 0.001
    assert store.take("k", rate, 0).granted, "one interval later exactly one more passes"
    assert not store.take("k", rate, 0).granted


@pytest.mark.parametrize(
    ("idle", "passes"),
    [(0.0, 0), (1.0, 1), (30.0, 30), (59.0, 59), (60.0, 60), (600.0, 60)],  # never more than a minute's worth
)
def test_the_allowance_refills_one_an_interval_up_to_a_minutes_worth(idle: float, passes: int) -> None:
    clock = Clock()
    store, rate = Local(clock), Rate(60)
    for _ in range(60):
        store.take("k", rate, 0)
    clock.now += idle
    granted = 0
    while store.take("k", rate, 0).granted:
        granted += 1
    assert granted == passes


def test_keys_are_apart() -> None:
    store, rate = Local(Clock()), Rate(1)
    assert store.take("alice", rate, 0).granted and store.take("bob", rate, 0).granted
    assert not store.take("alice", rate, 0).granted


def test_a_take_may_be_granted_later_in_time_order_within_its_wait() -> None:
    clock = Clock()
    store, rate = Local(clock), Rate(60)
    for _ in range(60):
        store.take("k", rate, 0)
    waits = [store.take("k", rate, 2.5) for _ in range(3)]
    expected = [Taken(True, pytest.approx(1.0)), Taken(True, pytest.approx(2.0)), Taken(False, pytest.approx(3.0))]  # type: ignore[arg-type]
    assert waits == expected


def test_a_pause_lets_nothing_through_until_it_ends_then_one_at_a_time() -> None:
    clock = Clock()
    store, rate = Local(clock), Rate(600)
    store.pause("k", rate, 30)
    assert store.take("k", rate, 0) == Taken(False, pytest.approx(30.0))  # type: ignore[arg-type]
    clock.now += 30
    assert store.take("k", rate, 0).granted
    # No burst after a pause: the steady pace.
    assert store.take("k", rate, 0) == Taken(False, pytest.approx(0.1))  # type: ignore[arg-type]


def test_a_pause_never_shortens_one_already_longer_and_is_bounded() -> None:
    clock = Clock()
    store, rate = Local(clock), Rate(60)
    store.pause("k", rate, 50)
    store.pause("k", rate, 5)
    assert store.take("k", rate, 0).wait == pytest.approx(50.0)
    store.pause("j", rate, 10 * MAX_PAUSE)
    assert store.take("j", rate, 0).wait == pytest.approx(MAX_PAUSE)


def test_keys_whose_allowance_is_whole_again_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gitea_mcp.gitea.rates.KEPT", 10)
    clock = Clock()
    store, rate = Local(clock), Rate(60)
    for number in range(10):
        store.take(f"k{number}", rate, 0)
    clock.now += 2  # their single take has been refilled
    store.take("new", rate, 0)
    assert len(store._tat) == 1


def test_a_key_holds_no_name_or_token() -> None:
    made = key("calls", "https://gitea.example/api/v1|user:7")
    assert made.startswith("gitea-mcp:rate:calls:") and "user" not in made.removeprefix("gitea-mcp:rate:calls:")


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "20"}, 20.0),  # seconds from now
        ({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000030"}, 30.0),  # a Unix time
        ({"ratelimit-remaining": "0", "ratelimit-reset": "7"}, 7.0),  # the IETF draft's names
        ({"X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "20"}, None),  # some left: no pause
        ({"X-RateLimit-Remaining": "0"}, None),  # no reset said
        ({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "soon"}, None),
        ({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "nan"}, None),
        ({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1699999990"}, None),  # past
        ({}, None),
    ],
)
def test_the_forges_rate_limit_headers(headers: dict[str, str], seconds: float | None) -> None:
    import requests

    said = requests.structures.CaseInsensitiveDict(headers)
    assert reset_after(said, now=lambda: 1_700_000_000.0) == seconds


def test_the_budget_is_one_key_per_forge() -> None:
    store = Local(Clock())
    one, other = Budget(store, 1, "https://a.example"), Budget(store, 1, "https://b.example")
    assert one.spend(0).granted and other.spend(0).granted and not one.spend(0).granted


# -- on a real Redis -------------------------------------------------------------------------------------------


@pytest.fixture
def shared(redis_url: str) -> Iterator[Shared]:
    from gitea_mcp.toolkit.shared_flight import store

    client = store(redis_url)
    try:
        yield Shared(client, redis_url)
    finally:
        client.close()


@pytest.mark.slow
def test_on_redis_a_minutes_worth_passes_then_the_wait_is_said(shared: Shared) -> None:
    rate = Rate(60)
    assert all(shared.take("k", rate, 0).granted for _ in range(60))
    refused = shared.take("k", rate, 0)
    assert not refused.granted and 0.9 < refused.wait <= 1.0
    granted_later = shared.take("k", rate, 1.5)
    assert granted_later.granted and 0.9 < granted_later.wait <= 1.0, "queued: go in about an interval"
    assert shared.take("other", rate, 0).granted


@pytest.mark.slow
def test_on_redis_a_pause_holds_every_take_until_it_ends(shared: Shared) -> None:
    rate = Rate(600)
    shared.pause("k", rate, 30)
    refused = shared.take("k", rate, 0)
    assert not refused.granted and 29.5 < refused.wait <= 30.0
    shared.pause("k", rate, 5)  # shorter: the longer one stands
    assert 29 < shared.take("k", rate, 0).wait <= 30.0


@pytest.mark.slow
def test_on_redis_the_key_expires_once_the_allowance_is_whole(shared: Shared, redis_url: str) -> None:
    from gitea_mcp.toolkit.shared_flight import store

    shared.take("k", Rate(60), 0)
    ttl = store(redis_url).pttl("k")
    assert 0 < ttl <= 1_001, "a key left behind lives as long as its allowance is not whole: Redis keeps no litter"


@pytest.mark.slow
def test_an_unreachable_redis_fails_open_and_says_so_once(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    from gitea_mcp.toolkit.shared_flight import store

    url = f"unix://{tmp_path}/none.sock"
    shared = Shared(store(url), url, clock=Clock())
    assert [shared.take("k", Rate(1), 0) for _ in range(3)] == [Taken(True, 0.0)] * 3
    said = [record.getMessage() for record in caplog.records if "did not answer" in record.getMessage()]
    assert said == [f"the rate limits' Redis at unix://{tmp_path}/none.sock did not answer (ConnectionError): calls "
                    "go on unlimited until it does"]  # fmt: skip


TAKER = textwrap.dedent(
    """
    import sys
    from gitea_mcp.gitea.rates import Rate, Shared
    from gitea_mcp.toolkit.shared_flight import store
    url = sys.argv[1]
    limiter = Shared(store(url), url)
    print(sum(limiter.take("shared-user", Rate(30), 0).granted for _ in range(40)))
    """
)


@pytest.mark.slow
def test_two_processes_share_one_allowance(redis_url: str) -> None:
    """Two replicas of one user: 40 takes each against 30 a minute; together exactly 30 pass, however they
    interleave."""
    processes = [
        subprocess.Popen([sys.executable, "-c", TAKER, redis_url], stdout=subprocess.PIPE, text=True) for _ in range(2)
    ]
    counts = []
    for process in processes:
        out, _ = process.communicate(timeout=30)
        assert process.returncode == 0
        counts.append(int(out))
    assert sum(counts) == 30, counts
