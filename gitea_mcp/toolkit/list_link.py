"""A pasted issue list page, as the exact filter its web page applies — or a refusal naming what the API cannot say.

The web list reads these parameters (Gitea 1.22–1.25 and Forgejo 11–12, `routers/web/repo/issue*.go`), each by
its first value: `state`, `type`, `labels` (ids, all must match), `milestone` (an id), `poster` (a user id; from
Gitea 1.23 also a username), `assignee` (a user id), `q`, `page` and `sort`. The API filters by names, so label
and user ids are looked up first. A page shows 20 issues (the default `[ui] ISSUE_PAGING_NUM`), newest first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.issue_filter import IssueFilter, State
from gitea_mcp.domain.links import MAX_ID, ListLink, bounded
from gitea_mcp.gitea.catalog import now
from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.gitea.models import UserSearch
from gitea_mcp.redaction import shown
from gitea_mcp.toolkit import render
from gitea_mcp.toolkit.arguments import MAX_PAGE
from gitea_mcp.toolkit.base import Deps

WEB_PAGE_SIZE = 20
READ = frozenset({"state", "type", "labels", "milestone", "poster", "assignee", "q", "page", "sort"})
# Parameters that change only the page's chrome (which labels the filter menu lists), never its rows.
CHROME = frozenset({"archived_labels"})
_MINE = ("created_by", "assigned", "mentioned")
# Every other `type` the web list knows means "all"; these two need review flags the repository list lacks.
_REVIEWS = ("review_requested", "reviewed_by")
# `sort` values with their own order; anything else is the default, newest first (models/issues applySorts).
_SORTS = {
    "oldest", "recentupdate", "recentclose", "leastupdate", "mostcomment", "leastcomment", "priority",
    "nearduedate", "farduedate", "priorityrepo", "project-column-sorting",
}  # fmt: skip


@dataclass(frozen=True)
class WebList:
    query: IssueFilter
    page: int
    state_given: bool  # without `state`, a page whose filter matches no open issue shows all states


def web_list(deps: Deps, link: ListLink) -> WebList:
    """The filter a list page applies; every refusal happens before any issue is requested."""
    params = link.params
    for key in params:
        if key not in READ | CHROME:
            raise ToolFailure(
                f"the link's {key}= has no equivalent in Gitea's API; remove it from the link to run the rest."
            )
    if params.get("sort", "") in _SORTS or params.get("sort", "").startswith("scope-"):
        raise ToolFailure(
            f"the link sorts by {shown(params['sort'])}, and Gitea's API lists newest first only; remove sort= "
            "from the link."
        )
    state: State = {"closed": "closed", "all": "all"}.get(params.get("state", ""), "open")  # type: ignore[assignment]
    query = IssueFilter(
        state=state,
        type="pulls" if link.pulls else "issues",
        labels=_label_names(deps, link),
        milestones=_milestone(params.get("milestone", "")),
        created_by=_user(deps, "poster", params.get("poster", ""), by_name=True),
        assigned_by=_user(deps, "assignee", params.get("assignee", ""), by_name=False),
        keywords=_keyword(params.get("q", "")),
    )
    page = bounded(f"page={shown(params['page'])}", params["page"], 1, MAX_PAGE) if params.get("page") else 1
    return WebList(_mine(deps, query, params.get("type", "")), page, bool(params.get("state")))


def _label_names(deps: Deps, link: ListLink) -> tuple[str, ...]:
    text = link.params.get("labels", "")
    if not text:
        return ()
    ids = [_number("labels", part) for part in text.split(",")]
    if any(i is None for i in ids):
        raise ToolFailure(f"labels={shown(text)} in the link is not a list of label ids.")
    if any(i is not None and i <= 0 for i in ids):
        raise ToolFailure(
            "the link excludes labels (-ID) or asks for issues without labels (0), which Gitea's API cannot filter; "
            "remove those from labels=."
        )
    # Label ids become the repository's own label names (an organisation's label, which the web page can filter by,
    # is found by name only: toolkit/repo_page.py); a miss is read afresh, the cache being up to a minute old.
    started = now()
    known = {x.id: x.name for x in deps.catalog.labels(deps.client, link.owner, link.name)}
    if any(i not in known for i in ids):
        known = {x.id: x.name for x in deps.catalog.labels(deps.client, link.owner, link.name, newer_than=started)}
    if missing := [str(i) for i in ids if i not in known]:
        names = {"owner": link.owner, "name": link.name}
        raise ToolFailure(
            f"label id {', '.join(missing)} is not a label of the repository {link.owner}/{link.name}; if it is an "
            f"organisation label, list by its name: issue_list {render.args_text(names)} labels=NAME."
        )
    return tuple(dict.fromkeys(known[i] for i in ids if i is not None))


def _milestone(text: str) -> tuple[str, ...]:
    number = _number("milestone", text)
    if number is not None and number < 0:
        raise ToolFailure("the link asks for issues without a milestone, which Gitea's API cannot filter.")
    return (str(number),) if number else ()


def _user(deps: Deps, key: str, text: str, by_name: bool) -> str | None:
    """The login a `poster`/`assignee` value names: a user id (every release), or a username (poster, Gitea 1.23+)."""
    if text in ("", "0"):
        return None
    number = _number(key, text)
    if number is None:
        if by_name:
            return text
        raise ToolFailure(f"{key}={shown(text)} in the link is not a user id; Gitea's API cannot filter by it.")
    if number < 0:
        raise ToolFailure(f"{key}={number} in the link (no one, or anyone) cannot be filtered through Gitea's API.")
    try:
        found = deps.client.get(["users", "search"], {"uid": number, "limit": 1}).one(UserSearch).data
    except GiteaError as exc:
        if isinstance(exc, NotFound):
            found = []
        else:
            raise
    if not found:
        raise ToolFailure(f"{key}={number} in the link is no user of this server.")
    return found[0].login


def _mine(deps: Deps, query: IssueFilter, kind: str) -> IssueFilter:
    """`type=assigned|created_by|mentioned` narrows to the signed-in user, as the web does for a signed-in visitor."""
    if kind in _REVIEWS:
        raise ToolFailure(f"the link's type={kind} needs review data Gitea's API list does not filter on.")
    if kind not in _MINE or not deps.client.has_token:
        return query
    me = deps.catalog.me(deps.client).login
    if kind == "created_by":
        return replace(query, created_by=me)
    if kind == "assigned":
        return replace(query, assigned_by=me)
    return replace(query, mentioned_by=me)


def _keyword(text: str) -> str:
    """Go's `strings.Trim(q, " ")`; a keyword holding a NUL byte is dropped whole, as the web page drops it."""
    return "" if "\x00" in text else text.strip(" ")


def _number(key: str, text: str) -> int | None:
    """An id, maybe negative (the web's "none"/"any"), or None for text that is no number at all (a username, or
    the caller's refusal); a number in any other digits, or beyond Gitea's int64 ids, is refused."""
    if not text.removeprefix("-").isnumeric():
        return None
    return bounded(f"{key}={shown(text)}", text, 1, MAX_ID, signed=True)
