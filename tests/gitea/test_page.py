"""A page as the server really served it: its size, whether more follow, never more rows than asked."""

from __future__ import annotations

import json

import pytest

from gitea_mcp.gitea.client import ApiResponse
from gitea_mcp.gitea.models import Issue
from gitea_mcp.gitea.page import page_of
from tests.support.gitea_json import issue


def answer(count: int, total: int | None, has_next: bool = False, links: bool = True) -> ApiResponse:
    body = json.dumps([issue(n) for n in range(count, 0, -1)]).encode()
    return ApiResponse(content=body, status=200, total=total, has_next=has_next, has_links=links)


@pytest.mark.parametrize(
    ("response", "asked", "number", "rows", "size", "more"),
    [
        pytest.param(answer(30, 100, True), 30, 1, 30, 30, True, id="full-page-more"),
        pytest.param(answer(10, 100, True), 30, 4, 10, 10, True, id="server-serves-20-not-30"),
        pytest.param(answer(20, 45), 50, 1, 20, 20, True, id="max-items-20-first-page-without-link"),
        pytest.param(answer(5, 35), 30, 2, 5, 30, False, id="last-page"),
        pytest.param(answer(80, 80), 50, 1, 50, 50, True, id="never-more-rows-than-asked"),
        pytest.param(answer(30, None, links=False), 30, 1, 30, 30, True, id="no-count-no-link-full"),
        pytest.param(answer(12, None, links=False), 30, 1, 12, 30, False, id="no-count-no-link-short"),
        pytest.param(answer(30, None, has_next=False), 30, 3, 30, 30, False, id="link-says-last"),
    ],
)
def test_page_of(response: ApiResponse, asked: int, number: int, rows: int, size: int, more: bool) -> None:
    page = page_of(response, Issue, asked, number)
    assert (len(page.rows), page.size, page.has_more, page.number) == (rows, size, more, number)
