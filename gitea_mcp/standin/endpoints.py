"""The endpoints the stand-in serves, each with the rules of Gitea's handler (see SEMANTICS.md).

ROUTES lists them with the token scope category Gitea checks and the query parameters each reads;
the tests hold every one of those parameters to the OpenAPI spec.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from gitea_mcp.standin.core import (
    DEFAULT_PAGING_NUM,
    MAX_RESPONSE_ITEMS,
    ApiError,
    Call,
    Redirect,
    Response,
    before_since,
    bind,
    counted,
    json_response,
    list_options,
    paged,
)
from gitea_mcp.standin.gotime import parse_rfc3339
from gitea_mcp.standin.store import WRITE, Issue, IssueFilter, Label, Repo, User, utcnow

GITEA_VERSION = "1.26.1"
NOT_FOUND = "not found"

# -- shared rules ---------------------------------------------------------------------------------


def assign_repo(call: Call, category: str = "issue") -> Repo:
    """Gitea's repoAssignment: case-insensitive names, 307 for a renamed repository, 404 when invisible."""
    owner, name = call.args["owner"], call.args["repo"]
    repo = call.store.find_repo(owner, name)
    if repo is None:
        moved = call.store.redirect_of(owner, name)
        if moved is None:
            raise ApiError(404, NOT_FOUND)
        raise Redirect(_moved(call, owner, name, moved))
    if call.store.access_mode(repo, call.login) == 0:
        raise ApiError(404, NOT_FOUND)  # a private repository is invisible, not forbidden
    if call.token and call.token.public_only and repo.private:
        raise ApiError(403, f"token scope is limited to public {'issues' if category == 'issue' else 'repos'}")
    return repo


def _moved(call: Call, owner: str, name: str, repo: Repo) -> str:
    # Gitea swaps owner/name inside the escaped path and keeps the rest of the path and the query.
    old, new = f"{quote(owner, safe='')}/{quote(name, safe='')}", f"{repo.owner}/{repo.name}"
    location = call.req.raw_path.replace(old, new, 1)
    return f"{location}?{call.req.raw_query}" if call.req.raw_query else location


def can_write(call: Call, repo: Repo) -> bool:
    return call.store.access_mode(repo, call.login) >= WRITE


def find_issue(call: Call, repo: Repo, status: int = 404) -> Issue:
    text = call.args["index"]
    number = int(text) if text.isdigit() else 0  # Go's PathParamInt64: 0 when it does not parse
    issue = next((i for i in call.store.issues_of(repo) if i.number == number), None)
    if issue is None:
        raise ApiError(status, NOT_FOUND if status == 404 else "")
    return issue


def user_filter(call: Call, name: str) -> str | None:
    """A username parameter; Gitea answers 404 for an unknown user."""
    login = call.q(name)
    if not login:
        return None
    user = call.store.user(login)
    if user is None:
        raise ApiError(404, f"user does not exist [uid: 0, name: {login}]")
    return user.login


def state_filter(value: str) -> bool | None:
    """open (default), closed, all; anything else is treated as open."""
    return {"closed": True, "all": None}.get(value, False)


def type_filter(value: str) -> bool | None:
    return {"pulls": True, "issues": False}.get(value)


def keyword(call: Call) -> str:
    text = call.q("q").strip()
    return "" if "\x00" in text else text


def touch(issue: Issue) -> None:
    issue.updated_at = utcnow()
    issue.written_at = time.monotonic()


def _dedupe(ids: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(ids))


def _split(text: str) -> list[str]:
    return text.split(",") if text else []


# -- misc, users, organisations -----------------------------------------------------------------------


def get_version(call: Call) -> Response:
    return json_response({"version": GITEA_VERSION})


def get_api_settings(call: Call) -> Response:
    return json_response(
        {
            "max_response_items": MAX_RESPONSE_ITEMS,
            "default_paging_num": DEFAULT_PAGING_NUM,
            "default_git_trees_per_page": 1000,
            "default_max_blob_size": 10485760,
            "default_max_response_size": 104857600,
        }
    )


def get_me(call: Call) -> Response:
    return json_response(call.view.user(call.require_token()))


