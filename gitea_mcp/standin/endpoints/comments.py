"""An issue's comments: listed whole (no paging, with X-Total-Count) and added one at a time; and its timeline.

A missing issue is a blank 500 on Gitea (its handlers treat the lookup failure as internal) and 404 on
Forgejo from 11; a locked issue takes comments only from those who may write to the repository.

The timeline lists every row of the issue (comments, reviews, events) oldest first, whole unless `page` is given;
a page is cut before the inline comments of reviews are left out, so it may hold fewer than `limit`, and its
X-Total-Count is what it holds. No entry at all is `null` (a Go nil slice).
"""

from __future__ import annotations

from gitea_mcp.standin.core import (
    ApiError,
    Call,
    Response,
    before_since,
    bind,
    counted,
    json_response,
    list_options,
    page_of,
)
from gitea_mcp.standin.endpoints.common import assign_repo, can_write, find_issue

LOCKED = "You cannot comment on a locked issue."


def list_comments(call: Call) -> Response:
    repo = assign_repo(call)
    before, since = before_since(call)
    issue = find_issue(call, repo, missing=call.profile.missing_issue_comments_status)
    comments = [
        c
        for c in call.store.comments_of(issue)
        if (not since or c.updated_at.timestamp() >= since) and (not before or c.updated_at.timestamp() <= before)
    ]
    return counted(comments, call.view.comment)


def list_timeline(call: Call) -> Response:
    repo = assign_repo(call)
    before, since = before_since(call)
    issue = find_issue(call, repo, missing=call.profile.missing_issue_comments_status)
    rows = [
        row
        for row in call.store.timeline_of(issue)
        if (not since or row.updated_at.timestamp() >= since) and (not before or row.updated_at.timestamp() <= before)
    ]
    if call.q_int("page") > 0:
        rows = page_of(rows, *list_options(call))
    shown = [call.view.timeline_entry(issue, row) for row in rows if row.kind != "code"]
    response = json_response(shown or None)
    response.expose("X-Total-Count", str(len(shown)))
    return response


def create_comment(call: Call) -> Response:
    repo = assign_repo(call)
    doer = call.require_token()
    form = bind(call, "CreateIssueCommentOption", {"body": "string"})
    if not form.get("body"):
        raise ApiError(422, "[Body]: Required")
    issue = find_issue(call, repo, missing=call.profile.missing_issue_comments_status)
    if issue.is_locked and not can_write(call, repo):
        raise ApiError(403, LOCKED)
    comment = call.store.add_comment(issue, form["body"], doer.login)
    return json_response(call.view.comment(comment), 201)
