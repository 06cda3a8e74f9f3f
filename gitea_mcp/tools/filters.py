"""Filters for a repository's issue list, checked so Gitea's silent traps cannot return wrong results.

Gitea drops label and milestone names it does not know and then returns the *unfiltered* list, and
answers 404 for an unknown user in created_by/assigned_by/mentioned_by — the same status as a missing
repository. Both are caught here, shared by issue_list and issue_search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gitea_mcp.errors import ToolFailure
from gitea_mcp.gitea.client import ApiResponse
from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.tools import missing
from gitea_mcp.tools.base import Deps, rfc3339

_USER_FILTERS = ("created_by", "assigned_by", "mentioned_by")


@dataclass(frozen=True)
class RepoQuery:
    state: str = "open"
    type: str = "issues"  # issues | pulls | all
    labels: list[str] = field(default_factory=list)
    milestones: list[str] = field(default_factory=list)
    since: str | None = None
    before: str | None = None
    created_by: str | None = None
    assigned_by: str | None = None
    mentioned_by: str | None = None
    q: str | None = None

    def users(self) -> dict[str, str]:
        return {key: value for key in _USER_FILTERS if (value := getattr(self, key))}

    def _filters(self) -> dict[str, str]:
        """The filters that are set, each spelled as Gitea and issue_list both spell it (lists comma-joined)."""
        joined = {"labels": ",".join(self.labels), "milestones": ",".join(self.milestones)}
        single = {key: getattr(self, key) for key in ("since", "before", *_USER_FILTERS)}
        return {key: value for key, value in {**joined, **single}.items() if value}

    def call_args(self) -> dict[str, object]:
        """The non-default arguments, spelled as a call to issue_list (for next-page hints)."""
        args: dict[str, object] = {}
        if self.state != "open":
            args["state"] = self.state
        if self.type != "issues":
            args["type"] = self.type
        return {**args, **self._filters()}

    def describe(self) -> str:
        shown = {"state": self.state, **{k: v for k, v in self.call_args().items() if k != "state"}}
        return " ".join(f"{key}={value}" for key, value in shown.items())

    def params(self) -> dict[str, str | int]:
        """Gitea's query parameters. type=all means: send no type, which is how Gitea mixes both."""
        params: dict[str, str | int] = {"state": self.state}
        if self.type != "all":
            params["type"] = self.type
        if self.q:
            params["q"] = self.q
        return {**params, **self._filters()}


def normalise_dates(query: RepoQuery) -> RepoQuery:
    """Turn since/before into the RFC 3339 Gitea insists on (422 otherwise), or refuse them clearly."""
    since = rfc3339(query.since, "since") if query.since else None
    before = rfc3339(query.before, "before") if query.before else None
    return RepoQuery(**{**query.__dict__, "since": since, "before": before})


def fetch_issues(deps: Deps, owner: str, name: str, query: RepoQuery, page: int, limit: int) -> ApiResponse:
    """One page of issues, with label and milestone names checked in the same round trip."""
    query = normalise_dates(query)
    checks: list[Callable[[], object]] = []
    if query.labels:
        checks.append(lambda: check_labels(deps, owner, name, query.labels))
    if query.milestones:
        checks.append(lambda: check_milestones(deps, owner, name, query.milestones))

    def fetch() -> ApiResponse:
        return deps.client.get(["repos", owner, name, "issues"], {**query.params(), "page": page, "limit": limit})

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