def get_user(call: Call) -> Response:
    user = call.store.user(call.args["username"])
    if user is None:
        raise ApiError(404, f"user redirect does not exist [name: {call.args['username']}]")
    return json_response(call.view.user(user))


def _org(call: Call) -> User:
    org = call.store.user(call.args["org"])
    if org is None or not org.is_org:
        raise ApiError(404, NOT_FOUND)
    return org


def get_org(call: Call) -> Response:
    return json_response(call.view.org(_org(call)))


def list_org_labels(call: Call) -> Response:
    return counted(_by_name(call.store.org_labels(_org(call).login)), call.view.label, *list_options(call))


# -- repositories, labels, milestones ----------------------------------------------------------------


def get_repo(call: Call) -> Response:
    return json_response(call.view.repo(assign_repo(call, "repository")))


def list_repo_labels(call: Call) -> Response:
    return counted(_by_name(call.store.repo_labels(assign_repo(call))), call.view.label, *list_options(call))


def _by_name(labels: list[Label]) -> list[Label]:
    """Gitea lists labels by name (byte order) unless told otherwise."""
    return sorted(labels, key=lambda x: x.name.encode())


def list_milestones(call: Call) -> Response:
    repo = assign_repo(call)
    state = state_filter(call.q("state"))
    name = call.q("name").upper()  # Gitea: UPPER(name) LIKE %NAME%
    found = [
        m
        for m in call.store.repo_milestones(repo)
        if (state is None or (m.state == "closed") == state) and name in m.title.upper()
    ]
    # Gitea's default order: due date ascending (none counts as the far future), then id.
    found.sort(key=lambda m: (m.due_on.timestamp() if m.due_on else float("inf"), m.id))
    return counted(found, call.view.milestone, *list_options(call))


# -- issue lists ---------------------------------------------------------------------------------------


def list_issues(call: Call) -> Response:
    repo = assign_repo(call)
    before, since = before_since(call)
    where = IssueFilter({repo.id}, state_filter(call.q("state")), keyword=keyword(call))
    where.updated_before, where.updated_after = before, since
    # Label names of this repository only, all of them required; unknown names are dropped silently.
    names = {x.name: x.id for x in call.store.repo_labels(repo)}
    where.all_label_ids = _dedupe(names[n] for n in call.q("labels").split(",") if n in names)
    where.milestone_ids = _milestone_ids(call, repo, call.q("milestones"))
    page, limit = list_options(call)
    where.is_pull = type_filter(call.q("type"))
    where.poster = user_filter(call, "created_by")
    where.assignee = user_filter(call, "assigned_by")
    where.mentioned = user_filter(call, "mentioned_by")
    return paged(call, call.store.search(where), page, limit, call.view.issue)


def _milestone_ids(call: Call, repo: Repo, text: str) -> list[int]:
    """Names first, then ids; unknown ones dropped."""
    milestones = call.store.repo_milestones(repo)
    found: list[int] = []
    for part in text.split(","):
        match = next((m for m in milestones if m.title == part), None)
        if match is None and part.lstrip("-").isdigit():
            match = next((m for m in milestones if m.id == int(part)), None)
        if match is not None:
            found.append(match.id)
    return _dedupe(found)


def search_issues(call: Call) -> Response:
    before, since = before_since(call)
    where = IssueFilter(_search_repos(call), state_filter(call.q("state")), keyword=keyword(call))
    where.updated_before, where.updated_after = before, since
    where.is_pull = type_filter(call.q("type"))
    # Names of any repository's or organisation's labels, any one of them suffices.
    label_names = _split(call.q("labels").strip())
    where.any_label_ids = [x.id for x in call.store.labels.values() if x.name in label_names]
    milestone_names = _split(call.q("milestones").strip())
    where.milestone_ids = [m.id for m in call.store.milestones.values() if m.title in milestone_names]
    limit = _search_limit(call.q_int("limit"), where.keyword)
    where.poster = user_filter(call, "created_by")
    _mine(call, where)
    return paged(call, call.store.search(where), max(call.q_int("page"), 1), limit, call.view.issue)


