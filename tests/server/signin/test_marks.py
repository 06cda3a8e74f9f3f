"""marks: a code or refresh token is spent once. MemoryMarks by an injected clock and bounded; RedisMarks on the
unit tests' Redis stand-in, and (slow, skipped without redis-server) on a real one shared by two replicas."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from gitea_mcp.server.signin import marks
from gitea_mcp.server.signin.marks import PREFIX, MemoryMarks, RedisMarks, Unreachable
from tests.support.fake_redis import FakeRedis
from tests.support.redis_server import RedisServer, redis_server
from tests.support.waiting import wait_until

NOW = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


# -- in one process ----------------------------------------------------------------------------------------------


def test_memory_marks_spend_once() -> None:
    spent = MemoryMarks(Clock())
    assert [spent.spend("a", NOW + 60), spent.spend("a", NOW + 60), spent.spend("b", NOW + 60)] == [True, False, True]


@pytest.mark.parametrize(("later", "again"), [(0, False), (59, False), (60, True), (3600, True)])
def test_a_memory_mark_lasts_until_its_until(later: float, again: bool) -> None:
    clock = Clock()
    spent = MemoryMarks(clock)
    assert spent.spend("a", NOW + 60)
    clock.now = NOW + later
    assert spent.spend("a", NOW + 60 + later) is again


def test_memory_marks_keep_at_most_kept_the_oldest_going_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(marks, "KEPT", 3)
    spent = MemoryMarks(Clock())
    for jti in "abcd":
        assert spent.spend(jti, NOW + 60)
    assert len(spent._spent) == 3
    assert [spent.spend(jti, NOW + 60) for jti in "bcd"] == [False, False, False]
    assert spent.spend("a", NOW + 60), "the oldest was let go to keep the bound"


def test_when_full_the_expired_marks_go_before_any_live_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(marks, "KEPT", 3)
    clock = Clock()
    spent = MemoryMarks(clock)
    assert spent.spend("refresh", NOW + 30 * 86_400)  # oldest, but live for a month
    assert spent.spend("code-1", NOW + 120) and spent.spend("code-2", NOW + 120)
    clock.now = NOW + 121  # both codes' marks have expired
    assert spent.spend("code-3", NOW + 241)
    assert sorted(spent._spent) == ["code-3", "refresh"]
    assert not spent.spend("refresh", NOW + 30 * 86_400), "a live mark was let go while expired ones were kept"


@pytest.mark.parametrize("store", ["memory", "redis stand-in"])
def test_spent_says_whether_a_mark_is_set_without_setting_it(store: str) -> None:
    clock = Clock()
    spent = MemoryMarks(clock) if store == "memory" else RedisMarks(FakeRedis(), clock)
    assert not spent.spent("a") and not spent.spent("a")
    assert spent.spend("a", NOW + 60) and spent.spent("a")


@pytest.mark.parametrize("store", ["memory", "redis stand-in"])
def test_keep_leaves_a_value_once_and_get_reads_it_until_its_time(store: str) -> None:
    """What a refresh's retry reads back: the first keep wins (a second keeps nothing), get reads it, spend is a
    keep with no value to read back."""
    clock = Clock()
    kept = MemoryMarks(clock) if store == "memory" else RedisMarks(FakeRedis(), clock)
    assert kept.get("r") is None
    assert kept.keep("r", "first", NOW + 30) and not kept.keep("r", "second", NOW + 30)
    assert kept.get("r") == "first" and kept.spent("r")
    assert kept.spend("s", NOW + 30) and kept.get("s") in (None, "1")


def test_a_kept_value_in_memory_goes_with_its_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(marks, "KEPT", 2)
    clock = Clock()
    kept = MemoryMarks(clock)
    assert kept.keep("a", "answer", NOW + 30) and kept.spend("b", NOW + 60)
    clock.now = NOW + 31
    assert kept.get("a") is None
    assert kept.spend("c", NOW + 90)  # the third makes room: the expired one goes, its value with it
    assert "a" not in kept._values and sorted(kept._spent) == ["b", "c"]


# -- shared: the unit tests' stand-in ----------------------------------------------------------------------------


def test_redis_marks_spend_once_across_replicas_on_the_stand_in() -> None:
    store = FakeRedis()
    first, second = RedisMarks(store, Clock()), RedisMarks(store, Clock())
    assert first.spend("a", NOW + 120) and not second.spend("a", NOW + 120) and not first.spend("a", NOW + 120)
    assert store.leases == [120_000] * 3 and store.keys(PREFIX) == [PREFIX + "a"]


@pytest.mark.parametrize(("until", "px"), [(NOW + 1.5, 1500), (NOW + 0.0001, 1), (NOW - 10, 1)])
def test_redis_marks_set_the_mark_to_die_with_the_value(until: float, px: int) -> None:
    store = FakeRedis()
    assert RedisMarks(store, Clock()).spend("a", until)
    assert store.leases == [px]


def test_a_redis_that_does_not_answer_refuses_the_value() -> None:
    store = FakeRedis()
    store.down = True
    with pytest.raises(Unreachable, match="GITEA_MCP_REDIS_URL"):
        RedisMarks(store, Clock()).spend("a", NOW + 60)


# -- shared: a real redis-server ---------------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    with redis_server(tmp_path) as started:
        yield started


def store(server: RedisServer) -> Any:
    return redis.Redis.from_url(server.url, socket_timeout=1, socket_connect_timeout=1)


@pytest.mark.slow
def test_two_replicas_on_one_redis_the_first_spend_wins(server: RedisServer) -> None:
    first, second = RedisMarks(store(server)), RedisMarks(store(server))
    until = time.time() + 120
    assert first.spend("code-1", until) is True
    assert second.spend("code-1", until) is False
    assert first.spend("code-1", until) is False
    assert second.spend("code-2", until) is True


@pytest.mark.slow
def test_a_real_mark_carries_its_px_and_dies_with_it(server: RedisServer) -> None:
    client = store(server)
    spent = RedisMarks(client)
    assert spent.spend("long", time.time() + 120)
    assert 119_000 < client.pttl(PREFIX + "long") <= 120_000
    assert spent.spend("short", time.time() + 0.2)
    wait_until(lambda: client.exists(PREFIX + "short") == 0, 5, "the mark of 0.2 s expiring")
    assert spent.spend("short", time.time() + 60), "an expired mark frees nothing that could still be used"


@pytest.mark.slow
def test_a_stopped_redis_fails_closed(server: RedisServer) -> None:
    spent = RedisMarks(store(server))
    assert spent.spend("before", time.time() + 60)
    server.stop()
    started = time.monotonic()
    with pytest.raises(Unreachable, match="did not answer"):
        spent.spend("after", time.time() + 60)
    assert time.monotonic() - started < 5, "bounded by the socket timeouts"
