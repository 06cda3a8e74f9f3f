"""One issue: read it, create it, edit it.

What a caller without write access sends beyond title, body and state is silently dropped, both when
creating and when editing, as Gitea does.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from gitea_mcp.standin.core import ApiError, Call, NotFound, Response, bind, json_response
from gitea_mcp.standin.endpoints.common import assign_repo, can_write, dedupe, find_issue
from gitea_mcp.standin.gotime import parse_rfc3339
from gitea_mcp.standin.store import WRITE, Issue, Repo


def get_issue(call: Call) -> Response:
    repo = assign_repo(call)
    return json_response(call.view.issue(find_issue(call, repo)))


# -- create -------------------------------------------------------------------------------------------------

CREATE_ISSUE_FIELDS = {
    "title": "string",
    "body": "string",
    "ref": "string",
    "assignee": "string",
    "assignees": "[]string",
    "labels": "[]int64",
    "milestone": "int64",
    "due_date": "time",
    "closed": "bool",
    "projects": "[]int64",
}


def create_issue(call: Call) -> Response:
    repo = assign_repo(call)
    doer = call.require_token()
    form = bind(call, "CreateIssueOption", CREATE_ISSUE_FIELDS)
    title = form.get("title") or ""
    if not title:
        raise ApiError(422, "[Title]: Required")
    # Gitea's NewIssue cuts a long title (never refused), then trims its ends; editing cuts but keeps the ends.
    title = call.profile.cut_title(title).strip()
    writer = can_write(call, repo)
    assignees = _create_assignees(call, repo, form) if writer else []
    issue = call.store.new_issue(
        repo,
        title,
        form.get("body") or "",
        poster=doer.login,
        ref=form.get("ref") or "",
        assignees=assignees,
        closed=bool(form.get("closed")),
        **(_create_extras(call, repo, form) if writer else {}),
    )
    return json_response(call.view.issue(issue), 201)


def _create_assignees(call: Call, repo: Repo, form: dict[str, Any]) -> list[str]:
    """Checked before anything is inserted: an unknown or unassignable user is 422."""
    single = [form["assignee"]] if form.get("assignee") else []
    return _assignable(call, repo, dedupe(single + (form.get("assignees") or [])))


def _create_extras(call: Call, repo: Repo, form: dict[str, Any]) -> CreateExtras:
    """Labels, milestone and due date, which only a writer sets. Unknown label and milestone ids are dropped; two
    labels of one exclusive scope are both kept (only the label endpoints enforce exclusivity); the due date is the
    instant given."""
    usable = {x.id for x in call.store.usable_labels(repo)}
    milestone = call.store.milestone(form.get("milestone") or 0)
    return {
        "label_ids": dedupe(x for x in form.get("labels") or [] if x in usable),
        "milestone_id": milestone.id if milestone and milestone.repo_id == repo.id else 0,
        "due_date": parse_rfc3339(form["due_date"]) if form.get("due_date") else None,
    }


class CreateExtras(TypedDict, total=False):
    label_ids: list[int]
    milestone_id: int
    due_date: datetime | None


def _assignable(call: Call, repo: Repo, names: list[str]) -> list[str]:
    logins = []
    for name in names:
        user = call.store.user(name)
        if user is None:
            raise ApiError(422, f"Assignee does not exist: [name: user does not exist [uid: 0, name: {name}]]")
        if call.store.access_mode(repo, user.login) < WRITE:
            raise ApiError(422, f"user doesn't have access to repo [user_id: {user.id}, repo_name: {repo.name}]")
        logins.append(user.login)
    return logins


# -- edit ---------------------------------------------------------------------------------------------------

EDIT_ISSUE_FIELDS = {
    "title": "string",
    "body": "string",
    "ref": "string",
    "assignee": "string",
    "assignees": "[]string",
    "milestone": "int64",
    "state": "string",
    "due_date": "time",
    "unset_due_date": "bool",
    "content_version": "int64",
    "projects": "[]int64",
}


def edit_issue(call: Call) -> Response:
    repo = assign_repo(call)
    doer = call.require_token()
    form = bind(call, "EditIssueOption", EDIT_ISSUE_FIELDS)
    issue = find_issue(call, repo)
    writer = can_write(call, repo)
    if issue.poster.lower() != doer.login.lower() and not writer:
        raise ApiError(403, None)  # Gitea answers a bare 403 here, without a JSON body
    before = _facts(issue)
    try:  # Gitea saves each change as it goes: what came before a failure stays saved
        _edit_text(call, issue, form)
        if writer:
            _edit_due_date(call, issue, form)
            _edit_assignees(call, repo, issue, form)
            _edit_milestone(call, repo, issue, form)
    finally:
        if _facts(issue) != before:
            call.store.touch(issue)
    if form.get("state") is not None and _edit_state(call, issue, form["state"]):
        call.store.touch(issue)
    return json_response(call.view.issue(issue), 201)


def _facts(issue: Issue) -> tuple[object, ...]:
    return issue.title, issue.body, issue.ref, issue.due_date, list(issue.assignees), issue.milestone_id


def _edit_text(call: Call, issue: Issue, form: dict[str, Any]) -> None:
    if form.get("title") and form["title"] != issue.title:
        # Gitea compares the title sent, then stores its cut: a long title sent again is recorded as a change.
        call.store.edit(issue, title=call.profile.cut_title(form["title"]))
        call.store.touch(issue)
    if form.get("body") is not None:
        version = form.get("content_version")
        if version is not None and version != issue.content_version:
            raise ApiError(409, "the issue is already changed")
        if form["body"] != issue.body:
            call.store.edit(issue, body=form["body"], content_version=issue.content_version + 1)
    if form.get("ref") is not None:
        call.store.edit(issue, ref=form["ref"])


def _edit_due_date(call: Call, issue: Issue, form: dict[str, Any]) -> None:
    if form.get("due_date") is None and form.get("unset_due_date") is None:
        return
    if form.get("unset_due_date"):
        call.store.edit(issue, due_date=None)
        return
    if form.get("due_date") is None:
        raise ApiError(400, "The due_date cannot be empty")
    # Only the date counts: Gitea stores the end of that day in the given zone.
    due = parse_rfc3339(form["due_date"])
    call.store.edit(issue, due_date=datetime(due.year, due.month, due.day, 23, 59, 59, tzinfo=due.tzinfo))


def _edit_assignees(call: Call, repo: Repo, issue: Issue, form: dict[str, Any]) -> None:
    if form.get("assignees") is None and form.get("assignee") is None:
        return
    names = dedupe(([form["assignee"]] if form.get("assignee") else []) + (form.get("assignees") or []))
    try:
        call.store.edit(issue, assignees=_assignable(call, repo, names))
    except ApiError:
        raise ApiError(500, "") from None  # Gitea's EditIssue turns these into a blank 500


def _edit_milestone(call: Call, repo: Repo, issue: Issue, form: dict[str, Any]) -> None:
    wanted = form.get("milestone")
    if wanted is None or wanted == issue.milestone_id:
        return
    milestone = call.store.milestone(wanted)
    if wanted and (milestone is None or milestone.repo_id != repo.id):
        raise ApiError(500, "")  # an unknown milestone id fails inside Gitea: blank 500
    call.store.edit(issue, milestone_id=wanted)


def _edit_state(call: Call, issue: Issue, state: str) -> bool:
    if issue.pull and issue.pull.merged:
        raise ApiError(412, "cannot change state of this pull request, it was already merged")
    if state not in ("open", "closed"):
        raise ApiError(412, f"unknown state: {state}")
    if state == "closed" and issue.state != "closed" and _open_blockers(call, issue):
        # After the other fields were saved (edit_issue), as Gitea 1.25.4 and Forgejo 12.0.4 do.
        raise ApiError(412, _DEPENDENCIES_LEFT_FORGEJO if call.profile.is_forgejo else _DEPENDENCIES_LEFT)
    return call.store.set_state(issue, state)


# Gitea 1.25.4's and Forgejo 12.0.4's answers to closing an issue that still has open blockers (measured).
_DEPENDENCIES_LEFT = "cannot close this issue or pull request because it still has open dependencies"
_DEPENDENCIES_LEFT_FORGEJO = "cannot close this issue because it still has open dependencies"

DEPENDENCY_FIELDS = {"owner": "string", "repo": "string", "index": "int64"}


def _open_blockers(call: Call, issue: Issue) -> bool:
    return any(call.store.issue(blocker).state == "open" for blocker in issue.blocked_by)


def _dependencies_repo(call: Call) -> tuple[Repo, Issue]:
    """The repository and issue of a dependency route: 404, like a missing issue, where dependencies are off (Gitea
    1.25.4, issue 37's findings)."""
    repo = assign_repo(call)
    if not repo.dependencies:
        raise NotFound()
    return repo, find_issue(call, repo)


def list_dependencies(call: Call) -> Response:
    """GET .../issues/{index}/dependencies: the issues that block this one, each with its repository."""
    _, issue = _dependencies_repo(call)
    return json_response([call.view.issue(call.store.issue(i)) for i in issue.blocked_by])


def list_blocks(call: Call) -> Response:
    """GET .../issues/{index}/blocks: the issues this one blocks; where dependencies are off, none (200, not 404:
    Gitea 1.25.4 and Forgejo 12.0.4)."""
    repo = assign_repo(call)
    issue = find_issue(call, repo)
    if not repo.dependencies:
        return json_response([])
    blocked = [i for i in call.store.issues.values() if issue.id in i.blocked_by]
    return json_response([call.view.issue(i) for i in blocked])


def _blocker(call: Call) -> tuple[Issue, Issue]:
    """The issue of the route and the blocker the body (IssueMeta) names, for a writer; 404 for a missing one."""
    repo, issue = _dependencies_repo(call)
    call.require_token()
    form = bind(call, "IssueMeta", DEPENDENCY_FIELDS)
    if not can_write(call, repo):
        raise ApiError(403, None)
    blocker = call.store.get_issue(
        str(form.get("owner") or ""), str(form.get("repo") or ""), int(form.get("index") or 0)
    )
    if blocker is None:
        raise ApiError(404, "IsErrIssueNotExist")
    return issue, blocker


def add_dependency(call: Call) -> Response:
    """POST .../issues/{index}/dependencies: the issue named in the body (IssueMeta) blocks this one. Gitea answers
    this issue; a duplicate, or a cycle of two issues, is its blank 500; longer cycles are accepted (issue 37's
    findings)."""
    issue, blocker = _blocker(call)
    if blocker.id in issue.blocked_by or issue.id in blocker.blocked_by:
        raise ApiError(500, "")
    issue.blocked_by.append(blocker.id)
    _touch_both(call, issue, blocker)
    return json_response(call.view.issue(issue), 201)


def _touch_both(call: Call, issue: Issue, blocker: Issue) -> None:
    """Adding a dependency bumps the updated time of both issues (measured on Gitea 1.25.4 and Forgejo 12.0.4);
    removing one is taken to do the same (it records an event on both alike)."""
    call.store.touch(issue)
    call.store.touch(blocker)


def remove_dependency(call: Call) -> Response:
    """DELETE .../issues/{index}/dependencies: answers 201 with this issue; removing one that is not there is a 500,
    blank to all but site admins (Gitea 1.25.4 and Forgejo 12.0.4 word it for those: `issue dependency does not
    exist [issue id: …, dependency id: …]`)."""
    issue, blocker = _blocker(call)
    if blocker.id not in issue.blocked_by:
        raise ApiError(500, "")
    issue.blocked_by.remove(blocker.id)
    _touch_both(call, issue, blocker)
    return json_response(call.view.issue(issue), 201)
