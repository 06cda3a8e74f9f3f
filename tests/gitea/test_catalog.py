"""Catalogues (labels, milestones) read whole, in the page size the server really serves."""

from __future__ import annotations

import pytest
import responses
from responses import matchers

from gitea_mcp.gitea.catalog import fetch_all
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
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
        names = [item["name"] for item in fetch_all(client, ["repos", "acme", "widgets", "labels"])]  # type: ignore[index]
        assert names == [f"l{i}" for i in range(total)]
        assert len(rsps.calls) == max(1, -(-total // size))


def test_a_lying_total_cannot_fan_out_without_bound() -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.get(LABELS, json=[label("a", 1)], headers={"X-Total-Count": "50000"})
        client = GiteaClient(ROOT, "t", timeout=5, retry=RetryPolicy(attempts=1))
        fetch_all(client, ["repos", "acme", "widgets", "labels"])
        assert len(rsps.calls) == 100
