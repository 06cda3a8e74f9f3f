"""Per-repository lookups (labels, milestones, the token's user), cached briefly.

Label filters and label names on writes must be checked against what the repository really has:
Gitea silently drops unknown label names from a listing filter and wants ids, not names, on writes.
The cache is keyed by token too, so one caller never sees names through another caller's access.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from gitea_mcp.gitea.client import ApiResponse, GiteaClient, Segment
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.models import Label, Milestone, User

T = TypeVar("T")
PAGE = 50


class Catalog:
    def __init__(self, ttl: float = 60.0) -> None:
        self._ttl = ttl
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, ...], tuple[float, object]] = {}

    def labels(self, client: GiteaClient, owner: str, repo: str) -> list[Label]:
        """Every label of the repository itself (Gitea's list filter resolves names against these only)."""
        return self._cached(
            ("labels", client.cache_key, owner.lower(), repo.lower()),
            lambda: [Label.model_validate(x) for x in fetch_all(client, ["repos", owner, repo, "labels"])],
        )

    def org_labels(self, client: GiteaClient, owner: str) -> list[Label]:
        """Organisation-wide labels, which issues may carry; a user (not an org) owner has none."""

        def load() -> list[Label]:
            try:
                return [Label.model_validate(x) for x in fetch_all(client, ["orgs", owner, "labels"])]
            except GiteaError as exc:
                if exc.status == 404:
                    return []
                raise

        return self._cached(("org_labels", client.cache_key, owner.lower()), load)

    def milestones(self, client: GiteaClient, owner: str, repo: str) -> list[Milestone]:
        return self._cached(
            ("milestones", client.cache_key, owner.lower(), repo.lower()),
            lambda: [
                Milestone.model_validate(x)
                for x in fetch_all(client, ["repos", owner, repo, "milestones"], {"state": "all"})
            ],
        )

    def me(self, client: GiteaClient) -> User:
        """The token's own user (for duplicate checks and @me)."""
        return self._cached(("me", client.cache_key), lambda: client.get(["user"]).one(User))

    def is_cached(self, kind: str, client: GiteaClient, *names: str) -> bool:
        key = (kind, client.cache_key, *(n.lower() for n in names))
        with self._lock:
            entry = self._entries.get(key)
        return entry is not None and entry[0] > time.monotonic()

    def forget(self, kind: str, client: GiteaClient, *names: str) -> None:
        with self._lock:
            self._entries.pop((kind, client.cache_key, *(n.lower() for n in names)), None)

    def _cached(self, key: tuple[str, ...], load: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and entry[0] > now:
            return entry[1]  # type: ignore[return-value]
        value = load()
        with self._lock:
            self._entries[key] = (now + self._ttl, value)
        return value


def fetch_all(client: GiteaClient, segments: list[Segment], params: dict[str, str | int] | None = None) -> list[object]:
    """Every page of a small collection; later pages are fetched at once when the total is known."""
    base = dict(params or {})
    first = client.get(segments, {**base, "page": 1, "limit": PAGE})
    items = list(first.data or [])
    if first.total is not None:
        pages = range(2, -(-first.total // PAGE) + 1)
        rest = client.parallel(*[_page_loader(client, segments, base, page) for page in pages])
        for response in rest:
            items.extend(response.data or [])
        return items
    page, response = 1, first
    while response.has_next and page < 100:
        page += 1
        response = client.get(segments, {**base, "page": page, "limit": PAGE})
        items.extend(response.data or [])
    return items


def _page_loader(
    client: GiteaClient, segments: list[Segment], base: dict[str, str | int], page: int
) -> Callable[[], ApiResponse]:
    return lambda: client.get(segments, {**base, "page": page, "limit": PAGE})
