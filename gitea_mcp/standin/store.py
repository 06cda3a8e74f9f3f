"""The stand-in's in-memory data: users, repositories, labels, milestones, issues, comments, tokens.

Plain dataclasses behind one re-entrant lock. `Store.search` holds the filtering rules Gitea's issue
indexer applies (`keyword` how each indexer matches `q`); the HTTP semantics (which parameter becomes which
filter) live in `endpoints`.
Seed data and tests may read and change everything here (`add_issue`, `add_comment`, `get_issue` and
`find_repo` are the convenient entry points); the endpoints go through the methods only, so every write of an
issue passes `new_issue`, `edit`, `set_state` or `touch`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gitea_mcp.standin.keyword import go_int
from gitea_mcp.standin.keyword import matches as keyword_matches
from gitea_mcp.standin.oauth.model import OAuthProvider
from gitea_mcp.standin.profile import KeywordMode

READ, WRITE, ADMIN = 1, 2, 3


def utcnow() -> datetime:
    # Gitea stores seconds; so does the stand-in, which keeps since/before comparisons exact.
    return datetime.now(UTC).replace(microsecond=0)


@dataclass
class User:
    id: int
    login: str
    full_name: str = ""
    is_org: bool = False
    created: datetime = field(default_factory=utcnow)
    description: str = ""
    location: str = ""
    website: str = ""


@dataclass
class Token:
    value: str
    login: str
    scopes: tuple[str, ...]  # e.g. ("write:issue", "read:user"); "public-only" limits to public resources

    @property
    def public_only(self) -> bool:
        return "public-only" in self.scopes

    @property
    def scope_text(self) -> str:
        return ",".join(self.scopes)

    def allows(self, level: str, category: str) -> bool:
        """Gitea's rule: write implies read, `all` implies everything."""
        if "all" in self.scopes or f"write:{category}" in self.scopes:
            return True
        return level == "read" and f"read:{category}" in self.scopes


@dataclass
class Repo:
    id: int
    owner: str
    name: str
    private: bool = False
    description: str = ""
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    access: dict[str, int] = field(default_factory=dict)  # login -> READ / WRITE / ADMIN
    next_index: int = 1  # issues and pull requests share one counter, as in Gitea
    dependencies: bool = True  # the internal tracker's enable_issue_dependencies

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


# A team as the web UI makes it: access per unit, `permission` none (Gitea 1.25.4, Forgejo 12.0.4).
TEAM_UNITS = ("repo.code", "repo.issues", "repo.pulls")


@dataclass
class Team:
    id: int
    org: str
    name: str
    members: set[str] = field(default_factory=set)
    repo_ids: set[int] = field(default_factory=set)
    permission: str = "none"
    units_map: dict[str, str] = field(default_factory=lambda: {"repo.code": "read", "repo.issues": "write"})


@dataclass
class Label:
    id: int
    name: str
    color: str  # six hex digits without '#', as Gitea's API sends it
    description: str = ""
    repo_id: int | None = None  # None for an organisation label
    org: str | None = None  # the owning organisation for an organisation label
    exclusive: bool = False
    is_archived: bool = False

    @property
    def exclusive_scope(self) -> str:
        """Gitea's ExclusiveScope: the name up to its last "/" for an exclusive label, else ""."""
        cut = self.name.rfind("/")
        return self.name[:cut] if self.exclusive and 0 < cut < len(self.name) - 1 else ""


@dataclass
class Milestone:
    id: int
    repo_id: int
    title: str
    description: str = ""
    state: str = "open"
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    closed_at: datetime | None = None
    due_on: datetime | None = None


@dataclass
class PullMeta:
    merged: bool = False
    merged_at: datetime | None = None
    draft: bool = False


@dataclass
class Comment:
    id: int
    issue_id: int
    poster: str
    body: str
    created_at: datetime
    updated_at: datetime


@dataclass
class ReviewComment:
    """An inline comment of a review, on one line of one file."""

    id: int  # from the comments' id sequence, as in Gitea
    poster: str
    body: str
    path: str
    line: int  # Gitea's: positive on the new side of the diff, negative on the old
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    resolver: str | None = None


