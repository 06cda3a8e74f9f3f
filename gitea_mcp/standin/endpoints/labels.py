"""An issue's labels: list, add (POST), replace (PUT), clear, remove one; and a repository's new label.

Labels come as ids or as names (all of one kind); unknown ones are dropped. Exclusive scopes hold: adding a
label replaces the issue's label of its scope, and a replacement keeps one label per scope, the last by name
(Gitea handles the given labels sorted by name). Creating an issue does not enforce this.
"""

from __future__ import annotations

import re
from typing import Any

from gitea_mcp.standin.core import ApiError, Call, Response, bind, json_response
from gitea_mcp.standin.endpoints.common import assign_repo, can_write, find_issue
from gitea_mcp.standin.render import by_name
from gitea_mcp.standin.store import Issue, Label, Repo

MIXED = "labels should be an array of strings or integers"
NOT_A_WRITER = "user should have a permission to write to a repo"
WRITE_REFUSED = "write permission is required"  # adding or replacing an issue's labels on Gitea (removing: a bare 403)
_COLOR = re.compile(r"#[0-9a-f]{3}(?:[0-9a-f]{3})?")
CREATE_LABEL_FIELDS = {
    "name": "string",
    "exclusive": "bool",
    "color": "string",
    "description": "string",
    "is_archived": "bool",
}


def create_repo_label(call: Call) -> Response:
    """Write access is checked before the body is read (`check` relies on it: a nameless label is 422 for a
    writer, 403 for anyone else); then Name and Color are required, in that order."""
    repo = assign_repo(call)
    call.require_token()
    if not can_write(call, repo):
        raise ApiError(403, NOT_A_WRITER)
    form = bind(call, "CreateLabelOption", CREATE_LABEL_FIELDS)
    for name in ("name", "color"):
        if not form.get(name):
            raise ApiError(422, f"[{name.title()}]: Required")
    color = form["color"].strip().lower()
    color = "#" + color if len(color) in (3, 6) else color
    if not _COLOR.fullmatch(color):
        raise ApiError(422, f"invalid color: {color}")
    if len(color) == 4:
        color = "#" + "".join(c * 2 for c in color[1:])
    label = call.store.add_label(repo, form["name"], color[1:], form.get("description") or "")
    label.exclusive, label.is_archived = bool(form.get("exclusive")), bool(form.get("is_archived"))
    return json_response(call.view.label(label), 201)


def get_issue_labels(call: Call) -> Response:
    issue = find_issue(call, assign_repo(call))
    return json_response(call.view.labels_of(issue))


def add_issue_labels(call: Call) -> Response:
    return _write_labels(call, replace=False)


def replace_issue_labels(call: Call) -> Response:
    return _write_labels(call, replace=True)


def _write_labels(call: Call, replace: bool) -> Response:
    repo = assign_repo(call)
    call.require_token()
    form = bind(call, "IssueLabelsOption", {"labels": "[]any"})
    issue = find_issue(call, repo)
    if not can_write(call, repo):  # Gitea's prepareForReplaceOrAdd: before the labels are looked at
        raise ApiError(403, WRITE_REFUSED if call.profile.label_write_refusal_is_worded else None)
    wanted = _wanted(call, repo, form.get("labels") or [])
    labels = _one_per_scope(wanted) if replace else _added(call, issue, wanted)
    if set(labels) != set(issue.label_ids):
        call.store.edit(issue, label_ids=labels)
        call.store.touch(issue)
    return json_response(call.view.labels_of(issue))


def _wanted(call: Call, repo: Repo, items: list[Any]) -> list[Label]:
    """The labels named by ids or by names (not both: 400); other JSON values are ignored, as Go's switch does."""
    ids = [int(x) for x in items if isinstance(x, int | float) and not isinstance(x, bool)]
    names = [x for x in items if isinstance(x, str)]
    if ids and names:
        raise ApiError(400, MIXED)
    if ids:
        found = [x for x in call.store.usable_labels(repo) if x.id in ids]
    else:
        pool = call.store.usable_labels(repo) if call.profile.org_labels_by_name else call.store.repo_labels(repo)
        found = [x for x in pool if x.name in names]
    return by_name(found)


def _one_per_scope(labels: list[Label]) -> list[int]:
    """Gitea's RemoveDuplicateExclusiveLabels: of several labels of one exclusive scope, only the last stays."""
    kept = [x for i, x in enumerate(labels) if not _scope_later(x, labels[i + 1 :])]
    return [x.id for x in kept]


def _scope_later(label: Label, later: list[Label]) -> bool:
    return bool(label.exclusive_scope) and any(x.exclusive_scope == label.exclusive_scope for x in later)


def _added(call: Call, issue: Issue, labels: list[Label]) -> list[int]:
    """Each new label in turn; one of an exclusive scope first removes the issue's label of that scope."""
    ids = list(issue.label_ids)
    for label in labels:
        if label.id in ids:
            continue
        if label.exclusive_scope:
            ids = [x for x in ids if _scope_of(call, x) != label.exclusive_scope]
        ids.append(label.id)
    return ids


def _scope_of(call: Call, label_id: int) -> str:
    label = call.store.label(label_id)
    return label.exclusive_scope if label else ""


def _labelled_by_writer(call: Call) -> tuple[Repo, Issue]:
    """The repository and issue whose labels a writer is changing: Gitea's checks in Gitea's order."""
    repo = assign_repo(call)
    call.require_token()
    issue = find_issue(call, repo)
    if not can_write(call, repo):
        raise ApiError(403, None)
    return repo, issue


def clear_issue_labels(call: Call) -> Response:
    _, issue = _labelled_by_writer(call)
    if issue.label_ids:
        call.store.edit(issue, label_ids=[])
        call.store.touch(issue)
    return Response(204)


def delete_issue_label(call: Call) -> Response:
    repo, issue = _labelled_by_writer(call)
    text = call.args["id"]
    label_id = int(text) if text.isdigit() else 0
    if label_id not in {x.id for x in call.store.usable_labels(repo)}:
        raise ApiError(422, f"label does not exist [label_id: {label_id}]")
    if label_id in issue.label_ids:
        call.store.edit(issue, label_ids=[x for x in issue.label_ids if x != label_id])
        call.store.touch(issue)
    return Response(204)
