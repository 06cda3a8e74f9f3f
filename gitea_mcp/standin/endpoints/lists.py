"""The two issue lists: a repository's (all-of labels of that repository) and the cross-repository search.

Both filter through the issue indexer (`Store.search`), newest created first, with X-Total-Count and Link.
"""

from __future__ import annotations

from gitea_mcp.standin.core import ApiError, Call, Response, list_options, paged
from gitea_mcp.standin.endpoints.common import assign_repo, dedupe, issue_filter, split, user_filter
from gitea_mcp.standin.store import IssueFilter, Repo

# -- a repository's issues ------------------------------------------------------------------------------


def list_issues(call: Call) -> Response:
    repo = assign_repo(call)
    where = issue_filter(call, {repo.id})
    # Label names of this repository only, all of them required; unknown names are dropped silently.
    names = {x.name: x.id for x in call.store.repo_labels(repo)}
    where.all_label_ids = dedupe(names[n] for n in call.q("labels").split(",") if n in names)
    where.milestone_ids = _milestone_ids(call, repo, call.q("milestones"))
    page, limit = list_options(call)
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
    return dedupe(found)


# -- the cross-repository search ------------------------------------------------------------------------


def search_issues(call: Call) -> Response:
    where = issue_filter(call, set())
    where.repo_ids = _search_repos(call)
    # Names of any repository's or organisation's labels, any one of them suffices.
    label_names = split(call.q("labels").strip())
    where.any_label_ids = [x.id for x in call.store.labels_named(label_names)]
    milestone_names = split(call.q("milestones").strip())
    where.milestone_ids = [m.id for m in call.store.milestones_titled(milestone_names)]
    limit = _search_limit(call, where.keyword)
    if call.profile.search_honours_created_by:
        where.poster = user_filter(call, "created_by")
    _mine(call, where)
    return paged(call, call.store.search(where), max(call.q_int("page"), 1), limit, call.view.issue)


def _search_limit(call: Call, text: str) -> int:
    """0 is the profile's default; a larger limit is clamped (from 1.26 only with a keyword); negative: no limit."""
    limit = call.q_int("limit")
    if limit == 0:
        return call.profile.search_default_limit
    if text or not call.profile.search_clamps_only_keywords:
        return min(limit, call.profile.max_response_items)
    return limit


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
        r for r in call.store.all_repos() if call.store.access_mode(r, call.login) and not (public_only and r.private)
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
