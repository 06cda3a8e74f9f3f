"""Gitea JSON as a real Gitea 1.2x server sends it, built field by field from the spec and docs/server-behaviour.md.

Every builder here is checked against `openapi-v1.json` in tests/test_gitea_json_spec.py, so the mocks
cannot drift from the real server's shapes.
"""

from __future__ import annotations

from typing import Any

ROOT = "https://gitea.test"
API = f"{ROOT}/api/v1"


def user(login: str, uid: int = 1) -> dict[str, Any]:
    # Real Gitea also sends "username" (a MarshalJSON alias of login) which the spec omits; left out here
    # so the strict spec check holds — gitea_mcp reads only "login".
    return {
        "id": uid,
        "login": login,
        "login_name": "",
        "source_id": 0,
        "full_name": login.title(),
        "email": f"{login}@noreply.gitea.test",
        "avatar_url": f"{ROOT}/avatars/{uid}",
        "html_url": f"{ROOT}/{login}",
        "language": "",
        "is_admin": False,
        "last_login": "0001-01-01T00:00:00Z",
        "created": "2025-01-01T10:00:00Z",
        "restricted": False,
        "active": False,
        "prohibit_login": False,
        "location": "",
        "website": "",
        "description": "",
        "visibility": "public",
        "followers_count": 0,
        "following_count": 0,
        "starred_repos_count": 0,
    }


def label(
    name: str,
    lid: int,
    owner: str = "acme",
    repo: str = "widgets",
    exclusive: bool = False,
    *,
    archived: bool = False,
    color: str = "ee0701",
    description: str = "",
) -> dict[str, Any]:
    return {
        "id": lid,
        "name": name,
        "exclusive": exclusive,
        "is_archived": archived,
        "color": color,
        "description": description,
        "url": f"{API}/repos/{owner}/{repo}/labels/{lid}",
    }


def org_label(name: str, lid: int, org: str = "acme", exclusive: bool = False, **more: Any) -> dict[str, Any]:
    """An organisation's label, as issue rows carry it: its URL is the organisation's (verified on Gitea 1.25)."""
    return {**label(name, lid, exclusive=exclusive, **more), "url": f"{API}/orgs/{org}/labels/{lid}"}


def milestone(
    title: str, mid: int, state: str = "open", *, counts: tuple[int, int] = (1, 0), due_on: str | None = None
) -> dict[str, Any]:
    """`counts`: its open and closed issues; `due_on`: Gitea's due instant (the end of a day in its zone)."""
    return {
        "id": mid,
        "title": title,
        "description": "",
        "state": state,
        "open_issues": counts[0],
        "closed_issues": counts[1],
        "created_at": "2025-02-01T10:00:00Z",
        "updated_at": "2025-02-01T10:00:00Z",
        "closed_at": "2025-03-01T10:00:00Z" if state == "closed" else None,
        "due_on": due_on,
    }


def issue(
    number: int,
    title: str = "Crash on login",
    *,
    owner: str = "acme",
    repo: str = "widgets",
    state: str = "open",
    body: str = "Steps to reproduce…",
    author: str = "alice",
    labels: list[dict[str, Any]] | None = None,
    assignees: list[str] | None = None,
    milestone_: dict[str, Any] | None = None,
    comments: int = 0,
    created: str = "2026-11-20T09:00:00Z",
    updated: str = "2026-11-28T09:00:00Z",
    pull: bool = False,
    due_date: str | None = None,
) -> dict[str, Any]:
    kind = "pulls" if pull else "issues"
    assignee_users = [user(login, 10 + i) for i, login in enumerate(assignees or [])]
    return {
        "id": 1000 + number,
        "url": f"{API}/repos/{owner}/{repo}/issues/{number}",
        "html_url": f"{ROOT}/{owner}/{repo}/{kind}/{number}",
        "number": number,
        "user": user(author, 2),
        "original_author": "",
        "original_author_id": 0,
        "title": title,
        "body": body,
        "ref": "",
        "assets": [],
        "labels": labels or [],
        "milestone": milestone_,
        "assignee": assignee_users[0] if assignee_users else None,
        # Gitea serialises an empty assignee slice as null.
        "assignees": assignee_users or None,
        "state": state,
        "is_locked": False,
        "comments": comments,
        "created_at": created,
        "updated_at": updated,
        "closed_at": updated if state == "closed" else None,
        "due_date": due_date,
        "time_estimate": 0,
        "pull_request": (
            {"merged": False, "merged_at": None, "draft": False, "html_url": f"{ROOT}/{owner}/{repo}/pulls/{number}"}
            if pull
            else None
        ),
        "repository": {"id": 7, "name": repo, "owner": owner, "full_name": f"{owner}/{repo}"},
        "pin_order": 0,
        "content_version": 0,
    }


def comment(cid: int, body: str, author: str = "bob", number: int = 1) -> dict[str, Any]:
    return {
        "id": cid,
        "html_url": f"{ROOT}/acme/widgets/issues/{number}#issuecomment-{cid}",
        "pull_request_url": "",
        "issue_url": f"{ROOT}/acme/widgets/issues/{number}",
        "user": user(author, 3),
        "original_author": "",
        "original_author_id": 0,
        "body": body,
        "assets": [],
        "created_at": "2026-11-21T10:00:00Z",
        "updated_at": "2026-11-21T10:00:00Z",
    }


