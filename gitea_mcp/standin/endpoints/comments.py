"""An issue's comments: listed whole (no paging, with X-Total-Count) and added one at a time.

A missing issue is a blank 500 on Gitea (its handlers treat the lookup failure as internal) and 404 on
Forgejo from 11; a locked issue takes comments only from those who may write to the repository.
"""

from __future__ import annotations

from gitea_mcp.standin.core import ApiError, Call, Response, before_since, bind, counted, json_response
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
