"""The scratch world every probe runs in, seeded the same way on a live server (through its API) and on the stand-in.

One plan (`seed`), two seeders: `LiveSeeder` uses the admin API and removes everything afterwards; `StandInSeeder`
writes the same objects into the stand-in's store. Names carry a per-run suffix so runs never collide on a live
server.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from gitea_mcp.standin import StandIn
from gitea_mcp.standin.store import ADMIN, READ, WRITE, PullMeta, ReviewComment, Team
from tests.contract.target import Http

PASSWORD = "Contract-pass-1234"
MANY_LABELS = 45  # more than one catalogue page when MAX_RESPONSE_ITEMS is 20 (and fewer than 50)
MANY_ISSUES = 25  # more than 20 (search limit=0) and than a 20-item page
REVIEW_BODY = "Please split this change."  # the lab's review of its pull request, with one inline comment
INLINE = ("change.txt", 1, "This line needs a test.")  # path, line (of the new file), body
DISMISSAL = "Approved too early."  # the message of the lab's dismissed approval (without text) of its pull request
DONE_DUE = datetime(2026, 1, 15, 12, tzinfo=UTC)  # the due instant of the main repository's closed milestone
MANY_CLOSED = 21  # closed issues of the many repository's milestone `archive`, none open: more than a web page
# The labels of the `scoped` organisation and of its repository, as (name, exclusive, archived): what label_list
# groups and marks. `kind/bug` has a '/' but is not exclusive, so it has no scope.
SCOPED_REPO_LABELS = (("kind/bug", False, False), ("legacy", False, True), ("priority/high", True, False),
                      ("priority/low", True, False))  # fmt: skip
SCOPED_ORG_LABELS = (("area/api", True, False), ("retired", False, True), ("triage", False, False))


@dataclass
class Lab:
    """What was seeded: names, tokens by role, and the numbers and ids the probes refer to."""

    run: str
    org: str
    writer: str  # a write collaborator on every repository
    poster: str  # may read and file issues, cannot write to the repository
    assignee: str  # a write collaborator, assignable
    repo: str = "main"
    private_repo: str = "vault"
    many_repo: str = "many"
    names_repo: str = "names"  # label and milestone names Gitea's list cannot take as they are
    no_dependencies_repo: str = "nodeps"  # issue dependencies turned off
    renamed_from: str = "before"
    renamed_to: str = "after"
    moved_repo: str = "moving"  # transferred from `org` to `away`, an owner outside the tools' allowlist
    away: str = ""
    old_owner: str = ""  # a user renamed to `new_owner`, with the repository `moved_repo`
    scoped: str = ""  # an organisation of its own whose labels and its repository's are SCOPED_*_LABELS
    scoped_repo: str = "labelled"
    new_owner: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    issues: dict[str, int] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)
    milestones: dict[str, int] = field(default_factory=dict)
    has_lock: bool = False
    outsider: str = ""  # no access to any of the org's repositories
    reviews: dict[str, int] = field(default_factory=dict)

    def path(self, *parts: object, repo: str | None = None) -> str:
        return "/".join(["", "repos", self.org, repo or self.repo, *map(str, parts)])


class Seeder(Protocol):
    def user(self, login: str) -> None: ...
    def token(self, login: str, scopes: list[str]) -> str: ...
    def org(self, name: str) -> None: ...
    def repo(self, owner: str, name: str, private: bool = False) -> None: ...
    def collaborator(self, owner: str, repo: str, login: str, permission: str) -> None: ...
    def label(
        self, owner: str, repo: str | None, name: str, exclusive: bool = False, archived: bool = False
    ) -> int: ...
    def milestone(
        self, owner: str, repo: str, title: str, state: str = "open", due_on: datetime | None = None
    ) -> int: ...
    def issue(self, owner: str, repo: str, login: str, title: str, body: str = "", *, labels: list[str] = (),  # type: ignore[assignment]
              milestone: str | None = None, assignees: list[str] = (), closed: bool = False) -> int: ...  # type: ignore[assignment]  # fmt: skip
    def review(self, owner: str, repo: str, number: int, login: str, state: str, body: str,
               inline: tuple[str, int, str] | None) -> int: ...  # fmt: skip
    def dismiss(self, owner: str, repo: str, number: int, review: int, message: str) -> None: ...
    def pull(self, owner: str, repo: str, login: str, title: str, branch: str = "feature") -> int: ...
    def merge(self, owner: str, repo: str, number: int) -> None: ...
    def comment(self, owner: str, repo: str, number: int, login: str, body: str) -> int: ...
    def lock(self, owner: str, repo: str, number: int) -> bool: ...
    def rename(self, owner: str, old: str, new: str) -> None: ...
    def transfer(self, owner: str, name: str, new_owner: str) -> None: ...
    def rename_user(self, old: str, new: str) -> None: ...
    def dependencies_off(self, owner: str, repo: str) -> None: ...
    def team(self, org: str, name: str, repo: str, members: list[str], issues: str = "write") -> int: ...


# The scopes of each role's token: the documented minimum, and the ones a probe needs to show what is missing.
ROLE_SCOPES = {
    "writer": ("writer", ["write:issue", "read:user"]),  # the documented set for every tool
    "writer_issue_only": ("writer", ["write:issue"]),
    "reader": ("writer", ["read:issue"]),
    "poster": ("poster", ["write:issue", "read:user"]),
    "writer_repo": ("writer", ["write:issue", "read:repository"]),
    "writer_org": ("writer", ["write:issue", "read:organization"]),
    "outsider": ("outsider", ["write:issue", "read:user"]),
}


def seed(seeder: Seeder, run: str) -> Lab:
    lab = Lab(run=run, org=f"c{run}", writer=f"w{run}", poster=f"p{run}", assignee=f"a{run}", away=f"x{run}",
              old_owner=f"o{run}", new_owner=f"n{run}", outsider=f"u{run}", scoped=f"l{run}")  # fmt: skip
    for login in (lab.writer, lab.poster, lab.assignee, lab.outsider):
        seeder.user(login)
    for role, (login, scopes) in ROLE_SCOPES.items():
        lab.tokens[role] = seeder.token(getattr(lab, login), scopes)
    seeder.org(lab.org)
    for name, private in ((lab.repo, False), (lab.private_repo, True), (lab.many_repo, False),
                          (lab.renamed_from, False), (lab.names_repo, False),
                          (lab.no_dependencies_repo, False)):  # fmt: skip
        seeder.repo(lab.org, name, private)
        seeder.collaborator(lab.org, name, lab.writer, "write")
        seeder.collaborator(lab.org, name, lab.assignee, "write")
        seeder.collaborator(lab.org, name, lab.poster, "read")
    _seed_main(seeder, lab)
    _seed_many(seeder, lab)
    _seed_names(seeder, lab)
    lab.issues["private"] = seeder.issue(lab.org, lab.private_repo, lab.writer, "Private plans")
    seeder.dependencies_off(lab.org, lab.no_dependencies_repo)
    lab.issues["nodeps"] = seeder.issue(lab.org, lab.no_dependencies_repo, lab.writer, "Where nothing blocks")
    lab.issues["nodeps-other"] = seeder.issue(lab.org, lab.no_dependencies_repo, lab.writer, "Nor is blocked")
    lab.issues["renamed"] = seeder.issue(lab.org, lab.renamed_from, lab.writer, "Issue of a renamed repository")
    seeder.rename(lab.org, lab.renamed_from, lab.renamed_to)
    _seed_moves(seeder, lab)
    _seed_scoped(seeder, lab)
    return lab


def _seed_scoped(seeder: Seeder, lab: Lab) -> None:
    """Exclusive and archived labels, the repository's and the organisation's, in an organisation of their own (the
    main organisation's two labels are what other probes expect of it)."""
    seeder.org(lab.scoped)
    seeder.repo(lab.scoped, lab.scoped_repo)
    seeder.collaborator(lab.scoped, lab.scoped_repo, lab.writer, "write")
    for name, exclusive, archived in SCOPED_REPO_LABELS:
        seeder.label(lab.scoped, lab.scoped_repo, name, exclusive, archived)
    for name, exclusive, archived in SCOPED_ORG_LABELS:
        seeder.label(lab.scoped, None, name, exclusive, archived)


def _seed_moves(seeder: Seeder, lab: Lab) -> None:
    """A repository transferred to another organisation, and its owner renamed: each answers its old names with a
    redirect to the new. The renamed owner is a user: Gitea 1.22 has no API to rename an organisation (no
    `POST /orgs/{org}/rename`; the admin's user rename refuses one), and a renamed user or organisation leaves the
    same redirect (docs/server-behaviour.md)."""
    seeder.org(lab.away)
    seeder.user(lab.old_owner)
    for owner in (lab.org, lab.old_owner):
        seeder.repo(owner, lab.moved_repo, private=True)
        seeder.collaborator(owner, lab.moved_repo, lab.writer, "write")
        lab.issues[f"moved-{owner}"] = seeder.issue(
            owner, lab.moved_repo, lab.writer, "Issue of a repository that moved"
        )
    seeder.transfer(lab.org, lab.moved_repo, lab.away)
    seeder.rename_user(lab.old_owner, lab.new_owner)


def _seed_main(seeder: Seeder, lab: Lab) -> None:
    o, r = lab.org, lab.repo
    for name, exclusive in (("bug", False), ("ui", False), ("priority/high", True), ("priority/low", True)):
        lab.labels[name] = seeder.label(o, r, name, exclusive)
    lab.labels["triage"] = seeder.label(o, None, "triage")  # an organisation label, on issues of names_repo
    lab.labels["untouched"] = seeder.label(o, None, "untouched")  # an organisation label no issue carries
    for title in ("v1", "v2"):
        lab.milestones[title] = seeder.milestone(o, r, title)
    lab.milestones["done"] = seeder.milestone(o, r, "done", "closed", DONE_DUE)  # closed, with a due day
    w = lab.writer
    lab.issues["auth"] = seeder.issue(
        o, r, w, "Authentication fails after password reset", "Users cannot sign in once they reset the password.",
        labels=["bug"], milestone="v1", assignees=[lab.assignee],
    )  # fmt: skip
    lab.issues["export"] = seeder.issue(o, r, w, "Export dialog crashes on empty input", labels=["bug", "ui"])
    lab.issues["dark"] = seeder.issue(o, r, w, "Add dark mode to the settings page", labels=["ui", "priority/low"])
    lab.issues["closed"] = seeder.issue(o, r, w, "Document the login flow", closed=True)
    lab.issues["poster"] = seeder.issue(o, r, lab.poster, "Poster reports a typo in the footer")
    lab.issues["locked"] = seeder.issue(o, r, w, "Locked discussion about the roadmap")
    lab.issues["pr"] = seeder.pull(o, r, w, "Feature branch change")
    lab.reviews["changes"] = seeder.review(o, r, lab.issues["pr"], lab.assignee, "REQUEST_CHANGES", REVIEW_BODY, INLINE)
    lab.reviews["dismissed"] = seeder.review(o, r, lab.issues["pr"], lab.assignee, "APPROVED", "", None)
    seeder.dismiss(o, r, lab.issues["pr"], lab.reviews["dismissed"], DISMISSAL)
    # The only digits in the lab's texts (its names are letters): what a numeric keyword finds inside a number.
    lab.issues["build"] = seeder.issue(o, r, w, "Build 90210 fails to start", closed=True)
    seeder.comment(o, r, lab.issues["auth"], w, f"First comment, for @{lab.assignee}")
    seeder.comment(o, r, lab.issues["auth"], lab.assignee, "Second comment")
    lab.has_lock = seeder.lock(o, r, lab.issues["locked"])


def _seed_many(seeder: Seeder, lab: Lab) -> None:
    for index in range(MANY_LABELS):
        seeder.label(lab.org, lab.many_repo, f"l{index:02d}")
    for index in range(MANY_ISSUES):
        seeder.issue(lab.org, lab.many_repo, lab.writer, f"Bulk issue {index:02d}")
    lab.milestones["archive"] = seeder.milestone(lab.org, lab.many_repo, "archive")
    for index in range(MANY_CLOSED):
        seeder.issue(lab.org, lab.many_repo, lab.writer, f"Archived issue {index:02d}", milestone="archive",
                     closed=True)  # fmt: skip


def _seed_names(seeder: Seeder, lab: Lab) -> None:
    """A comma inside a label's and a milestone's name, beside the names Gitea splits them into, and the
    organisation's label `triage` on issues (seeded in _seed_main)."""
    o, r, w = lab.org, lab.names_repo, lab.writer
    for name in ("help", "help, wanted", "stale"):
        lab.labels[name] = seeder.label(o, r, name)
    for title in ("v3", "v3, final"):
        lab.milestones[title] = seeder.milestone(o, r, title)
    lab.issues["comma"] = seeder.issue(o, r, w, "Names with commas", labels=["help, wanted", "triage"],
                                       milestone="v3, final")  # fmt: skip
    lab.issues["help"] = seeder.issue(o, r, w, "Names without commas", labels=["help", "stale"], milestone="v3")
    lab.issues["triaged"] = seeder.issue(o, r, w, "Looked at once", labels=["triage"])
    lab.issues["bare"] = seeder.issue(o, r, w, "Carries nothing at all")


def new_run() -> str:
    """Letters only: a digit in a name that text mentions (`@aq7…`) could match a numeric keyword probe."""
    return "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(6))


# -- a live server, through its API ---------------------------------------------------------------------------------


class LiveSeeder:
    """Seeds through the admin API; `cleanup` deletes each owner's repositories, then the orgs and the users."""

    def __init__(self, http: Http, admin_token: str) -> None:
        self.http = http
        self.admin = admin_token
        self.tokens: dict[str, str] = {}  # login -> a token with every scope, to act as that user while seeding
        self.users: list[str] = []
        self.orgs: list[str] = []

    def user(self, login: str) -> None:
        self.http.ok("POST", "/admin/users", self.admin, json={
            "username": login, "email": f"{login}@example.com", "password": PASSWORD,
            "must_change_password": False, "visibility": "public",
        })  # fmt: skip
        self.users.append(login)
        self.tokens[login] = self.token(login, ["all"])

    def token(self, login: str, scopes: list[str]) -> str:
        body = self.http.ok(
            "POST", f"/users/{login}/tokens", None, basic=(login, PASSWORD),
            json={"name": f"contract-{secrets.token_hex(4)}", "scopes": scopes},
        )  # fmt: skip
        return str(body["sha1"])

    def org(self, name: str) -> None:
        self.http.ok("POST", "/orgs", self.admin, json={"username": name, "visibility": "public"})
        self.orgs.append(name)

    def repo(self, owner: str, name: str, private: bool = False) -> None:
        path = f"/admin/users/{owner}/repos" if owner in self.users else f"/orgs/{owner}/repos"
        self.http.ok("POST", path, self.admin, json={
            "name": name, "private": private, "auto_init": True, "default_branch": "main", "readme": "Default",
        })  # fmt: skip

    def collaborator(self, owner: str, repo: str, login: str, permission: str) -> None:
        self.http.ok("PUT", f"/repos/{owner}/{repo}/collaborators/{login}", self.admin, json={"permission": permission})

    def team(self, org: str, name: str, repo: str, members: list[str], issues: str = "write") -> int:
        """A team made per unit, as the web UI makes them (its permission then reads `none`), on one repository."""
        units = {"repo.code": "read", "repo.issues": issues, "repo.pulls": "read"}
        made = self.http.ok("POST", f"/orgs/{org}/teams", self.admin, json={
            "name": name, "permission": "read", "includes_all_repositories": False, "units": list(units),
            "units_map": units,
        })  # fmt: skip
        for login in members:
            self.http.ok("PUT", f"/teams/{made['id']}/members/{login}", self.admin)
        self.http.ok("PUT", f"/teams/{made['id']}/repos/{org}/{repo}", self.admin)
        return int(made["id"])

    def dependencies_off(self, owner: str, repo: str) -> None:
        # Gitea 1.25.4 ignores internal_tracker unless has_issues comes with it; Forgejo 12.0.4 takes either way.
        tracker = {"enable_time_tracker": True, "allow_only_contributors_to_track_time": True,
                   "enable_issue_dependencies": False}  # fmt: skip
        edited = self.http.ok("PATCH", f"/repos/{owner}/{repo}", self.admin,
                              json={"has_issues": True, "internal_tracker": tracker})  # fmt: skip
        assert edited["internal_tracker"]["enable_issue_dependencies"] is False

    def label(self, owner: str, repo: str | None, name: str, exclusive: bool = False, archived: bool = False) -> int:
        path = f"/repos/{owner}/{repo}/labels" if repo else f"/orgs/{owner}/labels"
        option = {"name": name, "color": "#ee0701", "exclusive": exclusive, "is_archived": archived}
        label = int(self.http.ok("POST", path, self.admin, json=option)["id"])
        if archived and not repo:  # creating an organisation's label ignores is_archived (Gitea 1.25.4, Forgejo 12)
            self.http.ok("PATCH", f"{path}/{label}", self.admin, json={"is_archived": True})
        return label

    def milestone(self, owner: str, repo: str, title: str, state: str = "open", due_on: datetime | None = None) -> int:
        form = {"title": title, "state": state, **({"due_on": due_on.isoformat()} if due_on else {})}
        return int(self.http.ok("POST", f"/repos/{owner}/{repo}/milestones", self.admin, json=form)["id"])

    def issue(self, owner: str, repo: str, login: str, title: str, body: str = "", *, labels: list[str] = (),  # type: ignore[assignment]
              milestone: str | None = None, assignees: list[str] = (), closed: bool = False) -> int:  # type: ignore[assignment]  # fmt: skip
        path = f"/repos/{owner}/{repo}"
        ids = self._label_ids(owner, repo, labels)
        payload: dict[str, object] = {"title": title, "body": body, "labels": ids, "assignees": list(assignees)}
        if milestone:
            found = self.http.ok("GET", f"{path}/milestones", self.admin, params={"state": "all", "name": milestone})
            payload["milestone"] = found[0]["id"]
        number = int(self.http.ok("POST", f"{path}/issues", self.tokens[login], json=payload)["number"])
        if closed:
            self.http.ok("PATCH", f"{path}/issues/{number}", self.admin, json={"state": "closed"})
        return number

    def _label_ids(self, owner: str, repo: str, names: list[str]) -> list[int]:
        if not names:
            return []
        known = self.http.ok("GET", f"/repos/{owner}/{repo}/labels", self.admin, params={"limit": 50})
        known += self.http.ok("GET", f"/orgs/{owner}/labels", self.admin, params={"limit": 50})
        return [label["id"] for name in names for label in known if label["name"] == name]

    def pull(self, owner: str, repo: str, login: str, title: str, branch: str = "feature") -> int:
        path = f"/repos/{owner}/{repo}"
        content = base64.b64encode(f"a change on {branch}\n".encode()).decode()
        file = "change.txt" if branch == "feature" else f"{branch}.txt"  # the lab's review comments on change.txt
        self.http.ok("POST", f"{path}/contents/{file}", self.admin, json={
            "content": content, "message": "a change", "branch": "main", "new_branch": branch,
        })  # fmt: skip
        body = self.http.ok("POST", f"{path}/pulls", self.tokens[login],
                            json={"head": branch, "base": "main", "title": title})  # fmt: skip
        return int(body["number"])

    def review(self, owner: str, repo: str, number: int, login: str, state: str, body: str,
               inline: tuple[str, int, str] | None) -> int:  # fmt: skip
        comments = [{"path": inline[0], "body": inline[2], "new_position": inline[1]}] if inline else []
        body_json = {"event": state, "body": body, "comments": comments}
        return int(self.http.ok("POST", f"/repos/{owner}/{repo}/pulls/{number}/reviews", self.tokens[login],
                                json=body_json)["id"])  # fmt: skip

    def dismiss(self, owner: str, repo: str, number: int, review: int, message: str) -> None:
        """As the site administrator (Gitea lets only a repository's admins dismiss a review)."""
        path = f"/repos/{owner}/{repo}/pulls/{number}/reviews/{review}/dismissals"
        self.http.ok("POST", path, self.admin, json={"message": message})

    def merge(self, owner: str, repo: str, number: int) -> None:
        path = f"/repos/{owner}/{repo}/pulls/{number}/merge"
        self.http.ok("POST", path, self.admin, json={"Do": "merge", "delete_branch_after_merge": False})

    def comment(self, owner: str, repo: str, number: int, login: str, body: str) -> int:
        path = f"/repos/{owner}/{repo}/issues/{number}/comments"
        return int(self.http.ok("POST", path, self.tokens[login], json={"body": body})["id"])

    def lock(self, owner: str, repo: str, number: int) -> bool:
        answer = self.http.call("PUT", f"/repos/{owner}/{repo}/issues/{number}/lock", self.admin,
                                json={"lock_reason": "Too heated"})  # fmt: skip
        if answer.status in (404, 405):
            return False  # this release has no lock API
        assert answer.status < 300, answer.text
        return True

    def rename(self, owner: str, old: str, new: str) -> None:
        self.http.ok("PATCH", f"/repos/{owner}/{old}", self.admin, json={"name": new})

    def transfer(self, owner: str, name: str, new_owner: str) -> None:
        answer = self.http.call("POST", f"/repos/{owner}/{name}/transfer", self.admin, json={"new_owner": new_owner})
        assert answer.status == 202, answer.text  # an administrator's transfer is done at once

    def rename_user(self, old: str, new: str) -> None:
        answer = self.http.call("POST", f"/admin/users/{old}/rename", self.admin, json={"new_username": new})
        assert answer.status == 204, answer.text
        self.users[self.users.index(old)] = new
        self.tokens[new] = self.tokens.pop(old)

    def cleanup(self) -> None:
        """Best effort, so one failure leaves as little behind as it can; deleting the renamed user also drops the
        redirect its old name left."""
        for org in self.orgs:
            self._delete_repos(f"/orgs/{org}/repos")
            self.http.call("DELETE", f"/orgs/{org}", self.admin)
        for login in self.users:
            self._delete_repos(f"/users/{login}/repos")  # an administrator sees the private ones too
            self.http.call("DELETE", f"/admin/users/{login}", self.admin, params={"purge": "true"})

    def _delete_repos(self, listing: str) -> None:
        repos = self.http.call("GET", listing, self.admin, params={"limit": 50}).body
        for repo in repos if isinstance(repos, list) else []:  # an error's body is an object
            self.http.call("DELETE", f"/repos/{repo['full_name']}", self.admin)


# -- the stand-in, through its store --------------------------------------------------------------------------------

_PERMISSIONS = {"read": READ, "write": WRITE, "admin": ADMIN}


class StandInSeeder:
    def __init__(self, standin: StandIn) -> None:
        self.store = standin.store
        self.profile = standin.profile

    def user(self, login: str) -> None:
        self.store.add_user(login)
        self.store.oauth.passwords[login.lower()] = PASSWORD  # signs in on the web form, as a live lab user does

    def token_for_admin(self) -> str:
        self.store.add_user("contract-admin")
        self.store.site_admins.add("contract-admin")  # as the live suite's administrator is
        return self.token("contract-admin", ["all"])

    def token(self, login: str, scopes: list[str]) -> str:
        value = secrets.token_hex(20)
        self.store.add_token(value, login, *scopes)
        return value

    def org(self, name: str) -> None:
        self.store.add_user(name, is_org=True)

    def repo(self, owner: str, name: str, private: bool = False) -> None:
        self.store.add_repo(owner, name, private)

    def collaborator(self, owner: str, repo: str, login: str, permission: str) -> None:
        found = self.store.find_repo(owner, repo)
        assert found is not None
        found.access[login.lower()] = _PERMISSIONS[permission]

    def team(self, org: str, name: str, repo: str, members: list[str], issues: str = "write") -> int:
        found = self.store.find_repo(org, repo)
        assert found is not None
        team = Team(self.store.next_id("team"), org, name, set(members), {found.id})
        team.units_map = {"repo.code": "read", "repo.issues": issues, "repo.pulls": "read"}
        self.store.teams[team.id] = team
        return team.id

    def dependencies_off(self, owner: str, repo: str) -> None:
        found = self.store.find_repo(owner, repo)
        assert found is not None
        found.dependencies = False

    def label(self, owner: str, repo: str | None, name: str, exclusive: bool = False, archived: bool = False) -> int:
        found = self.store.find_repo(owner, repo) if repo else None
        label = self.store.add_label(found, name, "ee0701", org=None if repo else owner)
        label.exclusive, label.is_archived = exclusive, archived
        return label.id

    def milestone(self, owner: str, repo: str, title: str, state: str = "open", due_on: datetime | None = None) -> int:
        found = self.store.find_repo(owner, repo)
        assert found is not None
        return self.store.add_milestone(found, title, state, due_on=due_on).id

    def issue(self, owner: str, repo: str, login: str, title: str, body: str = "", *, labels: list[str] = (),  # type: ignore[assignment]
              milestone: str | None = None, assignees: list[str] = (), closed: bool = False) -> int:  # type: ignore[assignment]  # fmt: skip
        issue = self.store.add_issue(
            owner, repo, title, body, poster=login, labels=labels, milestone=milestone, assignees=assignees,
            state="closed" if closed else "open",
        )  # fmt: skip
        return issue.number

    def pull(self, owner: str, repo: str, login: str, title: str, branch: str = "feature") -> int:
        return self.store.add_issue(owner, repo, title, poster=login, pull=PullMeta()).number

    def review(self, owner: str, repo: str, number: int, login: str, state: str, body: str,
               inline: tuple[str, int, str] | None) -> int:  # fmt: skip
        issue = self.store.get_issue(owner, repo, number)
        assert issue is not None
        comments = [ReviewComment(0, login, inline[2], inline[0], inline[1])] if inline else []
        return self.store.add_review(issue, login, state, body, comments).id

    def dismiss(self, owner: str, repo: str, number: int, review: int, message: str) -> None:
        issue = self.store.get_issue(owner, repo, number)
        assert issue is not None
        [found] = [r for r in self.store.reviews_of(issue) if r.id == review]
        self.store.dismiss_review(found, "contract-admin", message)

    def merge(self, owner: str, repo: str, number: int) -> None:
        issue = self.store.get_issue(owner, repo, number)
        assert issue is not None and issue.pull is not None
        issue.pull.merged, issue.pull.merged_at = True, utc_now().replace(microsecond=0)
        self.store.set_state(issue, "closed")

    def comment(self, owner: str, repo: str, number: int, login: str, body: str) -> int:
        issue = self.store.get_issue(owner, repo, number)
        assert issue is not None
        return self.store.add_comment(issue, body, poster=login).id

    def lock(self, owner: str, repo: str, number: int) -> bool:
        issue = self.store.get_issue(owner, repo, number)
        assert issue is not None
        issue.is_locked = self.profile.has_lock_api
        return self.profile.has_lock_api

    def rename(self, owner: str, old: str, new: str) -> None:
        found = self.store.find_repo(owner, old)
        assert found is not None
        found.name = new
        self.store.redirects[(owner.lower(), old.lower())] = found.id

    def transfer(self, owner: str, name: str, new_owner: str) -> None:
        found = self.store.find_repo(owner, name)
        assert found is not None
        found.owner = new_owner
        self.store.redirects[(owner.lower(), name.lower())] = found.id

    def rename_user(self, old: str, new: str) -> None:
        found = self.store.user(old)
        # As the admin API: `POST /admin/users/{username}/rename` answers 422 "… is an organization not a user".
        assert found is not None and not found.is_org, f"{old} is an organization not a user"
        self.store.rename_user(old, new)

    def cleanup(self) -> None:
        """Nothing outlives the stand-in."""


def utc_now() -> datetime:
    return datetime.now(UTC)
