"""Gitea's JSON for the stand-in's objects, field for field as `services/convert` builds it.

Go zero values are kept: a missing pointer is `null` (milestone, closed_at, due_date, pull_request,
assignee), an empty assignee slice is `null`, labels and assets are always lists. Times are rendered in the
server's zone (`Profile.zone`), as Go's RFC 3339 writes them: `Z` for UTC, else the offset. An issue's
labels come sorted by name, as Gitea loads them.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, tzinfo
from typing import Any

from gitea_mcp.standin.store import (
    ADMIN,
    READ,
    WRITE,
    Comment,
    Issue,
    Label,
    Milestone,
    Repo,
    Review,
    ReviewComment,
    Store,
    Team,
    TimelineRow,
    User,
)

Json = dict[str, Any]
GO_ZERO_TIME = "0001-01-01T00:00:00Z"
UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # a zero Gitea TimeStamp converted to time


def stamp(when: datetime | None, zone: tzinfo = UTC) -> str | None:
    """Go's RFC 3339 in `zone`: `2026-03-01T01:00:00+01:00`, or `…Z` when the offset is zero."""
    if when is None:
        return None
    text = when.astimezone(zone).isoformat(timespec="seconds")
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text


def by_name(labels: list[Label]) -> list[Label]:
    """Gitea sorts labels by name (byte order) unless told otherwise."""
    return sorted(labels, key=lambda x: x.name.encode())


