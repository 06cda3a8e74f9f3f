"""Catalogues (labels, milestones) read whole, in the page size the server really serves, within caps; the cache
bounded."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
import responses
from requests import PreparedRequest
from responses import matchers

from gitea_mcp.gitea import catalog
from gitea_mcp.gitea.catalog import MAX_PAGES, Catalog, fetch_all
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import CatalogTooBig, GiteaError
from tests.support.gitea_json import API, ROOT, label

LABELS = f"{API}/repos/acme/widgets/labels"


def serve(rsps: responses.RequestsMock, total: int, size: int, header_total: int | None = None) -> None:
    """A server with MAX_RESPONSE_ITEMS=`size`: `limit=50` is answered with at most `size` rows per page."""
    for page in range(1, -(-total // size) + 2):
        rows = [label(f"l{i}", i) for i in range((page - 1) * size, min(page * size, total))]
        headers = {"X-Total-Count": str(header_total if header_total is not None else total)}
        rsps.get(
            LABELS, json=rows, headers=headers, match=[matchers.query_param_matcher({"page": str(page), "limit": "50"})]
        )


@pytest.mark.parametrize(("total", "size"), [(45, 20), (45, 50), (120, 50), (7, 20), (0, 50)])
def test_every_label_whatever_the_servers_page_size(total: int, size: int) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        serve(rsps, total, size)
        client = GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1))
        names = [item["name"] for item in read(client)]  # type: ignore[index]
        assert names == [f"l{i}" for i in range(total)]
        assert len(rsps.calls) == max(1, -(-total // size))


def catalogue_of(
    rows: list[dict[str, object]], headers: dict[str, str] | None = None
) -> Callable[[PreparedRequest], tuple[int, dict[str, str], str]]:
    """A callback answering every page with `rows` (a server that ignores `page`)."""
    return lambda request: (200, {"Content-Type": "application/json", **(headers or {})}, json.dumps(rows))


def read(client: GiteaClient) -> list[object]:
    return fetch_all(client, ["repos", "acme", "widgets", "labels"], what="the labels of acme/widgets")


def test_a_count_over_the_cap_is_refused_before_another_page() -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.get(LABELS, json=[label("a", 1)], headers={"X-Total-Count": "50000"})
        with pytest.raises(CatalogTooBig, match=r"^the labels of acme/widgets could not all be read: Gitea counts "):
            read(GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1)))
        assert len(rsps.calls) == 1


def test_a_catalogue_past_the_page_cap_is_refused_not_cut() -> None:
    """No count, and a next page every time (each with new rows): after MAX_PAGES it is refused, never cut short."""
    served = iter(range(10**6))

    def page(request: object) -> tuple[int, dict[str, str], str]:
        rows = [label(f"l{i}", i) for i in (next(served) for _ in range(50))]
        return 200, {"Link": f'<{LABELS}?page=2>; rel="next"'}, json.dumps(rows)

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add_callback(responses.GET, LABELS, callback=page)
        with pytest.raises(CatalogTooBig, match=f"more than {MAX_PAGES} pages"):
            read(GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1)))
        assert len(rsps.calls) == MAX_PAGES


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Link": f'<{LABELS}?page=1>; rel="next"'}, id="link-back-to-page-1"),
        pytest.param({"X-Total-Count": "150"}, id="page-ignored-with-a-count"),
    ],
)
def test_pages_that_repeat_themselves_are_refused(headers: dict[str, str]) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add_callback(responses.GET, LABELS, callback=catalogue_of([label(f"l{i}", i) for i in range(50)], headers))
        with pytest.raises(CatalogTooBig, match="repeat"):
            read(GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1)))
        assert len(rsps.calls) <= 3


def test_a_page_longer_than_asked_ends_the_reading() -> None:
    """An upstream that ignores `limit`: its rows count toward the caps, and no further page is asked for."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.get(LABELS, json=[label(f"l{i}", i) for i in range(60)], headers={"X-Total-Count": "120"})
        with pytest.raises(CatalogTooBig, match="more rows than asked"):
            read(GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1)))
        assert len(rsps.calls) == 1


