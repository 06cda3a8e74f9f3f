"""Lockdown for public forges (GITEA_LOCKDOWN): what users without write access wrote is withheld from every answer.

On a public forge anyone can write an issue or a comment that an agent will read. With lockdown on, every text a
tool would show — an issue's body, its comments, a pull request's reviews and their inline comments — whose author
has no write access to the repository is replaced by one line naming the author and why (`withheld_line`), and the
titles of issues they opened are marked (`TITLE_MARK`), the same in both faces of the answer: the tools screen
Gitea's models here before building either face (`Decision.screen`), so nothing else renders them.

Trusted means write access as Gitea grants it (gitea/permissions.py reads it): the repository's owner, its direct
collaborators with write or admin, members of organisation teams whose issues unit is write, site admins and org
owners, and the logins the operator names (GITEA_LOCKDOWN_TRUSTED). What the token cannot read is withheld: lockdown
fails closed, and says so in the line. No tool argument lifts it: it is the operator's setting, handed to the tools
in `Deps`. Label and milestone descriptions are not screened: only the repository's writers (or the organisation's)
can write them. Neither are logins and full names (assignee_list), which Gitea itself shows for anyone.

Verdicts that were confirmed (writer or not) are kept TTL seconds per repository and login, at most ENTRIES of them,
in this process; one not confirmed is asked again on the next call (a token that can read more may confirm it).
"""

from __future__ import annotations

import enum
import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeAlias, TypeVar, cast

from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.toolkit import render

if TYPE_CHECKING:  # Gitea's JSON models and the reads (their class creation ~10 ms): on first use, not at start-up
    from gitea_mcp.gitea.client import GiteaClient
    from gitea_mcp.gitea.models import Comment, Issue, PullReview, PullReviewComment, Team, TimelineEntry, User

# What a title opened by a user without write access starts with, in both faces; never written back: the write
# tools take it off a title they are given (toolkit/arguments.py, `unmarked`).
TITLE_MARK = "(untrusted author) "
TTL = 60.0
ENTRIES = 4_096

Authored: TypeAlias = "Issue | Comment | PullReview | PullReviewComment | TimelineEntry"
T = TypeVar("T", "Issue", "Comment", "PullReview", "PullReviewComment", "TimelineEntry")
# The write roles, as gitea/permissions.py has them (imported there on first use).
_WRITE_ROLES = frozenset({"write", "admin", "owner"})


class Verdict(enum.Enum):
    WRITER = "writer"
    NOT_WRITER = "not a writer"
    UNCONFIRMED = "not confirmed"


K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """Values kept `ttl` seconds each, at most `entries` of them, the oldest dropped first; thread-safe."""

    def __init__(self, ttl: float = TTL, entries: int = ENTRIES) -> None:
        self._ttl = ttl
        self._most = entries
        self._lock = threading.Lock()
        self._held: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)

    def get(self, key: K) -> V | None:
        with self._lock:
            held = self._held.get(key)
            if held is None:
                return None
            if held[0] <= time.monotonic():
                del self._held[key]
                return None
            return held[1]

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._held.pop(key, None)
            self._held[key] = (time.monotonic() + self._ttl, value)
            while len(self._held) > self._most:
                self._held.popitem(last=False)


class TrustCache:
    """Confirmed verdicts by (repository, login), lower-case, and each repository's writer teams as read (lists
    only, never an error), each kept `ttl` seconds."""

    def __init__(self, ttl: float = TTL, entries: int = ENTRIES) -> None:
        self._verdicts: Kept[tuple[str, str], Verdict] = Kept(ttl, entries)
        self._teams: Kept[str, Teams] = Kept(ttl, entries)

    def __len__(self) -> int:
        return len(self._verdicts)

    def get(self, repo: str, login: str) -> Verdict | None:
        return self._verdicts.get((repo.lower(), login.lower()))

    def put(self, repo: str, login: str, verdict: Verdict) -> None:
        if verdict is not Verdict.UNCONFIRMED:
            self._verdicts.put((repo.lower(), login.lower()), verdict)

    def teams(self, repo: str) -> Teams | None:
        """The repository's writer teams as last read, or None when not known."""
        return self._teams.get(repo.lower())

    def put_teams(self, repo: str, teams: list[Team] | GiteaError | None) -> None:
        if not isinstance(teams, GiteaError):
            self._teams.put(repo.lower(), Teams(teams is not None, tuple(teams or ())))