class View:
    """Renders objects as seen by `doer` (None: anonymous) on a server whose ROOT_URL is `root`, in `zone`."""

    def __init__(self, store: Store, root: str, doer: User | None, zone: tzinfo = UTC) -> None:
        self.store = store
        self.root = root
        self.api = root + "/api/v1"
        self.doer = doer
        self.zone = zone

    def time(self, when: datetime | None) -> str | None:
        return stamp(when, self.zone)

    def user(self, user: User) -> Json:
        authed = self.doer is not None and self.doer.id == user.id
        # Everybody keeps their e-mail private here, so others see Gitea's placeholder address.
        email = f"{user.login.lower()}@example.com" if authed else f"{user.login.lower()}@noreply.localhost"
        return {
            "id": user.id,
            "login": user.login,
            "login_name": "",
            "source_id": 0,
            "full_name": user.full_name,
            "email": email,
            "avatar_url": f"{self.root}/avatars/{hashlib.md5(user.login.encode()).hexdigest()}",
            "html_url": f"{self.root}/{user.login}",
            "language": "en-US" if authed else "",
            "is_admin": False,
            "last_login": self.time(user.created) if authed else GO_ZERO_TIME,
            "created": self.time(user.created),
            "restricted": False,
            "active": authed,
            "prohibit_login": False,
            "location": user.location,
            "website": user.website,
            "description": user.description,
            "visibility": "public",
            "followers_count": 0,
            "following_count": 0,
            "starred_repos_count": 0,
        }

    def user_named(self, login: str) -> Json:
        user = self.store.user(login)
        if user is None:  # a test put an unknown login on an issue; Gitea shows a ghost user
            user = User(-1, "Ghost", "Ghost")
        return self.user(user)

    def team(self, team: Team) -> Json:
        """A team as `GET /repos/{o}/{r}/teams` lists it (its organization null there)."""
        return {
            "id": team.id,
            "name": team.name,
            "description": "",
            "organization": None,
            "includes_all_repositories": False,
            "permission": team.permission,
            "units": list(team.units_map),
            "units_map": dict(team.units_map),
            "can_create_org_repo": False,
        }

    def org(self, org: User) -> Json:
        return {
            "id": org.id,
            "name": org.login,
            "username": org.login,
            "full_name": org.full_name,
            "email": "",
            "avatar_url": f"{self.root}/avatars/{hashlib.md5(org.login.encode()).hexdigest()}",
            "description": org.description,
            "website": org.website,
            "location": org.location,
            "visibility": "public",
            "repo_admin_change_team_access": False,
        }

    def label(self, label: Label) -> Json:
        if label.repo_id is not None:
            url = f"{self.api}/repos/{self.store.repo(label.repo_id).full_name}/labels/{label.id}"
        else:
            url = f"{self.api}/orgs/{label.org}/labels/{label.id}"
        return {
            "id": label.id,
            "name": label.name,
            "exclusive": label.exclusive,
            "is_archived": label.is_archived,
            "color": label.color,
            "description": label.description,
            "url": url,
        }

    def milestone(self, milestone: Milestone) -> Json:
        states = self.store.issue_states(milestone)
        return {
            "id": milestone.id,
            "title": milestone.title,
            "description": milestone.description,
            "state": milestone.state,
            "open_issues": states.count("open"),
            "closed_issues": states.count("closed"),
            "created_at": self.time(milestone.created_at),
            "updated_at": self.time(milestone.updated_at),
            "closed_at": self.time(milestone.closed_at),
            "due_on": self.time(milestone.due_on),
        }

    def issue(self, issue: Issue) -> Json:
        repo = self.store.repo(issue.repo_id)
        html_url = self.issue_html(issue)
        assignees = [self.user_named(login) for login in issue.assignees]
        milestone = self.store.milestone(issue.milestone_id)
        return {
            "id": issue.id,
            "url": f"{self.api}/repos/{repo.full_name}/issues/{issue.number}",
            "html_url": html_url,
            "number": issue.number,
            "user": self.user_named(issue.poster),
            "original_author": "",
            "original_author_id": 0,
            "title": issue.title,
            "body": issue.body,
            "ref": issue.ref,
            "assets": [],
            "labels": self.labels_of(issue),
            "milestone": self.milestone(milestone) if milestone else None,
            "projects": None,
            "assignee": assignees[0] if assignees else None,
            "assignees": assignees or None,
            "state": issue.state,
            "is_locked": issue.is_locked,
            "comments": len(self.store.comments_of(issue)),
            "created_at": self.time(issue.created_at),
            "updated_at": self.time(issue.updated_at),
            "closed_at": self.time(issue.closed_at),
            "due_date": self.time(issue.due_date),
            "time_estimate": 0,
            "pull_request": self._pull(issue, html_url),
            "repository": self.repo_meta(repo),
            "pin_order": 0,
            "content_version": issue.content_version,
        }

    def labels_of(self, issue: Issue) -> list[Json]:
        return [self.label(x) for x in by_name([x for x in map(self.store.label, issue.label_ids) if x is not None])]

    def issue_html(self, issue: Issue) -> str:
        repo = self.store.repo(issue.repo_id)
        return f"{self.root}/{repo.full_name}/{'pulls' if issue.is_pull else 'issues'}/{issue.number}"

    def _pull(self, issue: Issue, html_url: str) -> Json | None:
        if issue.pull is None:
            return None
        meta = issue.pull
        return {
            "merged": meta.merged,
            "merged_at": self.time(meta.merged_at),
            "draft": meta.draft,
            "html_url": html_url,
        }

    def comment(self, comment: Comment) -> Json:
        issue = self.store.issue(comment.issue_id)
        issue_html = self.issue_html(issue)
        return {
            "id": comment.id,
            "html_url": f"{issue_html}#issuecomment-{comment.id}",
            "pull_request_url": issue_html if issue.is_pull else "",
            "issue_url": "" if issue.is_pull else issue_html,
            "user": self.user_named(comment.poster),
            "original_author": "",
            "original_author_id": 0,
            "body": comment.body,
            "assets": [],
            "created_at": self.time(comment.created_at),
            "updated_at": self.time(comment.updated_at),
        }

    def review(self, review: Review) -> Json:
        """`services/convert.ToPullReview`: the html_url points at the review's entry among the comments."""
        pull_html = self.issue_html(self.store.issue(review.issue_id))
        return {
            "id": review.id,
            "user": self.user_named(review.reviewer),
            "team": None,
            "state": review.state,
            "body": review.body,
            "commit_id": review.commit_id,
            "stale": review.stale,
            "official": review.official,
            "dismissed": review.dismissed,
            "comments_count": len(review.comments),
            "submitted_at": self.time(review.created_at),
            "updated_at": self.time(review.updated_at),
            # A review asked for has no entry of type `review` among the comments, so no anchor (Gitea 1.25.4).
            "html_url": "" if review.state == "REQUEST_REVIEW" else f"{pull_html}#issuecomment-{review.comment_id}",
            "pull_request_url": pull_html,
        }

    def timeline_entry(self, issue: Issue, entry: TimelineRow) -> Json:
        """`services/convert.ToTimelineComment`: every field of Gitea's struct, null or zero where the event has
        none (as Gitea 1.25.4 and Forgejo 12.0.4 send it)."""
        issue_html = self.issue_html(issue)
        return {
            "id": entry.id,
            "type": entry.kind,
            "html_url": f"{issue_html}#issuecomment-{entry.id}",
            "pull_request_url": issue_html if issue.is_pull else "",
            "issue_url": "" if issue.is_pull else issue_html,
            "user": self.user_named(entry.poster),
            "body": entry.body,
            "created_at": self.time(entry.created_at),
            "updated_at": self.time(entry.updated_at),
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
            "review_id": entry.review_id,
            "label": None,
            "assignee": self.user_named(entry.assignee) if entry.assignee else None,
            "assignee_team": None,
            "removed_assignee": False,
            "resolve_doer": None,
            "dependent_issue": None,
        }

    def review_comment(self, review: Review, comment: ReviewComment) -> Json:
        """`services/convert.ToPullReviewCommentList`: `position` is the new side's line, `original_position` the
        old side's (the other one 0)."""
        pull_html = self.issue_html(self.store.issue(review.issue_id))
        resolver = self.store.user(comment.resolver) if comment.resolver else None
        return {
            "id": comment.id,
            "body": comment.body,
            "user": self.user_named(comment.poster),
            "resolver": self.user(resolver) if resolver else None,
            "pull_request_review_id": review.id,
            "created_at": self.time(comment.created_at),
            "updated_at": self.time(comment.updated_at),
            "path": comment.path,
            "commit_id": review.commit_id,
            "original_commit_id": "",
            "diff_hunk": "",
            "position": max(comment.line, 0),
            "original_position": max(-comment.line, 0),
            "html_url": f"{pull_html}#issuecomment-{comment.id}",
            "pull_request_url": pull_html,
        }

    @staticmethod
    def repo_meta(repo: Repo) -> Json:
        return {"id": repo.id, "name": repo.name, "owner": repo.owner, "full_name": repo.full_name}

    def repo(self, repo: Repo) -> Json:
        owner = self.store.user(repo.owner)
        mode = self.store.access_mode(repo, self.doer.login if self.doer else None)
        issues = self.store.issues_of(repo)
        full = repo.full_name
        return {
            "id": repo.id,
            "owner": self.user(owner) if owner else None,
            "name": repo.name,
            "full_name": full,
            "description": repo.description,
            "empty": False,
            "private": repo.private,
            "fork": False,
            "template": False,
            "mirror": False,
            "size": 0,
            "language": "",
            "languages_url": f"{self.api}/repos/{full}/languages",
            "html_url": f"{self.root}/{full}",
            "url": f"{self.api}/repos/{full}",
            "link": "",
            "ssh_url": f"git@127.0.0.1:{full}.git",
            "clone_url": f"{self.root}/{full}.git",
            "original_url": "",
            "website": "",
            "stars_count": 0,
            "forks_count": 0,
            "watchers_count": 1,
            "open_issues_count": sum(1 for i in issues if i.state == "open" and not i.is_pull),
            "open_pr_counter": sum(1 for i in issues if i.state == "open" and i.is_pull),
            "release_counter": 0,
            "default_branch": "main",
            "archived": False,
            "created_at": self.time(repo.created_at),
            "updated_at": self.time(repo.updated_at),
            "archived_at": self.time(UNIX_EPOCH),
            "permissions": {"admin": mode >= ADMIN, "push": mode >= WRITE, "pull": mode >= READ},
            **self._repo_units(repo.dependencies),
            "avatar_url": "",
            "internal": False,
            "mirror_interval": "",
            "object_format_name": "sha1",
            "mirror_updated": GO_ZERO_TIME,
            "topics": [],
            "licenses": [],
        }

    @staticmethod
    def _repo_units(dependencies: bool) -> Json:
        return {
            "has_code": True,
            "has_issues": True,
            "internal_tracker": {
                "enable_time_tracker": True,
                "allow_only_contributors_to_track_time": True,
                "enable_issue_dependencies": dependencies,
            },
            "has_wiki": True,
            "has_pull_requests": True,
            "has_projects": True,
            "projects_mode": "all",
            "has_releases": True,
            "has_packages": True,
            "has_actions": True,
            "ignore_whitespace_conflicts": False,
            "allow_merge_commits": True,
            "allow_rebase": True,
            "allow_rebase_explicit": True,
            "allow_squash_merge": True,
            "allow_fast_forward_only_merge": True,
            "allow_rebase_update": True,
            "allow_manual_merge": False,
            "autodetect_manual_merge": False,
            "default_delete_branch_after_merge": False,
            "default_merge_style": "merge",
            "default_allow_maintainer_edit": False,
        }