def _search_limit(limit: int, text: str) -> int:
    # 0 becomes 30; only a keyword search clamps to MAX_RESPONSE_ITEMS; a negative limit means no limit.
    if limit == 0:
        return DEFAULT_PAGING_NUM
    return min(limit, MAX_RESPONSE_ITEMS) if text else limit


def _mine(call: Call, where: IssueFilter) -> None:
    """assigned/created/mentioned/review_requested/reviewed: about the token's user, ignored anonymously."""
    if call.login is None:
        return
    if call.q_bool("created"):
        where.poster = call.login
    if call.q_bool("assigned"):
        where.assignee = call.login
    if call.q_bool("mentioned"):
        where.mentioned = call.login
    if call.q_bool("review_requested"):
        where.review_requested = call.login
    if call.q_bool("reviewed"):
        where.reviewed = call.login


def _search_repos(call: Call) -> set[int]:
    """The repositories the caller can see, narrowed by `owner` and `team` (both answer 400 when unknown)."""
    public_only = bool(call.token and call.token.public_only)
    repos = [
        r
        for r in call.store.repos.values()
        if call.store.access_mode(r, call.login) and not (public_only and r.private)
    ]
    owner_name, team_name = call.q("owner"), call.q("team")
    owner = call.store.user(owner_name) if owner_name else None
    if owner_name and owner is None:
        raise ApiError(400, f"user does not exist [uid: 0, name: {owner_name}]")
    if owner is not None:
        repos = [r for r in repos if r.owner.lower() == owner.login.lower()]
    if team_name:
        if owner is None:
            raise ApiError(400, "Owner organisation is required for filtering on team")
        team = call.store.find_team(owner.login, team_name)
        if team is None:
            raise ApiError(400, f"team does not exist [org_id {owner.id}, team_id 0, name: {team_name}]")
        repos = [r for r in repos if r.id in team.repo_ids]
    return {r.id for r in repos}


# -- one issue -------------------------------------------------------------------------------------------


def get_issue(call: Call) -> Response:
    repo = assign_repo(call)
    return json_response(call.view.issue(find_issue(call, repo)))


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
    if len(title) > 255:
        raise ApiError(422, "[Title]: MaxSize")
    issue = call.store.add_issue(repo.owner, repo.name, title, form.get("body") or "", poster=doer.login)
    try:
        _create_extras(call, repo, issue, form)
    except ApiError:
        _forget(call, repo, issue)  # Gitea validates before it inserts
        raise
    if form.get("closed"):
        issue.state, issue.closed_at = "closed", issue.created_at
    return json_response(call.view.issue(issue), 201)


def _create_extras(call: Call, repo: Repo, issue: Issue, form: dict[str, Any]) -> None:
    """Labels, milestone, assignees and due date; silently dropped for a caller without write access."""
    issue.ref = form.get("ref") or ""
    if not can_write(call, repo):
        return
    single = [form["assignee"]] if form.get("assignee") else []
    issue.assignees = _assignable(call, repo, _dedupe_names(single + (form.get("assignees") or [])))
    usable = {x.id for x in call.store.usable_labels(repo)}
    for label_id in form.get("labels") or []:
        if label_id not in usable:
            raise ApiError(400, f"label does not exist [label_id: {label_id}]")
    issue.label_ids = _dedupe(form.get("labels") or [])
    milestone = call.store.milestones.get(form.get("milestone") or 0)
    issue.milestone_id = milestone.id if milestone and milestone.repo_id == repo.id else 0  # unknown: dropped
    if form.get("due_date"):
        issue.due_date = parse_rfc3339(form["due_date"])


