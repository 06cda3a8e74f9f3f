"""Per-repository lookups (labels, milestones, the token's user), cached briefly.

Label filters and label names on writes must be checked against what the repository really has:
Gitea silently drops unknown label names from a listing filter and wants ids, not names, on writes.
The cache is keyed by token too, so one caller never sees names through another caller's access. A cached
catalogue can be up to a minute old: before a caller gives a name up it reads it afresh (`since=now()` taken when
its call began: a value read during that call is not read twice).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from gitea_mcp.gitea.client import ApiResponse, GiteaClient, Segment
from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.gitea.models import Issue, Label, Milestone, User
from gitea_mcp.gitea.server import ServerInfo

T = TypeVar("T")
PAGE = 50
MAX_PAGES = 100  # a catalogue of 5,000 labels is the most that is read, whatever X-Total-Count says


class Catalog:
    def __init__(self, ttl: float = 60.0) -> None:
        self._ttl = ttl
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, ...], tuple[float, object]] = {}

    def labels(self, client: GiteaClient, owner: str, repo: str, since: float | None = None) -> list[Label]:
        """Every label of the repository itself (Gitea's list filter resolves names against these only)."""
        return self._cached(
            ("labels", client.cache_key, owner.lower(), repo.lower()),
            lambda: [Label.model_validate(x) for x in fetch_all(client, ["repos", owner, repo, "labels"])],
            since,
        )

    def org_labels(self, client: GiteaClient, owner: str, since: float | None = None) -> list[Label] | None:
        """Organisation-wide labels, which issues may carry; a user (not an org) owner has none.

        None when the token may not read them: `/orgs/…` needs read:organization, which gitea_mcp does not ask
        for. Label names are then resolved by Gitea itself when they are added (see tools/labels.py).
        """

        def load() -> list[Label] | None:
            try:
                return [Label.model_validate(x) for x in fetch_all(client, ["orgs", owner, "labels"])]
            except GiteaError as exc:
                if isinstance(exc, NotFound):
                    return []
                if exc.missing_scope:
                    return None
                raise

        return self._cached(("org_labels", client.cache_key, owner.lower()), load, since)

    def milestones(self, client: GiteaClient, owner: str, repo: str, since: float | None = None) -> list[Milestone]:
        return self._cached(
            ("milestones", client.cache_key, owner.lower(), repo.lower()),
            lambda: [
                Milestone.model_validate(x)
                for x in fetch_all(client, ["repos", owner, repo, "milestones"], {"state": "all"})
            ],
            since,
        )

    def me(self, client: GiteaClient) -> User:
        """The token's own user (for duplicate checks and @me); needs read:user."""
        return self._cached(("me", client.cache_key), lambda: client.get(["user"]).one(User))

    def server(self, client: GiteaClient) -> ServerInfo:
        """Which Gitea or Forgejo release answers (`/version` needs no scope)."""

        def load() -> ServerInfo:
            data = client.get(["version"]).data
            return ServerInfo.parse(str(data.get("version", "")) if isinstance(data, dict) else "")

        return self._cached(("server", client.cache_key), load)

    def known_server(self, client: GiteaClient) -> ServerInfo | None:
        """The release if it was read in the last minute, else None (nothing is sent): a search that needs it
        asks for it in the same round as the search itself."""
        value = self._peek(("server", client.cache_key))
        return value if isinstance(value, ServerInfo) else None

    def forget(self, kind: str, client: GiteaClient, *names: str) -> None:
        with self._lock:
            self._entries.pop((kind, client.cache_key, *(n.lower() for n in names)), None)

    def _peek(self, key: tuple[str, ...]) -> object | None:
        with self._lock:
            entry = self._entries.get(key)
        return entry[1] if entry is not None and entry[0] > now() else None

    def _cached(self, key: tuple[str, ...], load: Callable[[], T], since: float | None = None) -> T:
        """The cached value, unless it expired or was read before `since` (a `now()`): then the value read now."""
        at = now()
        with self._lock:
            entry = self._entries.get(key)
        # An entry holds its expiry, which is the moment it was read plus the ttl.
        if entry is not None and entry[0] > at and (since is None or entry[0] - self._ttl >= since):
            return entry[1]  # type: ignore[return-value]
        value = load()
        with self._lock:
            self._entries[key] = (at + self._ttl, value)
        return value


def now() -> float:
    """The catalogue's clock: a moment to pass as `since`."""
    return time.monotonic()


def milestone_named(milestones: list[Milestone], wanted: str) -> Milestone | None:
    """A milestone by exact title, else by id: the order Gitea's list reads `milestones` in."""
    by_title = next((m for m in milestones if m.title == wanted), None)
    if by_title is not None or not wanted.isdigit():
        return by_title
    return next((m for m in milestones if m.id == int(wanted)), None)


def org_labels_seen(client: GiteaClient, owner: str, names: list[str]) -> list[Label]:
    """`owner`'s organisation labels of these names, as issues show them, for a token that may not list them.

    Listing them needs read:organization; the cross-repository search (read:issue) finds issues by label name,
    and each label an issue carries says whose it is: an organisation's has the URL `…/api/v1/orgs/{org}/labels/{id}`
    (docs/server-behaviour.md). Only labels some issue carries can be seen so, and the search splits `labels` on
    commas, so a name holding one cannot be looked up.
    """
    wanted = [name for name in names if "," not in name]

    def look(name: str) -> Callable[[], ApiResponse]:
        params: dict[str, str | int] = {"owner": owner, "labels": name, "state": "all", "limit": PAGE}
        return lambda: client.get(["repos", "issues", "search"], params)

    found: dict[str, Label] = {}
    for response in client.parallel(*[look(name) for name in wanted]):
        for issue in response.many(Issue):
            for label in issue.labels:
                if label.name in wanted and label.of_org(owner):
                    found.setdefault(label.name, label)
    return list(found.values())


def fetch_all(client: GiteaClient, segments: list[Segment], params: dict[str, str | int] | None = None) -> list[object]:
    """Every page of a small collection; later pages are fetched at once when the total is known.

    Pages come in the size the server really uses: an instance whose MAX_RESPONSE_ITEMS is below PAGE answers
    `limit=50` with fewer rows, and its page 2 starts after those (verified on Gitea 1.25 with 20).
    """
    base = dict(params or {})
    first = client.get(segments, {**base, "page": 1, "limit": PAGE})
    items = list(first.data or [])
    size = len(items)
    if first.total is not None and size:
        pages = range(2, min(-(-first.total // size), MAX_PAGES) + 1)
        rest = client.parallel(*[_page_loader(client, segments, base, page) for page in pages])
        for response in rest:
            items.extend(response.data or [])
        return items
    page, response = 1, first
    while response.has_next and page < MAX_PAGES:
        page += 1
        response = client.get(segments, {**base, "page": page, "limit": PAGE})
        items.extend(response.data or [])
    return items


def _page_loader(
    client: GiteaClient, segments: list[Segment], base: dict[str, str | int], page: int
) -> Callable[[], ApiResponse]:
    return lambda: client.get(segments, {**base, "page": page, "limit": PAGE})
