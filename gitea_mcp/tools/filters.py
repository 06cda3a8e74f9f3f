"""Filters for a repository's issue list, checked so Gitea's silent traps cannot return wrong results.

Gitea drops label and milestone names it does not know and then returns the *unfiltered* list, and
answers 404 for an unknown user in created_by/assigned_by/mentioned_by — the same status as a missing
repository. Both are caught here, shared by issue_list and issue_search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gitea_mcp import dates
from gitea_mcp.errors import ToolFailure, shown
from gitea_mcp.gitea.client import ApiResponse
from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.gitea.models import Issue
from gitea_mcp.gitea.page import Page, page_of
from gitea_mcp.issue_filter import IssueFilter
from gitea_mcp.tools import missing
from gitea_mcp.tools.base import Deps


def check_places(deps: Deps, rows: list[Issue], owner: str, name: str | None) -> None:
    """Every row must come from where the call asked, and from an allowed owner (`Policy.check_rows`)."""
    deps.policy.check_rows([row.repository.full_name for row in rows if row.repository], owner, name)


def with_dates(query: IssueFilter) -> IssueFilter:
    """issue_list's since (at or after) and before (strictly before) as Gitea's inclusive whole seconds, by the one
    rule every tool shares (gitea_mcp/dates.py): `since=D before=E` is `updated:>=D updated:<E`. Refused clearly."""
    since = dates.bound(">=", query.since.strip(), f"since={shown(query.since)}") if query.since else None
    before = dates.bound("<", query.before.strip(), f"before={shown(query.before)}") if query.before else None
    if since is not None and before is not None and since > before:
        day = query.before.strip() if query.before else ""
        whole = f" (to include {day}, write before={dates.next_day(day)})" if dates.is_day(day) else ""
        raise ToolFailure(
            f"since={shown(query.since)} and before={shown(query.before)} leave an empty time range: before is "
            f"exclusive, it ends where its day or time begins{whole}. Check the dates."
        )
    return replace(
        query,
        since=None if since is None else dates.rfc3339(since),
        before=None if before is None else dates.rfc3339(before),
    )


def repo_page(deps: Deps, owner: str, name: str, query: IssueFilter, page: int, limit: int) -> Page[Issue]:
    """One page of a repository's issues, label and milestone names checked in the same round trip, every row
    checked to come from there."""
    served = page_of(_fetch_issues(deps, owner, name, query, page, limit), Issue, limit, page)
    check_places(deps, served.rows, owner, name)
    return served


def _fetch_issues(deps: Deps, owner: str, name: str, query: IssueFilter, page: int, limit: int) -> ApiResponse:
    checks: list[Callable[[], object]] = []
    if query.labels:
        checks.append(lambda: check_labels(deps, owner, name, list(query.labels)))
    if query.milestones:
        checks.append(lambda: check_milestones(deps, owner, name, list(query.milestones)))

    def fetch() -> ApiResponse:
        return deps.client.get(["repos", owner, name, "issues"], {**query.list_params(), "page": page, "limit": limit})

    try:
        # Checks first in the result order so an unknown name wins over whatever the list returned.
        *_, response = deps.client.parallel(*checks, fetch)
        assert isinstance(response, ApiResponse)
    except GiteaError as exc:
        if isinstance(exc, NotFound):
            raise missing.explain_list_404(deps, owner, name, exc, query.users()) from None
        raise
    return response


def check_labels(deps: Deps, owner: str, name: str, wanted: list[str]) -> None:
    known = [label.name for label in deps.catalog.labels(deps.client, owner, name)]
    unknown = [label for label in wanted if label not in known]
    if unknown:
        raise ToolFailure(
            f"label {', '.join(repr(u) for u in unknown)} does not exist in {owner}/{name} "
            f"(Gitea would ignore it and list everything). Labels there: {_names(known)}."
        )


def check_milestones(deps: Deps, owner: str, name: str, wanted: list[str]) -> None:
    milestones = deps.catalog.milestones(deps.client, owner, name)
    known = {m.title for m in milestones} | {str(m.id) for m in milestones}
    unknown = [m for m in wanted if m not in known]
    if unknown:
        titles = [m.title for m in milestones]
        raise ToolFailure(
            f"milestone {', '.join(repr(u) for u in unknown)} does not exist in {owner}/{name} "
            f"(Gitea would ignore it). Milestones there: {_names(titles)}."
        )


def _names(names: list[str]) -> str:
    if not names:
        return "(none)"
    shown = ", ".join(repr(n) for n in sorted(names)[:40])
    return shown + (f" and {len(names) - 40} more" if len(names) > 40 else "")