def _dedupe_names(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


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


def _forget(call: Call, repo: Repo, issue: Issue) -> None:
    del call.store.issues[issue.id]
    call.store.comments.pop(issue.id, None)
    repo.next_index -= 1


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
    before = (issue.title, issue.body, issue.ref, issue.due_date, list(issue.assignees), issue.milestone_id)
    _edit_text(issue, form)
    if writer:
        _edit_due_date(issue, form)
        _edit_assignees(call, repo, issue, form)
        _edit_milestone(call, repo, issue, form)
    changed = before != (issue.title, issue.body, issue.ref, issue.due_date, issue.assignees, issue.milestone_id)
    if form.get("state") is not None:
        changed = _edit_state(issue, form["state"]) or changed
    if changed:
        touch(issue)
    return json_response(call.view.issue(issue), 201)


def _edit_text(issue: Issue, form: dict[str, Any]) -> None:
    if form.get("title"):
        issue.title = form["title"]
    if form.get("body") is not None:
        version = form.get("content_version")
        if version is not None and version != issue.content_version:
            raise ApiError(409, "the issue is already changed")
        if form["body"] != issue.body:
            issue.body = form["body"]
            issue.content_version += 1
    if form.get("ref") is not None:
        issue.ref = form["ref"]


def _edit_due_date(issue: Issue, form: dict[str, Any]) -> None:
    if form.get("due_date") is None and form.get("unset_due_date") is None:
        return
    if form.get("unset_due_date"):
        issue.due_date = None
        return
    if form.get("due_date") is None:
        raise ApiError(400, "The due_date cannot be empty")
    # Only the date counts: Gitea stores the end of that day in the given zone.
    due = parse_rfc3339(form["due_date"])
    issue.due_date = datetime(due.year, due.month, due.day, 23, 59, 59, tzinfo=due.tzinfo)


def _edit_assignees(call: Call, repo: Repo, issue: Issue, form: dict[str, Any]) -> None:
    if form.get("assignees") is None and form.get("assignee") is None:
        return
    names = _dedupe_names(([form["assignee"]] if form.get("assignee") else []) + (form.get("assignees") or []))
    try:
        issue.assignees = _assignable(call, repo, names)
    except ApiError:
        raise ApiError(500, "") from None  # Gitea's EditIssue turns these into a blank 500


def _edit_milestone(call: Call, repo: Repo, issue: Issue, form: dict[str, Any]) -> None:
    wanted = form.get("milestone")
    if wanted is None or wanted == issue.milestone_id:
        return
    milestone = call.store.milestones.get(wanted)
    if wanted and (milestone is None or milestone.repo_id != repo.id):
        raise ApiError(500, "")  # an unknown milestone id fails inside Gitea: blank 500
    issue.milestone_id = wanted


def _edit_state(issue: Issue, state: str) -> bool:
    if issue.pull and issue.pull.merged:
        raise ApiError(412, "cannot change state of this pull request, it was already merged")
    if state not in ("open", "closed"):
        raise ApiError(412, f"unknown state: {state}")
    if state == issue.state:
        return False
    issue.state = state
    issue.closed_at = utcnow() if state == "closed" else None
    return True


# -- comments ----------------------------------------------------------------------------------------


def list_comments(call: Call) -> Response:
    repo = assign_repo(call)
    before, since = before_since(call)
    issue = find_issue(call, repo, status=500)  # Gitea answers 500 (blank message) for a missing issue
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
    issue = find_issue(call, repo)
    comment = call.store.add_comment(issue, form["body"], doer.login)
    return json_response(call.view.comment(comment), 201)


# -- an issue's labels ---------------------------------------------------------------------------------


def get_issue_labels(call: Call) -> Response:
    issue = find_issue(call, assign_repo(call))
    return json_response(_issue_labels(call, issue))


def add_issue_labels(call: Call) -> Response:
    return _write_labels(call, replace=False)


def replace_issue_labels(call: Call) -> Response:
    return _write_labels(call, replace=True)


def _write_labels(call: Call, replace: bool) -> Response:
    repo = assign_repo(call)
    call.require_token()
    form = bind(call, "IssueLabelsOption", {"labels": "[]any"})
    issue = find_issue(call, repo)
    wanted = _label_ids(call, repo, form.get("labels") or [])
    if not can_write(call, repo):
        raise ApiError(403, None)
    labels = wanted if replace else issue.label_ids + [x for x in wanted if x not in issue.label_ids]
    if labels != issue.label_ids:
        issue.label_ids = labels
        touch(issue)
    return json_response(_issue_labels(call, issue))


def _label_ids(call: Call, repo: Repo, items: list[Any]) -> list[int]:
    """Integers are ids, strings are names (the repository's, then its organisation's); unknown ones dropped."""
    usable = call.store.usable_labels(repo)
    found: list[int] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | float | str):
            raise ApiError(400, "a label must be an integer or a string")
        if isinstance(item, str):
            found += [x.id for x in usable if x.name == item][:1]
        else:
            found += [x.id for x in usable if x.id == item]
    return _dedupe(found)


