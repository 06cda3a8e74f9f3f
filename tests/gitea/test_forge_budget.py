"""The deployment's budget of requests toward the forge, as the one HTTP layer spends it (gitea/client.py): a short
wait for room, a plain refusal before anything is sent, and the forge's own Retry-After and rate-limit headers
pausing it for every client that shares it."""

from __future__ import annotations

import contextlib

import pytest
import responses

from gitea_mcp.gitea.client import BUDGET_WAIT, GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import GiteaError, OverBudget
from gitea_mcp.gitea.rates import Budget, Local
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT

ISSUES = ["repos", "acme", "widgets", "issues"]
URL = f"{API}/repos/acme/widgets/issues"


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr("gitea_mcp.gitea.client.time.sleep", slept.append)
    return slept


def budgeted(per_minute: int, clock: Clock) -> GiteaClient:
    budget = Budget(Local(clock), per_minute, ROOT)
    return GiteaClient(ROOT, TOKEN, timeout=5, retry=RetryPolicy(attempts=1), budget=budget)


def test_within_the_budget_requests_go_at_once(sleeps: list[float]) -> None:
    gitea = budgeted(600, Clock())
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[])
        for _ in range(5):
            gitea.get(ISSUES)
        assert len(rsps.calls) == 5
    assert sleeps == []


def test_a_spent_budget_makes_a_read_wait_briefly_then_it_is_sent(sleeps: list[float]) -> None:
    clock = Clock()
    gitea = budgeted(60, clock)
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[])
        for _ in range(61):
            gitea.get(ISSUES)
        assert len(rsps.calls) == 61
    assert sleeps == [pytest.approx(1.0)], "the 61st waited one interval, its place in the budget held"


def test_a_write_the_budget_has_no_room_for_is_refused_before_it_is_sent(sleeps: list[float]) -> None:
    gitea = budgeted(1, Clock())
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[])
        gitea.get(ISSUES)
        with pytest.raises(OverBudget) as refused:
            gitea.write("POST", ISSUES, {"title": "t"})
        assert [call.request.method for call in rsps.calls] == ["GET"], "the POST never left"
    assert str(refused.value) == (
        "This server's budget of requests to Gitea is spent for now (1 a minute for all its users, "
        "GITEA_MCP_FORGE_REQUESTS_PER_MINUTE, or a pause Gitea asked for), so POST /repos/acme/widgets/issues waited "
        "no longer and nothing was sent, so nothing changed; try again in 60 s."
    )
    assert refused.value.retry_after == 60 and sleeps == []


def test_the_wait_is_bounded_by_what_is_left_of_the_call(sleeps: list[float]) -> None:
    clock = Clock()
    gitea = budgeted(60, clock)
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[])
        for _ in range(60):
            gitea.get(ISSUES)
        import time

        with pytest.raises(OverBudget):
            gitea.until(time.monotonic() + 0.5).get(ISSUES)  # 1 s to wait, half a second left
        assert len(rsps.calls) == 60
    assert sleeps == [] and BUDGET_WAIT >= 1


@pytest.mark.parametrize(
    ("status", "headers", "paused"),
    [
        (429, {"Retry-After": "30"}, 30),
        (503, {"Retry-After": "12"}, 12),
        (200, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "20"}, 20),
        (200, {"X-RateLimit-Remaining": "5", "X-RateLimit-Reset": "20"}, None),
        (502, {"Retry-After": "30"}, None),  # a proxy's 502 says nothing of the forge's limit
    ],
)
def test_the_forges_own_limits_pause_the_budget_for_every_client(
    sleeps: list[float], status: int, headers: dict[str, str], paused: int | None
) -> None:
    clock = Clock()
    gitea = budgeted(600, clock)
    other = gitea.with_token("another-users-token-0123456789")  # another caller of the same deployment
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=status, headers=headers, json=[])
        rsps.get(URL, json=[])
        with contextlib.suppress(GiteaError):
            gitea.get(ISSUES)
        if paused is None:
            other.get(ISSUES)
            assert len(rsps.calls) == 2
            return
        with pytest.raises(OverBudget, match=f"try again in {paused} s"):
            other.get(ISSUES)
        assert len(rsps.calls) == 1, "refused before it was sent"
        clock.now += paused
        other.get(ISSUES)
        assert len(rsps.calls) == 2, "once the pause is over, requests go again"


def test_a_spent_budget_is_not_retried_as_a_busy_forge_would_be(sleeps: list[float]) -> None:
    budget = Budget(Local(Clock()), 1, ROOT)
    gitea = GiteaClient(ROOT, TOKEN, timeout=5, budget=budget)  # the default policy: reads retried
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[])
        gitea.get(ISSUES)
        with pytest.raises(OverBudget):
            gitea.get(ISSUES)
        assert len(rsps.calls) == 1
    assert sleeps == []