@dataclass
class Event:
    """An entry of an issue's timeline that is neither a comment nor a review: a review's dismissal
    (`dismiss_review`: the dismisser, the message, the dismissed review's id) or a review asked for
    (`review_request`: the reviewer as `assignee`), which stays when the request is answered."""

    id: int  # from the comments' id sequence, as in Gitea (one table holds every timeline entry)
    issue_id: int
    kind: str
    poster: str
    body: str
    created_at: datetime
    review_id: int = 0
    assignee: str | None = None


_VERDICTS = ("APPROVED", "REQUEST_CHANGES")  # the review types Gitea counts (official) and dismisses


@dataclass(frozen=True)
class TimelineRow:
    """One row of an issue's timeline, whatever it came from (a comment, a review, an event): Gitea keeps them all
    in one table, ordered by creation (whole seconds), then id. A review's inline comment is a row too (`code`),
    which the API counts in its pages but never lists."""

    id: int
    kind: str
    poster: str
    body: str
    created_at: datetime
    updated_at: datetime
    review_id: int = 0
    assignee: str | None = None  # a review request's reviewer


@dataclass
class Review:
    """A pull request review; `state` as the API names it (APPROVED, REQUEST_CHANGES, COMMENT, PENDING,
    REQUEST_REVIEW)."""

    id: int
    issue_id: int
    reviewer: str
    state: str
    body: str
    comment_id: int  # its entry among the pull request's comments: the anchor of its html_url
    created_at: datetime
    updated_at: datetime
    commit_id: str = "3c31f71a88e002a1f0640d799ee608e44b323d63"
    official: bool = False
    stale: bool = False
    dismissed: bool = False
    comments: list[ReviewComment] = field(default_factory=list)


@dataclass
class Issue:
    id: int
    repo_id: int
    number: int
    poster: str
    title: str
    body: str = ""
    state: str = "open"
    label_ids: list[int] = field(default_factory=list)
    milestone_id: int = 0
    assignees: list[str] = field(default_factory=list)
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    closed_at: datetime | None = None
    due_date: datetime | None = None
    ref: str = ""
    is_locked: bool = False
    content_version: int = 0
    pull: PullMeta | None = None
    requested_reviewers: list[str] = field(default_factory=list)
    reviewed_by: list[str] = field(default_factory=list)
    blocked_by: list[int] = field(default_factory=list)  # ids of the issues it depends on (its blockers)
    # When the issue was last written (time.monotonic()); the keyword index sees it only `indexer_lag` later.
    written_at: float = 0.0

    @property
    def is_pull(self) -> bool:
        return self.pull is not None


@dataclass
class IssueFilter:
    """What Gitea's issue indexer filters on. None means "no condition"."""

    repo_ids: set[int]
    is_closed: bool | None = False
    is_pull: bool | None = None
    keyword: str = ""
    keyword_mode: KeywordMode = "substring"
    keyword_matches_number: bool = True  # a numeric keyword also finds the issue of that number
    from_database: bool = False  # the keyword is answered by the database (no index, so no lag)
    index_has_assignees: bool = True  # False: keyword + assignee finds nothing (the index lacks assignees)
    all_label_ids: list[int] = field(default_factory=list)
    any_label_ids: list[int] = field(default_factory=list)
    milestone_ids: list[int] = field(default_factory=list)
    updated_after: int = 0  # unix seconds, 0 = none
    updated_before: int = 0
    poster: str | None = None
    assignee: str | None = None
    mentioned: str | None = None
    review_requested: str | None = None
    reviewed: str | None = None


