"""The world the acceptance tasks run in: one organisation with a busy tracker, seeded the same way everywhere.

Users, repositories, labels, milestones, pull requests and reviews go through the contract lab's seeders (the admin
API on a live server, the store on the stand-in, which has no admin API and takes no review submissions); every
issue and comment goes through the issues API on both, as the users themselves, so the stand-in's write endpoints
are exercised by the same seeding. Names carry a per-run id, and a live server is cleaned up afterwards
(`LiveSeeder.cleanup`).
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tests.contract.lab import Seeder
from tests.contract.target import Http

ISSUES = 140
PULLS = 10
THREADS = (60, 95, 130)  # comments on three issues: more than one page of a tool's comments, and of the server's

# Labels of the tracker: (name, exclusive). A comma inside a name is what Gitea's `labels=` parameter splits on.
REPO_LABELS = (
    ("bug", False),
    ("ui", False),
    ("docs", False),
    ("wontfix", False),
    ("needs info, urgent", False),
    ("priority/high", True),
    ("priority/low", True),
    ("status/blocked", True),
    ("status/ready", True),
)
ORG_LABELS = (("triage", False), ("org, wide", False), ("area/api", True), ("area/web", True))
MILESTONES = ("v1.0", "v2.0", "Sprint, week 3")

# Titles that tools have to keep exactly as the server holds them.
SPECIAL_TITLES = {
    "unicode": "Größenangaben im Export falsch — 日本語のタイトル 🎉",
    "decomposed": "Cafe\u0301 menu renders the accent twice",  # NFD: an e and a combining acute accent
    "double_spaced": "Login  fails  after  the  second  retry",
    "comma": "Export, import and sync fail together",
    "long": ("Very long title " * 16)[:254] + "x",  # the most Gitea takes: 255 characters
    "numeric": "Error 404 after saving 12 drafts",
}
REVIEW = "Review: the migration drops the old index too early."
_SUBJECTS = ("Crash", "Timeout", "Typo", "Memory leak", "Wrong total", "Slow query", "Broken link")
_PLACES = ("export dialog", "settings page", "search box", "mail digest", "avatar upload", "API client", "sidebar")


@dataclass
class World:
    """What was seeded, by name: the oracle reads the server itself; this only says where to look."""

    run: str
    org: str
    writer: str  # write access to the tracker: labels, milestones, assignees
    reader: str  # read access: may file and comment, Gitea drops what only a writer may set
    outsider: str  # no access: the tracker is public, so the same as a reader for issues
    repo: str = "tracker"
    moved_from: str = "old-name"
    moved_to: str = "new-name"
    away: str = ""  # another organisation, outside the tools' allowlist: `gone` was transferred there
    gone: str = "gone"
    tokens: dict[str, str] = field(default_factory=dict)  # role -> write:issue + read:user
    labels: dict[str, int] = field(default_factory=dict)
    milestones: dict[str, int] = field(default_factory=dict)
    issues: dict[str, int] = field(default_factory=dict)  # named issues: the special titles, the threads, …
    pulls: list[int] = field(default_factory=list)
    merged: int = 0
    reviewed: int = 0
    moved_issues: list[int] = field(default_factory=list)

    def path(self, *parts: object, repo: str | None = None) -> str:
        return "/".join(["", "repos", self.org, repo or self.repo, *map(str, parts)])

    def login(self, role: str) -> str:
        return str(getattr(self, role.partition("_")[0]))  # writer_repo, writer_org: the writer


def seed_world(seeder: Seeder, http: Http, run: str, seeding_tokens: dict[str, str]) -> World:
    """`seeding_tokens`: login -> a token with every scope, filled here for the users created (to act as them)."""
    world = World(run=run, org=f"acc{run}", writer=f"aw{run}", reader=f"ar{run}", outsider=f"ao{run}",
                  away=f"acx{run}")  # fmt: skip
    for role in ("writer", "reader", "outsider"):
        login = world.login(role)
        seeder.user(login)
        world.tokens[role] = seeder.token(login, ["write:issue", "read:user"])
        seeding_tokens.setdefault(login, seeder.token(login, ["all"]))
    # The optional scope issue_get needs for a pull request's reviews (Gitea serves them under the repository scope).
    world.tokens["writer_repo"] = seeder.token(world.writer, ["write:issue", "read:user", "read:repository"])
    # The optional scope label_list needs for the organisation's labels.
    world.tokens["writer_org"] = seeder.token(world.writer, ["write:issue", "read:user", "read:organization"])
    seeder.org(world.org)
    seeder.org(world.away)
    for name in (world.repo, world.moved_from, world.gone):
        seeder.repo(world.org, name)
        seeder.collaborator(world.org, name, world.writer, "write")
        seeder.collaborator(world.org, name, world.reader, "read")
    for name, exclusive in REPO_LABELS:
        world.labels[name] = seeder.label(world.org, world.repo, name, exclusive)
    for name, exclusive in ORG_LABELS:
        world.labels[name] = seeder.label(world.org, None, name, exclusive)
    for title in MILESTONES:
        world.milestones[title] = seeder.milestone(world.org, world.repo, title)
    writes = Writes(http, world, seeding_tokens)
    _seed_issues(writes, world)
    _seed_threads(writes, world)
    _seed_pulls(seeder, writes, world)
    for index in range(3):
        world.moved_issues.append(writes.issue(world.writer, f"Moved repository issue {index}", repo=world.moved_from))
    seeder.rename(world.org, world.moved_from, world.moved_to)
    world.issues["gone"] = writes.issue(
        world.writer, "Issue of a repository that left the organisation", repo=world.gone
    )
    seeder.transfer(world.org, world.gone, world.away)
    return world


class Writes:
    """Issues and comments through the API, as the user who writes them (reviews go through the seeder: the
    stand-in takes no review submissions)."""

    def __init__(self, http: Http, world: World, tokens: dict[str, str]) -> None:
        self.http, self.world, self.tokens = http, world, tokens

    def issue(
        self,
        login: str,
        title: str,
        body: str = "",
        repo: str | None = None,
        fields: Mapping[str, object] | None = None,
    ) -> int:
        payload = {"title": title, "body": body, **(fields or {})}  # fields: labels, milestone, assignees, state
        path = self.world.path("issues", repo=repo)
        return int(self.http.ok("POST", path, self.tokens[login], json=payload)["number"])

    def comment(self, login: str, number: int, body: str) -> None:
        self.http.ok("POST", self.world.path("issues", number, "comments"), self.tokens[login], json={"body": body})


def _plan(index: int, world: World) -> dict[str, object]:
    """Issue `index`'s labels, milestone, assignees and state: overlapping patterns, so filters cut differently."""
    names = [name for name, every in _LABEL_EVERY.items() if index % every == 0]
    closed = index % 5 == 4
    if closed:
        names.append("wontfix")  # only closed issues: a filter that matches no open issue
    if index % 6 == 1:
        names.append("priority/high" if index % 12 == 1 else "priority/low")
    if index % 8 == 2:
        names.append("area/api")
    fields: dict[str, object] = {"labels": [world.labels[name] for name in names], "closed": closed}
    if index % 4 < len(MILESTONES):
        fields["milestone"] = world.milestones[MILESTONES[index % 4]]
    if index % 5 == 0:
        fields["assignees"] = [world.writer]
    return fields