@dataclass(frozen=True)
class Teams:
    """A repository's writer teams as read: `owned_by_org` False for a user's repository (which has none)."""

    owned_by_org: bool
    writers: tuple[Team, ...]

    def read(self) -> list[Team] | None:
        """As permissions.writer_teams answered them."""
        return list(self.writers) if self.owned_by_org else None


@dataclass(frozen=True)
class Lockdown:
    """The operator's setting as the tools are handed it (Deps.lockdown): on when present."""

    trusted: frozenset[str] = frozenset()  # logins, lower-case
    cache: TrustCache = field(default_factory=TrustCache)


def author(item: Authored) -> tuple[str, bool]:
    """Who wrote it, as the answer names them, and whether that is a user of this forge (a migrated text's
    original author, or a deleted user's Ghost, is not: no one here vouches for it)."""
    user: User | None = item.user
    if user is not None and user.id > 0 and user.login:
        return user.login, True
    original = getattr(item, "original_author", None)
    return (original or (user.login if user else "") or "?"), False


def withheld_line(login: str, repo: str, verdict: Verdict) -> str:
    """The one line shown in place of a withheld text."""
    if verdict is Verdict.UNCONFIRMED:
        why = f"; lockdown could not confirm write access to {repo}"
    else:
        why = f", who has no write access to {repo}"
    return f"[withheld by lockdown: written by {render.user(login)}{why}]"


@dataclass(frozen=True)
class Decision:
    """The verdicts one answer needs, by (repository, login) lower-case; `on` False: lockdown is off."""

    on: bool
    verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)

    def verdict(self, repo: str, item: Authored) -> Verdict:
        login, local = author(item)
        if not local:
            return Verdict.NOT_WRITER
        return self.verdicts.get((repo.lower(), login.lower()), Verdict.UNCONFIRMED)

    def screen(self, repo: str, item: T) -> T:
        """The item as the answer may show it: as it is, or its text withheld (and an issue's title marked)."""
        if not self.on:
            return item
        verdict = self.verdict(repo, item)
        if verdict is Verdict.WRITER:
            return item
        update: dict[str, str] = {}
        if item.body:  # an empty text withholds nothing
            update["body"] = withheld_line(author(item)[0], repo, verdict)
        if _is_issue(item):
            update["title"] = TITLE_MARK + str(getattr(item, "title", ""))
        return item.model_copy(update=update)

    def screen_all(self, repo: str, items: Iterable[T]) -> list[T]:
        return [self.screen(repo, item) for item in items]


def _is_issue(item: Authored) -> bool:
    return "title" in type(item).model_fields


OFF = Decision(on=False)


def decide(client: GiteaClient, lockdown: Lockdown | None, authored: Iterable[tuple[str, Authored]]) -> Decision:
    """The verdicts for the authors of `authored` (each with its repository, `owner/name`): the operator's list and
    the cache first, then the forge, one repository at a time, each in at most two rounds of concurrent reads."""
    if lockdown is None:
        return OFF
    wanted: dict[str, dict[str, str]] = {}  # repository (lower) -> login (lower) -> login as written
    shown_repo: dict[str, str] = {}
    for repo, item in authored:
        login, local = author(item)
        if local:
            wanted.setdefault(repo.lower(), {})[login.lower()] = login
            shown_repo.setdefault(repo.lower(), repo)
    verdicts: dict[tuple[str, str], Verdict] = {}
    for key, logins in wanted.items():
        repo = shown_repo[key]
        for login, verdict in _repository(client, lockdown, repo, sorted(logins)).items():
            verdicts[(key, login)] = verdict
    return Decision(on=True, verdicts=verdicts)


def repository_of(here: str, issue: Issue) -> str:
    """The repository an issue lives in: its own where Gitea names it (a search across repositories, a dependency
    elsewhere), else `here`."""
    return issue.repository.full_name if issue.repository and issue.repository.full_name else here