class Store:
    """All of the stand-in's data. Hold `lock` while reading several objects that must agree."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.users: dict[str, User] = {}  # by lower-case login
        self.tokens: dict[str, Token] = {}
        self.repos: dict[int, Repo] = {}
        self.redirects: dict[tuple[str, str], int] = {}  # (owner, old name) lower-case -> repo id
        self.user_redirects: dict[str, str] = {}  # a renamed user's or organisation's old login, lower-case -> new
        self.teams: dict[int, Team] = {}
        self.site_admins: set[str] = set()  # lower-case logins of the site's administrators
        self.labels: dict[int, Label] = {}
        self.milestones: dict[int, Milestone] = {}
        self.issues: dict[int, Issue] = {}
        self.comments: dict[int, list[Comment]] = {}  # by issue id, oldest first
        self.reviews: dict[int, list[Review]] = {}  # by issue id, oldest first
        self.events: dict[int, list[Event]] = {}  # by issue id, oldest first: the timeline's other entries
        self.oauth = OAuthProvider()  # OAuth2 applications, grants, web sessions
        self.indexer_lag: float = 0.0  # seconds before a write is visible to keyword (q) search
        self._ids: dict[str, int] = {}

    # -- identifiers -------------------------------------------------------------------------------

    def next_id(self, kind: str) -> int:
        with self.lock:
            self._ids[kind] = self._ids.get(kind, 0) + 1
            return self._ids[kind]

    # -- users, tokens, repositories ----------------------------------------------------------------

    def add_user(self, login: str, full_name: str = "", is_org: bool = False, created: datetime | None = None) -> User:
        user = User(self.next_id("user"), login, full_name or login.title(), is_org, created or utcnow())
        self.users[login.lower()] = user
        return user

    def rename_user(self, old: str, new: str) -> None:
        """Rename a user or organisation, with what it owns; its old name redirects to the new, as in Gitea."""
        with self.lock:
            user = self.users.pop(old.lower())
            user.login = new
            self.users[new.lower()] = user
            for repo in self.repos.values():
                repo.owner = new if repo.owner.lower() == old.lower() else repo.owner
            for label in self.labels.values():
                label.org = new if label.org and label.org.lower() == old.lower() else label.org
            for team in self.teams.values():
                team.org = new if team.org.lower() == old.lower() else team.org
            self.user_redirects[old.lower()] = new

    def user(self, login: str | None) -> User | None:
        return self.users.get(login.lower()) if login else None

    def all_users(self) -> list[User]:
        """Users and organisations, in the order they were added (by id)."""
        return sorted(self.users.values(), key=lambda user: user.id)

    def token(self, value: str) -> Token | None:
        return self.tokens.get(value)

    def add_token(self, value: str, login: str, *scopes: str) -> Token:
        token = Token(value, login, tuple(scopes))
        self.tokens[value] = token
        return token

    def add_repo(self, owner: str, name: str, private: bool = False, description: str = "", **access: int) -> Repo:
        repo = Repo(self.next_id("repo"), owner, name, private, description, access=dict(access))
        self.repos[repo.id] = repo
        return repo

    def find_repo(self, owner: str, name: str) -> Repo | None:
        """Owner and repository names are case-insensitive in Gitea."""
        key = (owner.lower(), name.lower())
        return next((r for r in self.repos.values() if (r.owner.lower(), r.name.lower()) == key), None)

    def repo(self, repo_id: int) -> Repo:
        return self.repos[repo_id]

    def all_repos(self) -> list[Repo]:
        return list(self.repos.values())

    def redirect_of(self, owner: str, name: str) -> Repo | None:
        repo_id = self.redirects.get((owner.lower(), name.lower()))
        return self.repos.get(repo_id) if repo_id else None

    def access_mode(self, repo: Repo, login: str | None) -> int:
        """0 (none), READ, WRITE or ADMIN; anyone may read a public repository."""
        mode = 0
        if login:
            mode = ADMIN if login.lower() == repo.owner.lower() else repo.access.get(login.lower(), 0)
        return max(mode, 0 if repo.private else READ)

    def org_member(self, org: str, login: str | None) -> bool:
        """A member of any of the organisation's teams (the stand-in has no Owners team)."""
        return login is not None and any(
            t.org.lower() == org.lower() and login.lower() in {m.lower() for m in t.members}
            for t in self.teams.values()
        )

    def find_team(self, org: str, name: str) -> Team | None:
        return next(
            (t for t in self.teams.values() if (t.org.lower(), t.name.lower()) == (org.lower(), name.lower())), None
        )

    # -- labels and milestones ----------------------------------------------------------------------

    def add_label(
        self, repo: Repo | None, name: str, color: str, description: str = "", org: str | None = None
    ) -> Label:
        label = Label(self.next_id("label"), name, color, description, repo.id if repo else None, org)
        self.labels[label.id] = label
        return label

    def label(self, label_id: int) -> Label | None:
        return self.labels.get(label_id)

    def labels_named(self, names: Iterable[str]) -> list[Label]:
        """Every repository's and organisation's labels of these names."""
        wanted = set(names)
        return [x for x in self.labels.values() if x.name in wanted]

    def repo_labels(self, repo: Repo) -> list[Label]:
        return sorted((x for x in self.labels.values() if x.repo_id == repo.id), key=lambda x: x.id)

    def org_labels(self, org: str) -> list[Label]:
        return sorted((x for x in self.labels.values() if x.org and x.org.lower() == org.lower()), key=lambda x: x.id)

    def usable_labels(self, repo: Repo) -> list[Label]:
        """Labels an issue of `repo` may carry: the repository's own and its organisation's."""
        return self.repo_labels(repo) + self.org_labels(repo.owner)

    def add_milestone(
        self, repo: Repo, title: str, state: str = "open", description: str = "", due_on: datetime | None = None
    ) -> Milestone:
        milestone = Milestone(self.next_id("milestone"), repo.id, title, description, state, due_on=due_on)
        if state == "closed":
            milestone.closed_at = milestone.updated_at
        self.milestones[milestone.id] = milestone
        return milestone

    def milestone(self, milestone_id: int) -> Milestone | None:
        return self.milestones.get(milestone_id)

    def milestones_titled(self, titles: Iterable[str]) -> list[Milestone]:
        wanted = set(titles)
        return [m for m in self.milestones.values() if m.title in wanted]

    def issue_states(self, milestone: Milestone) -> list[str]:
        """The state of each issue in `milestone` (its open and closed counts)."""
        return [i.state for i in self.issues.values() if i.milestone_id == milestone.id]

    def repo_milestones(self, repo: Repo) -> list[Milestone]:
        return sorted((m for m in self.milestones.values() if m.repo_id == repo.id), key=lambda m: m.id)

    # -- issues and comments ------------------------------------------------------------------------

    def issues_of(self, repo: Repo) -> list[Issue]:
        return [i for i in self.issues.values() if i.repo_id == repo.id]

    def get_issue(self, owner: str, repo_name: str, number: int) -> Issue | None:
        repo = self.find_repo(owner, repo_name)
        if repo is None:
            return None
        return next((i for i in self.issues.values() if i.repo_id == repo.id and i.number == number), None)

    def issue(self, issue_id: int) -> Issue:
        return self.issues[issue_id]

    def add_issue(
        self,
        owner: str,
        repo_name: str,
        title: str,
        body: str = "",
        *,
        poster: str = "demo",
        labels: Iterable[str] = (),
        milestone: str | None = None,
        assignees: Iterable[str] = (),
        state: str = "open",
        pull: PullMeta | None = None,
        created_at: datetime | None = None,
    ) -> Issue:
        """Create an issue (or a pull request, with `pull`) for seed data and tests; names are resolved here."""
        with self.lock:
            repo = self.find_repo(owner, repo_name)
            if repo is None:
                raise KeyError(f"no repository {owner}/{repo_name}")
            by_name = {x.name: x.id for x in self.usable_labels(repo)}
            milestones = {m.title: m.id for m in self.repo_milestones(repo)}
            return self.new_issue(
                repo,
                title,
                body,
                poster=poster,
                label_ids=[by_name[name] for name in labels],
                milestone_id=milestones[milestone] if milestone else 0,
                assignees=assignees,
                closed=state == "closed",
                pull=pull,
                created_at=created_at,
            )

    def new_issue(
        self,
        repo: Repo,
        title: str,
        body: str,
        *,
        poster: str,
        label_ids: Iterable[int] = (),
        milestone_id: int = 0,
        assignees: Iterable[str] = (),
        closed: bool = False,
        pull: PullMeta | None = None,
        created_at: datetime | None = None,
        ref: str = "",
        due_date: datetime | None = None,
    ) -> Issue:
        """Insert the next issue of `repo`, whose ids and names are already checked; a new closed issue was closed
        when it was created."""
        with self.lock:
            when = created_at or utcnow()
            issue = Issue(
                id=self.next_id("issue"),
                repo_id=repo.id,
                number=repo.next_index,
                poster=poster,
                title=title,
                body=body,
                state="closed" if closed else "open",
                label_ids=list(label_ids),
                milestone_id=milestone_id,
                assignees=list(assignees),
                created_at=when,
                updated_at=when,
                closed_at=when if closed else None,
                pull=pull,
                ref=ref,
                due_date=due_date,
                written_at=time.monotonic(),
            )
            repo.next_index += 1
            self.issues[issue.id] = issue
            self.comments[issue.id] = []
            return issue

    def edit(self, issue: Issue, **fields: object) -> bool:
        """Set these fields of `issue`; True when any value changed. The updated time is `touch`'s job."""
        changed = False
        for name, value in fields.items():
            if not hasattr(issue, name):
                raise AttributeError(f"an issue has no field {name}")
            changed |= getattr(issue, name) != value
            setattr(issue, name, value)
        return changed

    def set_state(self, issue: Issue, state: str) -> bool:
        """Open or close `issue` (closing stamps closed_at); False when it already was."""
        if state == issue.state:
            return False
        self.edit(issue, state=state, closed_at=utcnow() if state == "closed" else None)
        return True

    def touch(self, issue: Issue) -> None:
        """The issue was written: bump its updated time; the keyword index sees it `indexer_lag` later."""
        issue.updated_at = utcnow()
        issue.written_at = time.monotonic()

    def add_comment(self, issue: Issue, body: str, poster: str = "demo", at: datetime | None = None) -> Comment:
        """Add a comment; like Gitea, this bumps the issue's updated time."""
        with self.lock:
            when = at or utcnow()
            comment = Comment(self.next_id("comment"), issue.id, poster, body, when, when)
            self.comments.setdefault(issue.id, []).append(comment)
            issue.updated_at = max(issue.updated_at, when)
            issue.written_at = time.monotonic()
            return comment

    def comments_of(self, issue: Issue) -> list[Comment]:
        return self.comments.get(issue.id, [])

    def add_review(
        self,
        issue: Issue,
        reviewer: str,
        state: str,
        body: str = "",
        comments: Iterable[ReviewComment] = (),
        at: datetime | None = None,
    ) -> Review:
        """Add a review of a pull request with its inline comments (their ids are given here); a submitted review
        counts for the search's `reviewed` filter. Reviews are not among the issue's comments. As Gitea's
        CreateReview, for a review sent without inline comments (one with them is made a draft first, which this
        skips; seen on Gitea 1.25.4 and Forgejo 12.0.4): it answers its reviewer's open request (the request's
        timeline entry stays), and an approval or a request for changes silently dismisses the reviewer's earlier
        ones (no timeline entry)."""
        with self.lock:
            when = at or utcnow()
            review = Review(self.next_id("review"), issue.id, reviewer, state, body, self.next_id("comment"), when,
                            when, official=state in _VERDICTS)  # fmt: skip
            for inline in comments:
                inline.id, inline.created_at, inline.updated_at = self.next_id("comment"), when, when
                review.comments.append(inline)
            reviews = self.reviews.setdefault(issue.id, [])
            theirs = [r for r in reviews if r.reviewer.lower() == reviewer.lower()] if not review.comments else []
            if state not in ("PENDING", "REQUEST_REVIEW"):
                reviews[:] = [r for r in reviews if not (r in theirs and r.state == "REQUEST_REVIEW")]
            for earlier in theirs if state in _VERDICTS else []:
                earlier.dismissed = earlier.dismissed or earlier.state in _VERDICTS
            reviews.append(review)
            if state == "REQUEST_REVIEW":
                request = Event(review.comment_id, issue.id, "review_request", issue.poster, "", when, review.id,
                                assignee=reviewer)  # fmt: skip
                self.events.setdefault(issue.id, []).append(request)
            if state not in ("PENDING", "REQUEST_REVIEW") and reviewer.lower() not in map(str.lower, issue.reviewed_by):
                issue.reviewed_by.append(reviewer)
            return review

    def reviews_of(self, issue: Issue) -> list[Review]:
        return self.reviews.get(issue.id, [])

    def dismiss_review(self, review: Review, by: str, message: str, at: datetime | None = None) -> Event:
        """Dismiss a review, as Gitea does: the review is marked, and the timeline gains a `dismiss_review` entry."""
        with self.lock:
            when = at or utcnow()
            review.dismissed = True
            event = Event(self.next_id("comment"), review.issue_id, "dismiss_review", by, message, when, review.id)
            self.events.setdefault(review.issue_id, []).append(event)
            return event

    def timeline_of(self, issue: Issue) -> list[TimelineRow]:
        """Every row of the issue's timeline, as Gitea orders them: comments, each review's entry and its inline
        comments (`code`), review requests, dismissals. A draft (PENDING) has an entry, as one made through the API
        does (Gitea 1.25.4). Events the tools never read (labels, state, pushes: a pull request's first
        `pull_push`) are not kept, so they have no row."""
        with self.lock:
            rows = [TimelineRow(c.id, "comment", c.poster, c.body, c.created_at, c.updated_at)
                    for c in self.comments_of(issue)]  # fmt: skip
            for review in self.reviews_of(issue):
                rows += [TimelineRow(c.id, "code", c.poster, c.body, c.created_at, c.updated_at, review.id)
                         for c in review.comments]  # fmt: skip
                if review.state != "REQUEST_REVIEW":  # a request's entry is an event: it outlives the request
                    rows.append(TimelineRow(review.comment_id, "review", review.reviewer, review.body,
                                            review.created_at, review.updated_at, review.id))  # fmt: skip
            rows += [TimelineRow(e.id, e.kind, e.poster, e.body, e.created_at, e.created_at, e.review_id, e.assignee)
                     for e in self.events.get(issue.id, [])]  # fmt: skip
        return sorted(rows, key=lambda row: (int(row.created_at.timestamp()), row.id))

    # -- the indexer ------------------------------------------------------------------------------

    def search(self, where: IssueFilter) -> list[Issue]:
        """Matching issues, newest created first (ties: highest id first), as Gitea's indexer sorts them."""
        if where.keyword and where.assignee and not where.index_has_assignees:
            return []
        with self.lock:
            found = [i for i in self.issues.values() if i.repo_id in where.repo_ids and self._matches(i, where)]
        return sorted(found, key=lambda i: (i.created_at, i.id), reverse=True)

    def _matches(self, issue: Issue, where: IssueFilter) -> bool:
        return (
            self._matches_kind(issue, where)
            and self._matches_labels(issue, where)
            and self._matches_people(issue, where)
            and (not where.keyword or self._matches_keyword(issue, where))
        )

    @staticmethod
    def _matches_kind(issue: Issue, where: IssueFilter) -> bool:
        updated = int(issue.updated_at.timestamp())
        return (
            (where.is_closed is None or (issue.state == "closed") == where.is_closed)
            and (where.is_pull is None or issue.is_pull == where.is_pull)
            and (not where.milestone_ids or issue.milestone_id in where.milestone_ids)
            and (not where.updated_after or updated >= where.updated_after)
            and (not where.updated_before or updated <= where.updated_before)
        )

    @staticmethod
    def _matches_labels(issue: Issue, where: IssueFilter) -> bool:
        has_all = all(x in issue.label_ids for x in where.all_label_ids)
        return has_all and (not where.any_label_ids or any(x in issue.label_ids for x in where.any_label_ids))

    def _matches_people(self, issue: Issue, where: IssueFilter) -> bool:
        def lowered(names: list[str]) -> list[str]:
            return [n.lower() for n in names]

        return (
            (where.poster is None or issue.poster.lower() == where.poster.lower())
            and (where.assignee is None or where.assignee.lower() in lowered(issue.assignees))
            and (where.mentioned is None or self.mentions(issue, where.mentioned))
            and (where.review_requested is None or where.review_requested.lower() in lowered(issue.requested_reviewers))
            and (where.reviewed is None or where.reviewed.lower() in lowered(issue.reviewed_by))
        )

    def mentions(self, issue: Issue, login: str) -> bool:
        """Gitea records a mention for each @login in the body or a comment."""
        pattern = re.compile(rf"(?<![\w@])@{re.escape(login)}(?![\w-])", re.IGNORECASE)
        texts = [issue.body, *(c.body for c in self.comments_of(issue))]
        return any(pattern.search(text) for text in texts)

    def _matches_keyword(self, issue: Issue, where: IssueFilter) -> bool:
        # The issue indexer lags behind writes: a fresh issue is not found by keyword for a while.
        if not where.from_database and self.indexer_lag and time.monotonic() - issue.written_at < self.indexer_lag:
            return False
        if where.keyword_matches_number and go_int(where.keyword) == issue.number:
            return True
        texts = [issue.title, issue.body, *(c.body for c in self.comments_of(issue))]
        return keyword_matches(where.keyword_mode, where.keyword, texts)
