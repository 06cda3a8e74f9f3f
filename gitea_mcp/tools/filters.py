"""Filters for a repository's issue list, checked so Gitea's silent traps cannot return wrong results.

Gitea drops label and milestone names it does not know and then returns the *unfiltered* list, and
answers 404 for an unknown user in created_by/assigned_by/mentioned_by — the same status as a missing
repository. Both are caught here, shared by issue_list and issue_search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gitea_mcp.errors import ToolFailure
from gitea_mcp.gitea.client import ApiResponse
from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.gitea.models import Issue
from gitea_mcp.gitea.page import Page, page_of
from gitea_mcp.issue_filter import IssueFilter
from gitea_mcp.tools import missing
from gitea_mcp.tools.base import Deps, rfc3339


def check_places(deps: Deps, rows: list[Issue], owner: str, name: str | None) -> None:
    """Every row must come from where the call asked, and from an allowed owner (`Policy.check_rows`)."""
    deps.policy.check_rows([row.repository.full_name for row in rows if row.repository], owner, name)


def with_dates(query: IssueFilter) -> IssueFilter:
    """since/before as the RFC 3339 Gitea insists on (422 otherwise), or refused clearly."""
    since = rfc3339(query.since, "since") if query.since else None
    before = rfc3339(query.before, "before") if query.before else None
    return replace(query, since=since, before=before)


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
