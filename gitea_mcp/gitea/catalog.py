"""Per-repository lookups (labels, milestones, the token's user), cached briefly.

Label filters and label names on writes must be checked against what the repository really has:
Gitea silently drops unknown label names from a listing filter and wants ids, not names, on writes.
The cache is keyed by token too, so one caller never sees names through another caller's access. A cached
catalogue can be up to a minute old: before a caller gives a name up it reads it afresh (`newer_than=now()` taken when
its call began: a value read during that call is not read twice; `fresh`).
A catalogue is read whole or not at all (`fetch_all`: at most MAX_ROWS rows, MAX_BYTES of answers, MAX_PAGES pages):
one that cannot be is refused as too big to read, never taken for all there is. The cache drops what has expired and
holds at most ENTRIES values and ROWS_HELD rows, the oldest dropped first, since over HTTP every user brings a token.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ValidationError

from gitea_mcp.domain.invisible import scrub, scrubbed
from gitea_mcp.gitea.client import ApiResponse, GiteaClient, Segment, adapter
from gitea_mcp.gitea.errors import CatalogTooBig, GiteaError, NotFound
from gitea_mcp.gitea.release import ServerInfo

if TYPE_CHECKING:  # Gitea's JSON models (their class creation ~10 ms): imported on first use, not at start-up
    from gitea_mcp.gitea.models import Label, Milestone, User

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
PAGE = 50
# A catalogue is read whole within these, whatever X-Total-Count says, or refused (CatalogTooBig).
MAX_ROWS = 5_000
MAX_PAGES = 100
MAX_BYTES = 16 * 2**20  # of answers, all pages together (each is also at most client.MAX_BODY)
NAMES_UNCHECKED = (
    "a name not among those read may still exist, so none is checked against them: leave that name out, or, if there "
    "should not be so many, check what answers for Gitea (a proxy in front of it may be misbehaving)"
)
ROUND = 8  # pages asked at once when the count is known: the bytes in flight past MAX_BYTES are bounded too
# The cache: at most so many values and catalogue rows in all (a full 5,000-row catalogue is a few MB of models).
ENTRIES = 1_024
ROWS_HELD = 100_000


class Catalog:
    def __init__(self, ttl: float = 60.0, entries: int = ENTRIES, rows: int = ROWS_HELD) -> None:
        self._ttl = ttl
        self._most = entries
        self._rows_most = rows
        self._lock = threading.Lock()
        # Oldest first: each value is put at the end when it is read, with its expiry and its rows.
        self._entries: OrderedDict[tuple[str, ...], tuple[float, object, int]] = OrderedDict()
        self._rows = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def labels(self, client: GiteaClient, owner: str, repo: str, newer_than: float | None = None) -> list[Label]:
        """Every label of the repository itself (Gitea's list filter resolves names against these only)."""
        from gitea_mcp.gitea.models import Label  # why: the models, 30 ms: on the first call, not at start-up

        return self._cached(
            ("labels", client.cache_key, owner.lower(), repo.lower()),
            lambda: rows_as(
                Label, fetch_all(client, ["repos", owner, repo, "labels"], what=f"the labels of {owner}/{repo}")
            ),
            newer_than,
        )

    def org_labels(self, client: GiteaClient, owner: str, newer_than: float | None = None) -> list[Label] | None:
        """Organisation-wide labels, which issues may carry; a user (not an org) owner has none.

        None when the token may not read them: `/orgs/…` needs read:organization, which gitea_mcp does not ask
        for. Label names are then resolved by Gitea itself when they are added (see toolkit/labels.py).
        """

        from gitea_mcp.gitea.models import Label  # why: the models, 30 ms: on the first call, not at start-up

        def load() -> list[Label] | None:
            try:
                return rows_as(
                    Label, fetch_all(client, ["orgs", owner, "labels"], what=f"the organisation labels of {owner}")
                )
            except GiteaError as exc:
                if isinstance(exc, NotFound):
                    return []
                if exc.missing_scope:
                    return None
                raise

        return self._cached(("org_labels", client.cache_key, owner.lower()), load, newer_than)

    def milestones(
        self, client: GiteaClient, owner: str, repo: str, newer_than: float | None = None
    ) -> list[Milestone]:
        from gitea_mcp.gitea.models import Milestone  # why: the models, 30 ms: on the first call, not at start-up

        return self._cached(
            ("milestones", client.cache_key, owner.lower(), repo.lower()),
            lambda: rows_as(
                Milestone,
                fetch_all(
                    client,
                    ["repos", owner, repo, "milestones"],
                    {"state": "all"},
                    what=f"the milestones of {owner}/{repo}",
                ),
            ),
            newer_than,
        )

    def me(self, client: GiteaClient) -> User:
        """The token's own user (for duplicate checks and @me); needs read:user. Whose the token is, is learnt
        on the way (`client.caller_key`)."""
        from gitea_mcp.gitea.models import User  # why: the models, 30 ms: on the first call, not at start-up

        def load() -> User:
            user = client.get(["user"]).one(User)
            client.learn_user(user.id, user.login)
            return user

        return self._cached(("me", client.cache_key), load)

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
            self._drop((kind, client.cache_key, *(n.lower() for n in names)))

    def _peek(self, key: tuple[str, ...]) -> object | None:
        with self._lock:
            entry = self._entries.get(key)
        return entry[1] if entry is not None and entry[0] > now() else None

    def _cached(self, key: tuple[str, ...], load: Callable[[], T], newer_than: float | None = None) -> T:
        """The cached value, unless it expired or was read before `newer_than` (a `now()`): then the value read now."""
        at = now()
        with self._lock:
            entry = self._entries.get(key)
        # An entry holds its expiry, which is the moment it was read plus the ttl.
        if entry is not None and entry[0] > at and (newer_than is None or entry[0] - self._ttl >= newer_than):
            return entry[1]  # type: ignore[return-value]
        value = load()
        with self._lock:
            self._drop(key)
            rows = len(value) if isinstance(value, list) else 0
            self._entries[key] = (at + self._ttl, value, rows)
            self._rows += rows
            self._prune(at)
        return value

    def _prune(self, at: float) -> None:
        """Drop the expired values, then the oldest until the bounds hold (under the lock). Values are appended as
        they are read, so the oldest, which expire first, are at the front."""
        while self._entries:
            key, (expires, _, _) = next(iter(self._entries.items()))
            if expires > at and len(self._entries) <= self._most and self._rows <= self._rows_most:
                return
            self._drop(key)

    def _drop(self, key: tuple[str, ...]) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._rows -= entry[2]


def now() -> float:
    """The catalogue's clock: a moment to pass as `newer_than`."""
    return time.monotonic()


def rows_as(model: type[M], rows: list[object]) -> list[M]:
    """The rows read as `model`s. A row of another shape means the answer is not Gitea's list (a proxy's, another
    API's): one sentence, like a malformed page, never the validator's own report."""
    try:
        parsed: list[M] = adapter(list[model]).validate_python(rows)  # type: ignore[valid-type]
    except ValidationError:
        raise GiteaError(
            "Gitea answered a list with rows of an unexpected shape; a proxy in front of Gitea may be failing, or "
            "GITEA_URL points at the wrong place."
        ) from None
    return parsed


def fresh(read: Callable[[float | None], T], misses: Callable[[T], bool], newer_than: float | None = None) -> T:
    """`read(newer_than)`, read once more when `misses` says it lacks a name asked for: a cached catalogue can be up
    to a minute old, so a name made or renamed within its life is read afresh (newer than this call's start) before
    it is given up."""
    started = now()
    value = read(newer_than)
    return read(started) if misses(value) else value


def milestone_named(milestones: list[Milestone], wanted: str) -> Milestone | None:
    """A milestone by exact title, else by id: the order Gitea's list reads `milestones` in. A title as answers
    show it (without what renders as nothing: domain/invisible.py) finds its milestone too."""
    by_title = next((m for m in milestones if m.title == wanted), None)
    if by_title is None:
        shown = scrub(wanted)
        by_title = next((m for m in milestones if scrub(m.title) == shown), None)
    if by_title is not None or not wanted.isdigit():
        return by_title
    return next((m for m in milestones if m.id == int(wanted)), None)


def org_labels_seen(client: GiteaClient, owner: str, names: list[str]) -> list[Label]:
    """`owner`'s organisation labels of these names, as issues show them, for a token that may not list them.

    Listing them needs read:organization; the cross-repository search (read:issue) finds issues by label name,
    and each label an issue carries says whose it is: an organisation's has the URL `…/api/v1/orgs/{org}/labels/{id}`
    (docs/server-behaviour.md). Only labels some issue carries can be seen so, and the search splits `labels` on
    commas, so a name holding one cannot be looked up.

    One search for all the names (its `labels` are any-of: docs/server-behaviour.md), never one per name: the
    names one call may give are capped (policy.MAX_LABEL_NAMES), the requests they cost are one. Its one
    page holds PAGE of the issues carrying any of them: a label carried only by issues beyond it is not seen.
    """
    from gitea_mcp.gitea.models import Issue  # why: the models, 30 ms: on the first call, not at start-up

    asked = list(dict.fromkeys(name for name in names if "," not in name))
    if not asked:
        return []
    wanted = scrubbed(asked)  # a name read from an answer is matched as the answer showed it
    params: dict[str, str | int] = {"owner": owner, "labels": ",".join(asked), "state": "all", "limit": PAGE}
    found: dict[str, Label] = {}
    for issue in client.get(["repos", "issues", "search"], params).many(Issue):
        for label in issue.labels:
            if scrub(label.name) in wanted and label.of_org(owner):
                found.setdefault(label.name, label)
    return list(found.values())


def fetch_all(
    client: GiteaClient,
    segments: list[Segment],
    params: dict[str, str | int] | None = None,
    *,
    what: str,
    rows: int = MAX_ROWS,
    then: str = NAMES_UNCHECKED,
) -> list[object]:
    """Every row of a collection read whole, or CatalogTooBig saying `what` ("the labels of acme/widgets") could not
    all be read, why, and `then` (what that means, and what to do).

    Pages come in the size the server really uses: an instance whose MAX_RESPONSE_ITEMS is below PAGE answers
    `limit=50` with fewer rows, and its page 2 starts after those (verified on Gitea 1.25 with 20). With the count
    known, later pages are asked ROUND at a time; without it, they follow the Link header one by one. Never taken for
    all there is: a count over `rows` (refused before page 2), more than `rows` rows, MAX_BYTES of answers or
    MAX_PAGES pages, a page longer than asked while more is said to follow (an upstream ignoring `limit`), and a page
    that brings no row not already read (a Link looping back, an upstream ignoring `page`): there could be more, so
    a name missing from what was read cannot be said not to exist.
    """
    base = dict(params or {})
    reading = _Reading(what, then, rows)
    first = client.get(segments, {**base, "page": 1, "limit": PAGE})
    total = first.total
    if total is not None and total > rows:  # before its rows are even parsed
        raise reading.too_big(f"Gitea counts {total}, more than the {rows} read here", counted=total)
    size = reading.add(first, 1)
    if size > PAGE:  # the upstream ignores `limit`: its pages cannot be followed, and this one may be all
        if first.has_next if total is None else len(reading.items) < total:
            raise reading.too_big(f"Gitea answered more rows than asked for ({size} to limit={PAGE})")
        return reading.items
    if total is not None:
        pages = -(-total // size) if size else 1
        if pages > MAX_PAGES:
            raise reading.too_big(f"Gitea counts {total} in pages of {size}, more than {MAX_PAGES} pages")
        rest = list(range(2, pages + 1))
        for start in range(0, len(rest), ROUND):
            numbers = rest[start : start + ROUND]
            answers = client.parallel(*[_page_loader(client, segments, base, page) for page in numbers])
            for number, response in zip(numbers, answers, strict=True):
                reading.add(response, number)
        return reading.items
    page, response = 1, first
    while response.has_next:
        if page == MAX_PAGES:
            raise reading.too_big(f"more than {MAX_PAGES} pages")
        page += 1
        response = client.get(segments, {**base, "page": page, "limit": PAGE})
        reading.add(response, page)
    return reading.items


@dataclass
class _Reading:
    """The rows of one `fetch_all` so far, de-duplicated by id, within the caps."""

    what: str
    then: str
    most: int
    items: list[object] = field(default_factory=list)
    seen: set[object] = field(default_factory=set)
    size: int = 0

    def add(self, response: ApiResponse, page: int) -> int:
        """Counts a page toward the caps and keeps its new rows; how many rows it held."""
        self.size += len(response.content)
        if self.size > MAX_BYTES:
            raise self.too_big(f"Gitea's answers exceed {MAX_BYTES // 2**20} MiB in all")
        data = response.data
        rows: list[object] = data if isinstance(data, list) else []
        new = [row for row in rows if _id(row) is None or _id(row) not in self.seen]
        if rows and not new:
            raise self.too_big(f"page {page} repeats rows already read (Gitea's paging loops, or ignores `page`)")
        if len(self.items) + len(new) > self.most:
            raise self.too_big(f"more than {self.most} rows")
        self.items += new
        self.seen.update(_id(row) for row in new)
        return len(rows)

    def too_big(self, why: str, counted: int | None = None) -> CatalogTooBig:
        return CatalogTooBig(f"{self.what} could not all be read: {why}; {self.then}.", counted=counted)


def _id(row: object) -> object | None:
    return row.get("id") if isinstance(row, dict) else None


def _page_loader(
    client: GiteaClient, segments: list[Segment], base: dict[str, str | int], page: int
) -> Callable[[], ApiResponse]:
    return lambda: client.get(segments, {**base, "page": page, "limit": PAGE})
