"""The HTTP layer: bounded retries for reads only, Retry-After honoured, headers parsed, tokens kept out."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
import requests
import responses

from gitea_mcp import __version__
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import GiteaError
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT

URL = f"{API}/repos/acme/widgets/issues"


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr("gitea_mcp.gitea.client.time.sleep", slept.append)
    return slept


def client(timeout: float = 5, **retry: float) -> GiteaClient:
    return GiteaClient(ROOT, TOKEN, timeout=timeout, retry=RetryPolicy(**retry))  # type: ignore[arg-type]


def within(gitea: GiteaClient, call: float | None) -> GiteaClient:
    """`gitea` inside a tool call with `call` seconds left, or outside any call (None)."""
    return gitea if call is None else gitea.until(time.monotonic() + call)


@pytest.mark.parametrize(
    ("first", "retried"),
    [
        ({"status": 503}, True),
        ({"status": 502}, True),
        ({"status": 504}, True),
        ({"status": 429, "headers": {"Retry-After": "2"}}, True),
        ({"body": requests.ConnectionError()}, True),
        ({"status": 500}, False),  # Gitea's 500s are mostly deterministic
        ({"status": 404}, False),
        ({"status": 422}, False),
    ],
)
def test_reads_retry_transient_failures(sleeps: list[float], first: dict[str, object], retried: bool) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.get(URL, **first)
        rsps.get(URL, json=[], headers={"X-Total-Count": "0"})
        if retried:
            assert client().get(["repos", "acme", "widgets", "issues"]).total == 0
            assert len(rsps.calls) == 2 and len(sleeps) == 1
        else:
            with pytest.raises(GiteaError):
                client().get(["repos", "acme", "widgets", "issues"])
            assert len(rsps.calls) == 1 and sleeps == []


def test_retry_after_is_honoured(sleeps: list[float]) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=429, headers={"Retry-After": "3"})
        rsps.get(URL, json=[])
        client().get(["repos", "acme", "widgets", "issues"])
    assert sleeps == [3.0]


def test_retry_after_beyond_budget_fails_at_once(sleeps: list[float]) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=429, headers={"Retry-After": "120"})
        with pytest.raises(GiteaError, match="asked to wait 120 s"):
            client(budget=10).get(["repos", "acme", "widgets", "issues"])
    assert sleeps == []


SERVER_NOW = datetime(2026, 12, 1, 23, 50, tzinfo=UTC)  # the Date header of the 429


def http_date(moment: datetime) -> str:
    return format_datetime(moment, usegmt=True)


@pytest.mark.parametrize(
    ("headers", "call", "waits"),
    [
        ({"Retry-After": "1"}, None, [1.0]),
        ({"Retry-After": "12"}, None, [12.0]),  # timeout=5: a call's budget is 20 s
        ({"Retry-After": "12"}, 30.0, [12.0]),  # inside a tool call, its deadline is what counts
        ({"Retry-After": "0"}, None, "backoff"),  # no wait asked: the usual jittered backoff
        (
            {"Date": http_date(SERVER_NOW), "Retry-After": http_date(SERVER_NOW + timedelta(seconds=12))},
            None,
            [12.0],  # an HTTP date, counted from the server's own clock
        ),
        (
            {"Date": http_date(SERVER_NOW), "Retry-After": "Tue Dec  1 23:50:07 2026"},  # asctime, RFC 9110 5.6.7
            None,
            [7.0],
        ),
        (
            {"Date": http_date(SERVER_NOW), "Retry-After": http_date(SERVER_NOW - timedelta(seconds=30))},
            None,
            "backoff",  # a date already past: no wait asked
        ),
    ],
)
def test_a_read_waits_what_the_server_asks_within_the_call(
    sleeps: list[float], headers: dict[str, str], call: float | None, waits: list[float] | str
) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=429, headers=headers)
        rsps.get(URL, json=[])
        within(client(timeout=5), call).get(["repos", "acme", "widgets", "issues"])
        assert len(rsps.calls) == 2
    if waits == "backoff":
        assert len(sleeps) == 1 and 0 <= sleeps[0] <= RetryPolicy().base_delay
    else:
        assert sleeps == waits


def test_an_http_date_without_a_date_header_counts_from_this_clock(sleeps: list[float]) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=503, headers={"Retry-After": http_date(datetime.now(UTC) + timedelta(seconds=9))})
        rsps.get(URL, json=[])
        client().get(["repos", "acme", "widgets", "issues"])
    assert len(sleeps) == 1 and 7 <= sleeps[0] <= 9  # the header has whole seconds; a second may pass meanwhile


@pytest.mark.parametrize(
    ("status", "headers", "call", "message"),
    [
        (
            429,
            {"Retry-After": "600"},
            None,
            "Gitea asked to wait 600 s before the next request (429); try again after that.",
        ),
        (
            429,
            {"Retry-After": "12"},
            8.0,  # the tool call has 8 s left: a 12 s wait cannot fit
            "Gitea asked to wait 12 s before the next request (429); try again after that.",
        ),
        (
            503,
            {"Retry-After": "90"},
            None,
            "Gitea asked to wait 90 s before the next request (503); try again after that.",
        ),
        (
            429,
            {"Date": http_date(SERVER_NOW), "Retry-After": http_date(SERVER_NOW + timedelta(seconds=600))},
            None,
            "Gitea asked to wait until 2026-12-02 00:00:00 UTC (600 s) before the next request (429); "
            "try again after that.",
        ),
    ],
)
def test_a_wait_beyond_the_deadline_fails_at_once_naming_it(
    sleeps: list[float], status: int, headers: dict[str, str], call: float | None, message: str
) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=status, headers=headers)
        with pytest.raises(GiteaError) as info:
            within(client(timeout=5), call).get(["repos", "acme", "widgets", "issues"])
        assert len(rsps.calls) == 1
    assert str(info.value) == message and info.value.status == status
    assert sleeps == []


@pytest.mark.parametrize("method", ["POST", "PATCH", "PUT", "DELETE"])
def test_a_rate_limited_write_is_never_retried_and_names_the_wait(sleeps: list[float], method: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.add(method, URL, status=429, headers={"Retry-After": "1"})
        with pytest.raises(GiteaError) as info:
            client().write(method, ["repos", "acme", "widgets", "issues"], {"title": "x"})
        assert len(rsps.calls) == 1
    assert str(info.value) == "Gitea asked to wait 1 s before the next request (429); try again after that."
    assert sleeps == []


def test_every_request_names_the_product_and_its_version() -> None:
    expected = f"gitea-issues-mcp/{__version__} (python-requests/{requests.__version__})"
    gitea = client().with_token("other-token")
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[])
        rsps.get(f"{API}/version", json={"version": "1.25.4"})
        rsps.post(URL, json={}, status=201)
        gitea.get(["repos", "acme", "widgets", "issues"])
        gitea.parallel(lambda: gitea.get(["version"]), lambda: gitea.get(["version"]))  # a worker thread's too
        gitea.write("POST", ["repos", "acme", "widgets", "issues"], {"title": "x"})
        agents = [call.request.headers["User-Agent"] for call in rsps.calls]
    assert agents == [expected] * 4


def test_attempts_are_bounded(sleeps: list[float]) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, status=503)
        with pytest.raises(GiteaError, match="503"):
            client(attempts=3).get(["repos", "acme", "widgets", "issues"])
        assert len(rsps.calls) == 3
    assert len(sleeps) == 2 and all(0 <= s <= 4 for s in sleeps)


@pytest.mark.parametrize("method", ["POST", "PATCH", "PUT", "DELETE"])
def test_writes_are_never_retried(sleeps: list[float], method: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.add(method, URL, status=503)
        with pytest.raises(GiteaError):
            client().write(method, ["repos", "acme", "widgets", "issues"], {"title": "x"})
        assert len(rsps.calls) == 1
    assert sleeps == []


def test_lost_write_says_so() -> None:
    with responses.RequestsMock() as rsps:
        rsps.post(URL, body=requests.ReadTimeout())
        with pytest.raises(GiteaError, match="may or may not have been applied") as info:
            client().write("POST", ["repos", "acme", "widgets", "issues"], {})
    assert info.value.status == 0


@pytest.mark.parametrize(
    ("headers", "total", "has_next"),
    [
        ({"X-Total-Count": "12", "Link": f'<{URL}?page=2>; rel="next", <{URL}?page=3>; rel="last"'}, 12, True),
        ({"X-Total-Count": "12", "Link": f'<{URL}?page=1>; rel="first", <{URL}?page=2>; rel="prev"'}, 12, False),
        ({}, None, False),
        ({"X-Total-Count": "many"}, None, False),
        # A total that is not a plain decimal count is unknown, never shown ("-7 matches"); Go writes digits only.
        ({"X-Total-Count": "-7"}, None, False),
        ({"X-Total-Count": "+7"}, None, False),
        ({"X-Total-Count": "1_000"}, None, False),
        ({"X-Total-Count": "\u0667"}, None, False),  # Arabic-Indic 7
        ({"X-Total-Count": "9" * 5000}, None, False),
    ],
)
def test_paging_headers(headers: dict[str, str], total: int | None, has_next: bool) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(URL, json=[], headers=headers)
        response = client().get(["repos", "acme", "widgets", "issues"])
    assert (response.total, response.has_next) == (total, has_next)


def test_token_header_and_encoded_segments() -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(f"{API}/repos/acme/we%20ird/issues", json=[])
        client().get(["repos", "acme", "we ird", "issues"])
        sent = rsps.calls[0].request
    assert sent.headers["Authorization"] == f"token {TOKEN}"
    assert TOKEN not in repr(client())


def test_with_token_shares_the_session() -> None:
    base = client()
    other = base.with_token("other-token")
    assert other._shared is base._shared and other.cache_key != base.cache_key


def test_nested_parallel_cannot_deadlock() -> None:
    """Many callers, each fanning out into calls that fan out again, on one small pool: all finish."""
    base = client()

    def inner() -> int:
        return sum(base.parallel(lambda: 1, lambda: 1, lambda: 1))

    def outer() -> int:
        return sum(base.parallel(inner, inner, inner, inner))

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=40) as callers:
        results = list(callers.map(lambda _: outer(), range(40), timeout=30))
    assert results == [12] * 40


def test_credentials_in_the_url_never_reach_a_message() -> None:
    leaky = GiteaClient("https://bob:hunter2@gitea.test:3000", None, timeout=5, retry=RetryPolicy(attempts=1))
    with responses.RequestsMock() as rsps:
        rsps.get("https://bob:hunter2@gitea.test:3000/api/v1/version", body=requests.ConnectionError())
        with pytest.raises(GiteaError) as info:
            leaky.get(["version"])
    assert "hunter2" not in str(info.value) and "https://gitea.test:3000" in str(info.value)
    assert "hunter2" not in repr(leaky)