def review(
    rid: int,
    state: str = "REQUEST_CHANGES",
    body: str = "Please split this change.",
    reviewer: str = "carol",
    *,
    comments_count: int = 0,
    number: int = 7,
    anchor: int = 0,
    dismissed: bool = False,
    stale: bool = False,
) -> dict[str, Any]:
    """A pull request review as `GET …/pulls/{n}/reviews` lists it (its html_url anchors its entry among the
    pull request's comments)."""
    pull = f"{ROOT}/acme/widgets/pulls/{number}"
    return {
        "id": rid,
        "user": user(reviewer, 4),
        "team": None,
        "state": state,
        "body": body,
        "commit_id": "3c31f71a88e002a1f0640d799ee608e44b323d63",
        "stale": stale,
        "official": state in ("APPROVED", "REQUEST_CHANGES"),
        "dismissed": dismissed,
        "comments_count": comments_count,
        "submitted_at": "2026-11-22T10:00:00Z",
        "updated_at": "2026-11-22T10:00:00Z",
        "html_url": f"{pull}#issuecomment-{anchor or 100 + rid}",
        "pull_request_url": pull,
    }


def review_comment(
    cid: int,
    body: str = "This line needs a test.",
    path: str = "src/export.py",
    line: int = 12,
    *,
    old_line: int = 0,
    author: str = "carol",
    review_id: int = 1,
    resolver: str | None = None,
    number: int = 7,
) -> dict[str, Any]:
    """An inline comment of a review: `position` is the line in the new file, `original_position` in the old one
    (Gitea sets one of them, the other is 0)."""
    pull = f"{ROOT}/acme/widgets/pulls/{number}"
    return {
        "id": cid,
        "body": body,
        "user": user(author, 4),
        "resolver": user(resolver, 5) if resolver else None,
        "pull_request_review_id": review_id,
        "created_at": "2026-11-22T10:00:00Z",
        "updated_at": "2026-11-22T10:00:00Z",
        "path": path,
        "commit_id": "3c31f71a88e002a1f0640d799ee608e44b323d63",
        "original_commit_id": "",
        "diff_hunk": "@@ -10,3 +10,4 @@",
        "position": line,
        "original_position": old_line,
        "html_url": f"{pull}#issuecomment-{cid}",
        "pull_request_url": pull,
    }


def timeline_entry(
    cid: int,
    kind: str = "comment",
    body: str = "",
    author: str = "bob",
    *,
    review_id: int = 0,
    number: int = 7,
    pull: bool = True,
) -> dict[str, Any]:
    """An entry of `GET …/issues/{n}/timeline` as Gitea 1.25.4 and Forgejo 12 send it: every field, null or zero
    where the event has none. A `review` entry is a submitted review (its body, its `review_id`, no state); a
    `dismiss_review` carries the dismissal's message and the dismissed review's id."""
    page = f"{ROOT}/acme/widgets/{'pulls' if pull else 'issues'}/{number}"
    return {
        "id": cid,
        "type": kind,
        "html_url": f"{page}#issuecomment-{cid}",
        "pull_request_url": page if pull else "",
        "issue_url": "" if pull else page,
        "user": user(author, 4),
        "body": body,
        "created_at": "2026-11-22T10:00:00Z",
        "updated_at": "2026-11-22T10:00:00Z",
        "old_project_id": 0,
        "project_id": 0,
        "old_milestone": None,
        "milestone": None,
        "tracked_time": None,
        "old_title": "",
        "new_title": "",
        "old_ref": "",
        "new_ref": "",
        "ref_issue": None,
        "ref_comment": None,
        "ref_action": "none",
        "ref_commit_sha": "",
        "review_id": review_id,
        "label": None,
        "assignee": None,
        "assignee_team": None,
        "removed_assignee": False,
        "resolve_doer": None,
        "dependent_issue": None,
    }


def api_error(message: str) -> dict[str, Any]:
    """Gitea's error body: always JSON {"message", "url"}."""
    return {"message": message, "url": f"{ROOT}/api/swagger"}


def unknown_user_404(login: str, message: str = "not found") -> dict[str, Any]:
    """The issue list's 404 for an unknown created_by/assigned_by/mentioned_by: the user named in `errors`
    (message "not found" on Gitea 1.25, "The target couldn't be found." on 1.22)."""
    return {
        "errors": [f"user does not exist [uid: 0, name: {login}]"],
        "message": message,
        "url": f"{ROOT}/api/swagger",
    }


LABELS = [label("bug", 1), label("ui", 2), label("good first issue", 3)]
HIGH, LOW = label("priority/high", 8, exclusive=True), label("priority/low", 9, exclusive=True)
MILESTONES = [milestone("v1.0", 5, "closed"), milestone("v1.1", 6)]


def permission(login: str, role: str, uid: int = 3) -> dict[str, Any]:
    """`GET /repos/{o}/{r}/collaborators/{user}/permission`: owner, admin, write, read or none."""
    return {"permission": role, "role_name": role, "user": user(login, uid)}


def team(tid: int, name: str, issues: str = "write", permission: str = "none") -> dict[str, Any]:
    """A team as `GET /repos/{o}/{r}/teams` lists it, made per unit as the web UI makes teams (Gitea 1.25.4)."""
    units = {"repo.code": "read", "repo.issues": issues, "repo.pulls": "read"}
    return {
        "id": tid,
        "name": name,
        "description": "",
        "organization": None,
        "includes_all_repositories": False,
        "permission": permission,
        "units": list(units),
        "units_map": units,
        "can_create_org_repo": False,
    }