_LABEL_EVERY = {"bug": 3, "ui": 4, "docs": 7, "needs info, urgent": 9, "triage": 5, "org, wide": 11}


def _seed_issues(writes: Writes, world: World) -> None:
    special = iter(SPECIAL_TITLES.items())
    for index in range(ISSUES):
        name, title = next(special, (None, ""))
        if name is None:
            subject, place = _SUBJECTS[index % len(_SUBJECTS)], _PLACES[index // 3 % len(_PLACES)]
            title = f"{subject} in the {place} (case {index:03d})"
        # Every seventh issue is filed by the reader: Gitea keeps only its title and body.
        login = world.reader if index % 7 == 3 else world.writer
        fields = {} if login == world.reader else _plan(index, world)
        body = f"Seeded issue {index}. Steps: open the page, wait, look.\n\ncc @{world.writer}"
        number = writes.issue(login, title, body, fields=fields)
        if name is not None:
            world.issues[name] = number


def _seed_threads(writes: Writes, world: World) -> None:
    names = [writes.issue(world.writer, f"Discussion thread with {size} comments", "") for size in THREADS]

    def fill(number: int, size: int) -> None:
        for index in range(size):
            login = world.writer if index % 3 else world.reader
            writes.comment(login, number, f"Comment {index + 1} of {size} on the thread.")

    # One writer per thread at once: the order inside a thread is kept, the threads overlap.
    with ThreadPoolExecutor(len(THREADS)) as pool:
        list(pool.map(fill, names, THREADS))
    for size, number in zip(THREADS, names, strict=True):
        world.issues[f"thread{size}"] = number


def _seed_pulls(seeder: Seeder, writes: Writes, world: World) -> None:
    for index in range(PULLS):
        world.pulls.append(seeder.pull(world.org, world.repo, world.writer, f"Pull request {index}", f"pr{index}"))
    world.merged = world.pulls[0]
    seeder.merge(world.org, world.repo, world.merged)
    world.reviewed = world.pulls[1]
    inline = ("pr1.txt", 1, "Review comment: this line needs a test.")
    seeder.review(world.org, world.repo, world.reviewed, world.reader, "COMMENT", REVIEW, inline)
    writes.comment(world.writer, world.reviewed, "A plain comment on the pull request.")