def issues(client: GiteaClient, lockdown: Lockdown | None, here: str, listed: Sequence[Issue]) -> list[Issue]:
    """Issues as a listing or a write's answer may show them: each judged in its own repository."""
    if lockdown is None:
        return list(listed)
    placed = [(repository_of(here, issue), issue) for issue in listed]
    decision = decide(client, lockdown, placed)
    return [decision.screen(repo, issue) for repo, issue in placed]


def ahead(client: GiteaClient, lockdown: Lockdown | None, repo: str) -> None:
    """The repository's writer teams read and kept, for a tool to ask in its own first round (they depend on no
    author): its decision then asks users' roles and the teams' members in one round. Nothing when off or known."""
    if lockdown is None or lockdown.cache.teams(repo) is not None:
        return
    from gitea_mcp.gitea import permissions  # why: Gitea's models, on the first call under lockdown only

    owner, name = repo.split("/", 1)
    lockdown.cache.put_teams(repo, permissions.writer_teams(client, owner, name))


def _repository(client: GiteaClient, lockdown: Lockdown, repo: str, logins: Sequence[str]) -> dict[str, Verdict]:
    known: dict[str, Verdict] = {}
    asked: list[str] = []
    for login in logins:
        held = Verdict.WRITER if login in lockdown.trusted else lockdown.cache.get(repo, login)
        if held is None:
            asked.append(login)
        else:
            known[login] = held
    if asked:
        for login, verdict in _from_forge(client, lockdown, repo, asked).items():
            lockdown.cache.put(repo, login, verdict)
            known[login] = verdict
    return known


Role = str | GiteaError
Members = frozenset[str] | GiteaError


def _from_forge(client: GiteaClient, lockdown: Lockdown, repo: str, logins: Sequence[str]) -> dict[str, Verdict]:
    """With the writer teams known (kept, or asked ahead): each user's role and the teams' members, one round.
    Else round one, each user's role and the teams; round two, only for users it left undecided in a repository
    with writer teams, their members."""
    from gitea_mcp.gitea import permissions  # why: Gitea's models, on the first call under lockdown only

    owner, name = repo.split("/", 1)
    kept = lockdown.cache.teams(repo)

    def roles() -> list[Callable[[], object]]:
        return [functools.partial(permissions.role, client, owner, name, login) for login in logins]

    def members(teams: list[Team]) -> list[Callable[[], object]]:
        return [functools.partial(permissions.members, client, team) for team in teams]

    if kept is not None:
        teams: list[Team] | GiteaError | None = kept.read()
        writers = list(kept.writers)
        answers = client.parallel(*roles(), *members(writers))
        role_of = dict(zip(logins, cast("list[Role]", answers[: len(logins)]), strict=True))
        read = cast("list[Members]", answers[len(logins) :])
    else:
        first, *answered = client.parallel(lambda: permissions.writer_teams(client, owner, name), *roles())
        teams = cast("list[Team] | GiteaError | None", first)
        lockdown.cache.put_teams(repo, teams)
        role_of = dict(zip(logins, cast("list[Role]", answered), strict=True))
        undecided = [login for login, role in role_of.items() if not _writes(role)]
        writers = teams if undecided and isinstance(teams, list) else []
        read = cast("list[Members]", client.parallel(*members(writers))) if writers else []
    return {login: _verdict(role_of[login], teams, read, login) for login in logins}


def _writes(role: Role) -> bool:
    return isinstance(role, str) and role in _WRITE_ROLES


def _verdict(
    role: Role, teams: list[Team] | GiteaError | None, members: list[frozenset[str] | GiteaError], login: str
) -> Verdict:
    if _writes(role) or any(isinstance(m, frozenset) and login in m for m in members):
        return Verdict.WRITER
    if isinstance(role, NotFound):  # no such user (deleted since): no one vouches for the text
        return Verdict.NOT_WRITER
    if isinstance(role, GiteaError) or isinstance(teams, GiteaError):
        return Verdict.UNCONFIRMED
    if teams is None or not teams:  # a user's repository, or an organisation's without writer teams
        return Verdict.NOT_WRITER
    return Verdict.UNCONFIRMED if any(isinstance(m, GiteaError) for m in members) else Verdict.NOT_WRITER