def test_a_page_longer_than_asked_that_holds_everything_is_read() -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(LABELS, json=[label(f"l{i}", i) for i in range(60)], headers={"X-Total-Count": "60"})
        assert len(read(GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1)))) == 60


def test_the_bytes_of_all_pages_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages within `limit` but each of heavy rows: reading stops once the bytes read pass the cap."""
    monkeypatch.setattr(catalog, "MAX_BYTES", 200_000, raising=False)
    served = iter(range(10**6))

    def page(request: object) -> tuple[int, dict[str, str], str]:
        rows = [{**label(f"l{i}", i), "description": "x" * 1000} for i in (next(served) for _ in range(50))]
        return 200, {"Link": f'<{LABELS}?page=2>; rel="next"'}, json.dumps(rows)

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add_callback(responses.GET, LABELS, callback=page)
        with pytest.raises(CatalogTooBig, match="exceed"):
            read(GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1)))
        assert len(rsps.calls) == 4  # about 52 kB a page: the fourth passes 200 kB


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    moment = [1000.0]
    monkeypatch.setattr(catalog, "now", lambda: moment[0])
    return moment


def fill(cache: Catalog, rsps: responses.RequestsMock, tokens: range) -> None:
    for n in tokens:
        cache.server(GiteaClient(ROOT, f"token-{n}", timeout=5, retry=RetryPolicy(attempts=1)))


def test_expired_entries_are_dropped(clock: list[float]) -> None:
    cache = Catalog(ttl=60)
    with responses.RequestsMock() as rsps:
        rsps.get(f"{API}/version", json={"version": "1.25.4"})
        fill(cache, rsps, range(500))
        clock[0] += 61  # every entry expired
        fill(cache, rsps, range(500, 501))
    assert len(cache) == 1


def test_the_cache_holds_a_bounded_number_of_entries_oldest_dropped_first(clock: list[float]) -> None:
    cache = Catalog(ttl=60, entries=100)
    with responses.RequestsMock() as rsps:
        rsps.get(f"{API}/version", json={"version": "1.25.4"})
        fill(cache, rsps, range(150))
        assert len(cache) == 100
        calls = len(rsps.calls)
        fill(cache, rsps, range(149, 150))  # the newest is still held: no request
        assert len(rsps.calls) == calls
        fill(cache, rsps, range(0, 1))  # the oldest was dropped: read again
        assert len(rsps.calls) == calls + 1


@pytest.mark.parametrize(("first", "reads"), [(["v1"], [None]), ([], [None, 1000.0])])
def test_a_miss_is_read_afresh_once_since_the_call_began(
    clock: list[float], first: list[str], reads: list[object]
) -> None:
    """The one rule behind every name lookup (labels, milestones, on lists and writes): a hit is used as cached, a
    miss is read again once, as of when the call began."""
    asked: list[float | None] = []

    def read(since: float | None) -> list[str]:
        asked.append(since)
        clock[0] += 1  # reading takes time: `since` is the moment before the first read
        return first if len(asked) == 1 else ["v1"]

    assert catalog.fresh(read, lambda got: "v1" not in got) == ["v1"]
    assert asked == reads


@pytest.mark.parametrize(
    "row",
    [{"id": "seven", "name": "bug"}, {"id": 7, "name": ["bug"]}, "bug", None],
    ids=["id-not-a-number", "name-not-text", "a-bare-string", "null"],
)
def test_a_row_of_another_shape_is_one_sentence(row: object) -> None:
    """A page that parses but whose rows are not Gitea's labels: one plain sentence, never pydantic's report."""
    with responses.RequestsMock() as rsps:
        rsps.get(LABELS, json=[label("ui", 1), row], headers={"X-Total-Count": "2"})
        client = GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1))
        with pytest.raises(GiteaError) as failed:
            Catalog().labels(client, "acme", "widgets")
    assert str(failed.value) == (
        "Gitea answered a list with rows of an unexpected shape; a proxy in front of Gitea may be failing, or "
        "GITEA_URL points at the wrong place."
    )
