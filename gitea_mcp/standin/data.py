"""The deterministic seed: the same users, repositories and ~360 issues on every run.

Owners and what each is for:
- org `acme`: `widgets` (300 issues + 30 pull requests, every 11th number is a PR; #286 has two reviews with
  inline comments), `gadgets` (12 issues), `empty` (no issues; labels of exclusive scopes, one archived); the org
  label `triage`; the team `core`. `old-widgets` was renamed to `widgets`.
- user `demo`: the private repository `notes` (4 issues).
- org `other`: the private repository `secret` (5 issues). `demo` may read and write it, so it is the
  owner an allowlist has to refuse; `alice` cannot see it at all.
Users: demo, alice, bob (writers on acme/widgets), carol (no write access anywhere).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from gitea_mcp.standin.store import ADMIN, READ, WRITE, Issue, PullMeta, Repo, ReviewComment, Store, Team

# Tokens. The scope strings are what Gitea prints in its 403 messages.
DEMO_TOKEN = "df668f2bb53bc9007feb53324375cd4a8232eca0"  # demo: write:issue, read:user (the documented scopes)
DEMO_ALL_TOKEN = "5d1c0e3a7b9f24c68e01d2b3a4f5e6d7c8b9a0f1"  # demo: every scope (the stand-in's own tests)
DEMO_READ_TOKEN = "1315e34aa5b6d8d23f4b31271f8e1f8b7a92e06d"  # demo: read:issue only
DEMO_USER_TOKEN = "b9e2c482733a6397e59e622a66f93a7a33a2802c"  # demo: read:user only (no issue scope)
DEMO_PUBLIC_TOKEN = "47c285dad38553adbcb098458185f0a16b5bf813"  # demo: like DEMO_TOKEN, limited to public repos
ALICE_TOKEN = "d2ef88ce7ab7b741ca97ba7a987687d76b477d4e"  # alice: like DEMO_TOKEN
CAROL_TOKEN = "c94f2a4c2136fd718df311bd7c26fd8fffe576c7"  # carol: like DEMO_TOKEN, but no write access to repos
TOKENS = {
    "demo": DEMO_TOKEN,
    "demo (every scope)": DEMO_ALL_TOKEN,
    "demo (read:issue only)": DEMO_READ_TOKEN,
    "demo (read:user only)": DEMO_USER_TOKEN,
    "demo (public repos only)": DEMO_PUBLIC_TOKEN,
    "alice": ALICE_TOKEN,
    "carol (reads only)": CAROL_TOKEN,
}
# The scopes the README documents for every tool, and nothing more: a tool that needed read:repository or
# read:organization would fail against the stand-in as it would against a real server.
_FULL_SCOPES = ("write:issue", "read:user")

# acme/widgets: where the awkward cases live.
WIDGETS_COUNT = 330
PULL_EVERY = 11  # numbers 11, 22, ... 330 are pull requests
REVIEWED_PULL = 286  # an open pull request with reviews and inline comments
NEWLINE_TITLE_ISSUE = 5
PIPE_TITLE_ISSUE = 8
UNICODE_TITLE_ISSUE = 13
LONG_BODY_ISSUE = 42  # body > 10 KB
MANY_COMMENTS_ISSUE = 77  # 40 comments, one of them > 5 KB
MANY_COMMENTS_COUNT = 40

SEED_START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
SEED_END = datetime(2026, 6, 30, 18, 0, tzinfo=UTC)
SEED_NOW = datetime(2026, 7, 15, 12, 0, tzinfo=UTC)  # no seeded time is later than this

_SPECIAL_TITLES = {
    NEWLINE_TITLE_ISSUE: "Importer drops rows\nwhen the CSV header starts with a BOM",
    PIPE_TITLE_ISSUE: "Table view breaks when a cell contains a | character",
    UNICODE_TITLE_ISSUE: "Größenangaben in der Übersicht sind falsch — 🚀 résumé",
}

_SUBJECTS = [
    "widget list", "export dialog", "settings page", "login form", "CSV export", "search index", "dark mode",
    "API client", "webhook delivery", "avatar upload", "notification emails", "markdown preview", "date picker",
    "sidebar", "release notes page", "config loader", "cache layer", "rate limiter", "SSO login", "mobile layout",
    "audit log", "permission check", "nightly backup job", "import wizard", "PDF renderer", "timezone handling",
]  # fmt: skip
_TEMPLATES = {
    "bug": [
        "Crash when opening the {s} with an empty profile",
        "The {s} fails with a 500 on empty input",
        "The {s} shows stale data after a refresh",
        "Memory leak in the {s} after long sessions",
        "The {s} ignores the user's locale",
        "Race condition in the {s} on concurrent saves",
        "Typo in the {s} error message",
    ],
    "enhancement": [
        "Add sorting options to the {s}",
        "Support keyboard navigation in the {s}",
        "Allow exporting the {s} as JSON",
        "Make the {s} configurable per team",
    ],
    "docs": ["Document the options of the {s}", "Clarify how the {s} behaves in the README"],
    "security": ["Escape user HTML in the {s}", "Rate-limit requests made by the {s}"],
    "performance": ["The {s} is slow with more than 1000 items", "Reduce database queries in the {s}"],
}
_PULL_TEMPLATES = [
    "Fix crash in the {s} on empty input",
    "Refactor the {s} into smaller modules",
    "Add integration tests for the {s}",
    "Speed up the {s} by caching lookups",
]
_SENTENCES = [
    "This happens on the current main branch and on the last release.",
    "I could reproduce it in Firefox and Chromium, but not in Safari.",
    "The logs show nothing unusual around the time it happens.",
    "It started after the upgrade to the new configuration format.",
    "A workaround is to reload the page twice, which is not great.",
    "We should add a regression test once this is understood.",
    "Happy to send a pull request if someone points me in the right direction.",
    "This blocks the rollout for two customers.",
    "The same code path is used by the nightly job, so it may fail there too.",
]
_COMMENTS = [
    "I can reproduce this.",
    "Thanks for the report! Looking into it.",
    "Could you share the exact version you are running?",
    "Fixed in the latest nightly, please verify.",
    "This looks like a duplicate of an older report.",
    "+1, we see the same thing in production.",
    "I have a patch ready, will open a PR tomorrow.",
]
_WRITERS = ["demo", "alice", "bob"]
_PEOPLE = ["demo", "alice", "bob", "carol"]


def build() -> Store:
    """A fresh store holding the whole seed dataset."""
    store = Store()
    rng = random.Random(20250106)
    _people(store)
    widgets, gadgets, empty, notes, secret = _repos(store)
    _widgets(store, widgets, rng)
    _small_repo(store, gadgets, rng, 12, ["bug", "enhancement"], SEED_START + timedelta(days=60))
    _small_repo(store, notes, rng, 4, [], SEED_START + timedelta(days=200), posters=["demo"])
    _small_repo(store, secret, rng, 5, ["confidential"], SEED_START + timedelta(days=100), posters=["demo"])
    _reviews(store, widgets)  # last: its comment ids come after every other comment's
    _scoped_labels(store, empty)  # after every other label: the ids seen elsewhere stay as they were
    return store


def _people(store: Store) -> None:
    names = {"demo": "Demo User", "alice": "Alice Example", "bob": "Bob Example", "carol": "Carol Example"}
    for i, (login, full_name) in enumerate(names.items()):
        store.add_user(login, full_name, created=SEED_START - timedelta(days=400 - i))
    store.add_user("acme", "ACME Corporation", is_org=True, created=SEED_START - timedelta(days=300))
    store.add_user("other", "Other Org", is_org=True, created=SEED_START - timedelta(days=300))
    store.add_token(DEMO_TOKEN, "demo", *_FULL_SCOPES)
    store.add_token(DEMO_ALL_TOKEN, "demo", "all")
    store.add_token(DEMO_READ_TOKEN, "demo", "read:issue")
    store.add_token(DEMO_USER_TOKEN, "demo", "read:user")
    store.add_token(DEMO_PUBLIC_TOKEN, "demo", "public-only", *_FULL_SCOPES)
    store.add_token(ALICE_TOKEN, "alice", *_FULL_SCOPES)
    store.add_token(CAROL_TOKEN, "carol", *_FULL_SCOPES)


def _repos(store: Store) -> list[Repo]:
    widgets = store.add_repo("acme", "widgets", description="Widgets for everyone", demo=ADMIN, alice=WRITE, bob=WRITE)
    gadgets = store.add_repo("acme", "gadgets", description="Gadgets and gizmos", demo=WRITE, alice=WRITE, carol=READ)
    empty = store.add_repo("acme", "empty", description="Nothing here yet", demo=WRITE)
    notes = store.add_repo("demo", "notes", private=True, description="Demo's private notes")
    secret = store.add_repo("other", "secret", private=True, description="Not for the allowlist", demo=WRITE)
    for repo in (widgets, gadgets, empty, notes, secret):
        repo.created_at = repo.updated_at = SEED_START - timedelta(days=30)
    store.redirects[("acme", "old-widgets")] = widgets.id
    store.redirects[("acme", "secret")] = secret.id  # as if transferred from acme to other, outside the allowlist
    team = store.next_id("team")
    store.teams[team] = _team(team, {"demo", "alice", "bob"}, {widgets.id, gadgets.id})
    return [widgets, gadgets, empty, notes, secret]


def _team(team_id: int, members: set[str], repo_ids: set[int]) -> Team:
    return Team(team_id, "acme", "core", members, repo_ids)


def _widgets_labels(store: Store, widgets: Repo) -> None:
    colors = {
        "bug": ("ee0701", "Something is not working"),
        "enhancement": ("84b6eb", "New feature or request"),
        "good first issue": ("7057ff", "Good for newcomers"),
        "ui": ("1d76db", "User interface"),
        "docs": ("0075ca", "Documentation"),
        "security": ("b60205", "Security related"),
        "performance": ("fbca04", "Speed and memory"),
        "wontfix": ("ffffff", "This will not be worked on"),
    }
    for name, (color, description) in colors.items():
        store.add_label(widgets, name, color, description)
    store.add_label(None, "triage", "e4e669", "Needs a first look (organisation label)", org="acme")
    store.add_milestone(widgets, "v1.0", "closed", "First stable release", SEED_START + timedelta(days=170))
    store.add_milestone(widgets, "v1.1", "open", "Polish", datetime(2026, 3, 31, 23, 59, 59, tzinfo=UTC))
    store.add_milestone(widgets, "v2.0", "open", "The big one", datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC))


def _scoped_labels(store: Store, repo: Repo) -> None:
    """Labels as a triaging team keeps them: exclusive scopes (an issue carries one label of each), a name with a
    '/' that is not exclusive (so it has no scope), and an archived label."""
    for name, exclusive, archived, color, description in (
        ("kind/bug", False, False, "ee0701", "Not exclusive: no scope"),
        ("legacy", False, True, "cccccc", "Archived in 2025"),
        ("priority/high", True, False, "b60205", "Fix first"),
        ("priority/low", True, False, "c2e0c6", ""),
        ("status/blocked", True, False, "fbca04", "Waiting on another issue"),
        ("status/wontfix", True, True, "ffffff", "Archived, still carried by old issues"),
    ):
        label = store.add_label(repo, name, color, description)
        label.exclusive, label.is_archived = exclusive, archived


def _widgets(store: Store, widgets: Repo, rng: random.Random) -> None:
    _widgets_labels(store, widgets)
    span = (SEED_END - SEED_START) / (WIDGETS_COUNT - 1)
    for number in range(1, WIDGETS_COUNT + 1):
        created = SEED_START + span * (number - 1) + timedelta(minutes=rng.randrange(0, 600))
        phase = (number - 1) * 3 // WIDGETS_COUNT  # 0 old, 1 middle, 2 recent
        if number % PULL_EVERY == 0:
            issue = _pull(store, widgets, rng, created, phase)
        else:
            issue = _widget_issue(store, widgets, rng, number, created, phase)
        count = MANY_COMMENTS_COUNT if number == MANY_COMMENTS_ISSUE else rng.choice([0, 0, 1, 2, 3, 4])
        _discussion(store, issue, rng, count)
    _long_comment(store, widgets)


def _widget_issue(store: Store, repo: Repo, rng: random.Random, number: int, created: datetime, phase: int) -> Issue:
    kind = rng.choices(list(_TEMPLATES), weights=[5, 3, 1, 1, 1])[0]
    title = _SPECIAL_TITLES.get(number) or _title(rng, _TEMPLATES[kind])
    labels = [kind] if kind in ("bug", "enhancement", "docs", "security", "performance") else []
    labels += rng.sample(["ui", "good first issue", "wontfix"], rng.choice([0, 0, 0, 1]))
    if rng.random() < 0.1:
        labels.append("triage")
    if rng.random() < 0.08:
        labels = []
    body = _long_body(rng) if number == LONG_BODY_ISSUE else _body(rng)
    milestone = _milestone_for(rng, phase)
    closed = milestone == "v1.0" or rng.random() < (0.75, 0.45, 0.2)[phase]
    issue = store.add_issue(
        repo.owner, repo.name, title, body,
        poster=rng.choice(_PEOPLE), labels=labels, milestone=milestone,
        assignees=rng.sample(_WRITERS, rng.choice([0, 0, 1, 1, 2])), created_at=created,
    )  # fmt: skip
    _settle(issue, rng, closed)
    return issue


def _pull(store: Store, repo: Repo, rng: random.Random, created: datetime, phase: int) -> Issue:
    milestone = _milestone_for(rng, phase)
    closed = milestone == "v1.0" or rng.random() < (0.9, 0.6, 0.3)[phase]  # v1.0 is a closed milestone
    meta = PullMeta(draft=not closed and rng.random() < 0.3)
    issue = store.add_issue(
        repo.owner, repo.name, _title(rng, _PULL_TEMPLATES), _body(rng),
        poster=rng.choice(_WRITERS), labels=rng.sample(["bug", "enhancement", "performance"], 1),
        milestone=milestone, pull=meta, created_at=created,
    )  # fmt: skip
    _settle(issue, rng, closed)
    if closed and rng.random() < 0.8:
        meta.merged, meta.merged_at = True, issue.closed_at
    if not closed:
        issue.requested_reviewers = rng.sample([w for w in _WRITERS if w != issue.poster], 1)
    return issue


def _small_repo(
    store: Store,
    repo: Repo,
    rng: random.Random,
    count: int,
    labels: list[str],
    start: datetime,
    posters: list[str] | None = None,
) -> None:
    for name in labels:
        store.add_label(repo, name, "c5def5", f"{name} ({repo.name})")
    for n in range(count):
        created = start + timedelta(days=25 * n, hours=rng.randrange(0, 10))
        issue = store.add_issue(
            repo.owner, repo.name, _title(rng, _TEMPLATES["bug"] + _TEMPLATES["enhancement"]), _body(rng),
            poster=rng.choice(posters or _PEOPLE), labels=labels[: n % 2 + 1] if labels else [], created_at=created,
        )  # fmt: skip
        _settle(issue, rng, rng.random() < 0.4)
        _discussion(store, issue, rng, rng.choice([0, 1, 2]))


def _milestone_for(rng: random.Random, phase: int) -> str | None:
    name, chance = (("v1.0", 0.7), ("v1.1", 0.5), ("v2.0", 0.4))[phase]
    return name if rng.random() < chance else None


def _settle(issue: Issue, rng: random.Random, closed: bool) -> None:
    """Give the issue a later update, and a close time if closed; nothing after SEED_NOW."""
    issue.updated_at = min(issue.created_at + timedelta(hours=rng.randrange(0, 24 * 60)), SEED_NOW)
    if closed:
        issue.state = "closed"
        issue.closed_at = issue.updated_at
    issue.written_at = 0.0  # seeded data is long since indexed


def _discussion(store: Store, issue: Issue, rng: random.Random, count: int) -> None:
    when = issue.created_at
    for _ in range(count):
        when = min(when + timedelta(hours=rng.randrange(1, 72)), SEED_NOW)
        text = rng.choice(_COMMENTS)
        if rng.random() < 0.15:
            text += f" cc @{rng.choice(_PEOPLE)}"
        store.add_comment(issue, text, rng.choice(_PEOPLE), when)
    issue.written_at = 0.0


def _reviews(store: Store, repo: Repo) -> None:
    """Two reviews of one open pull request: changes requested with inline comments (one on a removed line, one
    resolved), then an approval without text."""
    issue = store.get_issue(repo.owner, repo.name, REVIEWED_PULL)
    assert issue is not None and issue.is_pull
    at = issue.created_at + timedelta(days=1)
    inline = [
        ReviewComment(0, "alice", "An empty file reaches this line with `rows=None`.", "src/export/csv.py", 42),
        ReviewComment(0, "alice", "This guard was the only check for a missing header.", "src/export/csv.py", -17),
        ReviewComment(0, "alice", "Please add a case for a file with only a header.", "tests/test_csv.py", 8),
    ]
    inline[2].resolver = "demo"
    body = "The empty-input check belongs in the parser, not in the writer; see the inline notes."
    store.add_review(issue, "alice", "REQUEST_CHANGES", body, inline, at=at)
    store.add_review(issue, "bob", "APPROVED", "", at=at + timedelta(hours=5))


def _long_comment(store: Store, repo: Repo) -> None:
    issue = store.get_issue(repo.owner, repo.name, MANY_COMMENTS_ISSUE)
    assert issue is not None
    comment = store.comments_of(issue)[MANY_COMMENTS_COUNT // 2]
    lines = [
        f"{i:04d} DEBUG widget.render frame={i} cost_ms={i % 17} cache=miss key=widget/{i * 7919 % 10007}"
        for i in range(90)
    ]
    comment.body = "Full debug log from my machine:\n\n```\n" + "\n".join(lines) + "\n```\n"


def _title(rng: random.Random, templates: list[str]) -> str:
    # Realistic titles are 25-70 characters; keep drawing until one fits.
    while True:
        title = rng.choice(templates).format(s=rng.choice(_SUBJECTS))
        if 25 <= len(title) <= 70:
            return title[0].upper() + title[1:]


def _body(rng: random.Random) -> str:
    text = " ".join(rng.sample(_SENTENCES, rng.randrange(1, 4)))
    if rng.random() < 0.2:
        text += f"\n\n@{rng.choice(_PEOPLE)} could you take a look?"
    if rng.random() < 0.3:
        text += "\n\nSteps to reproduce:\n1. Open the page\n2. Click *Save*\n3. See the error"
    return text


def _long_body(rng: random.Random) -> str:
    frames = [f"    at widgets.core.Renderer.step{i}(renderer.py:{100 + i})" for i in range(260)]
    return _body(rng) + "\n\nStack trace:\n\n```\nTraceback (most recent call last):\n" + "\n".join(frames) + "\n```\n"