def _issue_labels(call: Call, issue: Issue) -> list[Any]:
    return [call.view.label(call.store.labels[x]) for x in issue.label_ids if x in call.store.labels]


def clear_issue_labels(call: Call) -> Response:
    repo = assign_repo(call)
    call.require_token()
    issue = find_issue(call, repo)
    if not can_write(call, repo):
        raise ApiError(403, None)
    if issue.label_ids:
        issue.label_ids = []
        touch(issue)
    return Response(204)


def delete_issue_label(call: Call) -> Response:
    repo = assign_repo(call)
    call.require_token()
    issue = find_issue(call, repo)
    if not can_write(call, repo):
        raise ApiError(403, None)
    text = call.args["id"]
    label_id = int(text) if text.isdigit() else 0
    if label_id not in {x.id for x in call.store.usable_labels(repo)}:
        raise ApiError(422, f"label does not exist [label_id: {label_id}]")
    if label_id in issue.label_ids:
        issue.label_ids.remove(label_id)
        touch(issue)
    return Response(204)


# -- the route table ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # the spec's path template, under /api/v1
    scope: str | None  # the token scope category Gitea requires (read for GET, write otherwise)
    params: frozenset[str]  # the query parameters the endpoint reads
    handler: Callable[[Call], Response]


def _route(method: str, template: str, scope: str | None, handler: Callable[[Call], Response], *params: str) -> Route:
    return Route(method, template, scope, frozenset(params), handler)


_PAGE = ("page", "limit")
_LIST = ("state", "labels", "q", "type", "milestones", "since", "before", "created_by", "assigned_by", "mentioned_by")
_SEARCH = ("state", "labels", "milestones", "q", "type", "since", "before", "assigned", "created", "mentioned")
_SEARCH_MORE = ("review_requested", "reviewed", "owner", "team", "created_by")
_REPO = "/repos/{owner}/{repo}"
_ISSUE = _REPO + "/issues/{index}"

ROUTES: tuple[Route, ...] = (
    _route("GET", "/version", None, get_version),
    _route("GET", "/settings/api", None, get_api_settings),
    _route("GET", "/user", "user", get_me),
    _route("GET", "/users/{username}", "user", get_user),
    _route("GET", "/orgs/{org}", "organization", get_org),
    _route("GET", "/orgs/{org}/labels", "organization", list_org_labels, *_PAGE),
    # Before /repos/{owner}/{repo}, which would otherwise read this as owner "issues", repository "search".
    _route("GET", "/repos/issues/search", "issue", search_issues, *_SEARCH, *_SEARCH_MORE, *_PAGE),
    _route("GET", _REPO, "repository", get_repo),
    _route("GET", _REPO + "/issues", "issue", list_issues, *_LIST, *_PAGE),
    _route("POST", _REPO + "/issues", "issue", create_issue),
    _route("GET", _ISSUE, "issue", get_issue),
    _route("PATCH", _ISSUE, "issue", edit_issue),
    _route("GET", _ISSUE + "/comments", "issue", list_comments, "since", "before"),
    _route("POST", _ISSUE + "/comments", "issue", create_comment),
    _route("GET", _ISSUE + "/labels", "issue", get_issue_labels),
    _route("POST", _ISSUE + "/labels", "issue", add_issue_labels),
    _route("PUT", _ISSUE + "/labels", "issue", replace_issue_labels),
    _route("DELETE", _ISSUE + "/labels", "issue", clear_issue_labels),
    _route("DELETE", _ISSUE + "/labels/{id}", "issue", delete_issue_label),
    _route("GET", _REPO + "/labels", "issue", list_repo_labels, *_PAGE),
    _route("GET", _REPO + "/milestones", "issue", list_milestones, "state", "name", *_PAGE),
)
