"""One page of a Gitea list, as the server really served it: the rows, the total, whether more follow, the size.

Paging is the HTTP layer's knowledge (X-Total-Count, Link, a server's MAX_RESPONSE_ITEMS); tools and render read
this value and never the HTTP answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from gitea_mcp.gitea.client import ApiResponse

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Page(Generic[M]):
    rows: list[M]
    total: int | None  # X-Total-Count; None when the server sent none
    has_more: bool
    size: int  # the page size the server really used (smaller than asked on a small MAX_RESPONSE_ITEMS)
    number: int


def page_of(response: ApiResponse, model: type[M], asked: int, number: int) -> Page[M]:
    """Page `number` of `model` rows, never more than `asked` whatever the server sends."""
    rows = response.many(model)[:asked]
    size = _served_size(asked, len(rows), number, response)
    return Page(rows, response.total, _more(number, size, len(rows), response), size, number)


def _served_size(asked: int, count: int, number: int, response: ApiResponse) -> int:
    """An instance with MAX_RESPONSE_ITEMS below the ask clamps silently; a short page that is not the last one
    gives it away, and page numbers then count in its size."""
    first_of_more = number == 1 and response.total is not None and count < response.total
    if 0 < count < asked and (response.has_next or first_of_more):
        return count
    return asked


def _more(number: int, size: int, count: int, response: ApiResponse) -> bool:
    """Whether a next page exists: from the total, else from Link; with neither, a full page may have more."""
    if response.total is not None:
        return number * size < response.total and count > 0
    if response.has_links:
        return response.has_next
    return count >= size
