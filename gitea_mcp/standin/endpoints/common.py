"""The rules several endpoints share: finding the repository and the issue, user and state parameters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar
from urllib.parse import quote

from gitea_mcp.standin.core import ApiError, Call, NotFound, Redirect, before_since
from gitea_mcp.standin.keyword import go_int
from gitea_mcp.standin.store import WRITE, Issue, IssueFilter, Repo

T = TypeVar("T")


def assign_repo(call: Call, category: str = "issue") -> Repo:
    """Gitea's repoAssignment: case-insensitive names, a redirect for a renamed repository, 404 when invisible."""
    owner, name = call.args["owner"], call.args["repo"]
    repo = call.store.find_repo(owner, name)
    if repo is None:
        renamed = call.store.user_redirects.get(owner.lower()) if call.store.user(owner) is None else None
        if renamed is not None:  # Gitea's RedirectToUser: the first occurrence of the old name, always 307
            raise Redirect(_with_query(call, call.req.raw_path.replace(quote(owner, safe=""), renamed, 1)), 307)
        moved = call.store.redirect_of(owner, name)
        if moved is None or (call.profile.redirect_needs_access and call.store.access_mode(moved, call.login) == 0):
            raise NotFound()
        raise Redirect(_moved(call, owner, name, moved))
    if call.store.access_mode(repo, call.login) == 0:
        raise NotFound()  # a private repository is invisible, not forbidden
    if call.token and call.token.public_only and repo.private:
        raise ApiError(403, f"token scope is limited to public {'issues' if category == 'issue' else 'repos'}")
    return repo


def _moved(call: Call, owner: str, name: str, repo: Repo) -> str:
    # Gitea swaps owner/name inside the escaped path and keeps the rest of the path and the query.
    old, new = f"{quote(owner, safe='')}/{quote(name, safe='')}", f"{repo.owner}/{repo.name}"
    return _with_query(call, call.req.raw_path.replace(old, new, 1))


def _with_query(call: Call, location: str) -> str:
    return f"{location}?{call.req.raw_query}" if call.req.raw_query else location


def can_write(call: Call, repo: Repo) -> bool:
    return call.store.access_mode(repo, call.login) >= WRITE


def find_issue(call: Call, repo: Repo, missing: int = 404) -> Issue:
    """The issue `{index}` names; `missing` is the status for none (500 is Gitea's blank internal error)."""
    text = call.args["index"]
    number = int(text) if text.isdigit() else 0  # Go's PathParamInt64: 0 when it does not parse
    issue = next((i for i in call.store.issues_of(repo) if i.number == number), None)
    if issue is None:
        raise NotFound() if missing == 404 else ApiError(missing, "")
    return issue


def user_filter(call: Call, name: str) -> str | None:
    """A username parameter; Gitea answers 404 for an unknown user, naming it in `errors`."""
    login = call.q(name)
    if not login:
        return None
    user = call.store.user(login)
    if user is None:
        raise NotFound(f"user does not exist [uid: 0, name: {login}]")
    return user.login


def state_filter(value: str) -> bool | None:
    """open (default), closed, all; anything else is treated as open."""
    return {"closed": True, "all": None}.get(value, False)


def type_filter(value: str) -> bool | None:
    return {"pulls": True, "issues": False}.get(value)


def keyword(call: Call) -> str:
    text = call.q("q").strip()
    return "" if "\x00" in text else text


def issue_filter(call: Call, repo_ids: set[int]) -> IssueFilter:
    """What both issue lists share: state, type, keyword (matched as this release's indexer does), times."""
    where = IssueFilter(repo_ids, state_filter(call.q("state")), type_filter(call.q("type")), keyword(call))
    where.updated_before, where.updated_after = before_since(call)
    where.keyword_mode = call.profile.keyword_mode
    where.keyword_matches_number = call.profile.keyword_matches_number
    where.index_has_assignees = not call.profile.keyword_ignores_assignee
    if call.profile.numeric_keyword_from_db and go_int(where.keyword) is not None:
        # Gitea 1.23+ answers a numeric keyword from the database, whatever the indexer (indexer.SearchIssues).
        where.keyword_mode, where.index_has_assignees, where.from_database = "substring", True, True
    return where


def dedupe(items: Iterable[T]) -> list[T]:
    return list(dict.fromkeys(items))


def split(text: str) -> list[str]:
    return text.split(",") if text else []
