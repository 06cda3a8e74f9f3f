"""Filters for a repository's issue list, sent only in forms Gitea cannot drop silently.

Gitea's list splits `labels` and `milestones` on commas, resolves labels against the repository's own labels only
and milestones by title then id, and drops what it does not find: with every name dropped it filters nothing and
lists the whole repository (docs/server-behaviour.md). So, shared by issue_list and issue_search:
- every name is checked first; one the cached catalogue misses is read afresh once before it is refused;
- a name Gitea cannot take is made into what it can (a milestone whose title holds a comma: its id) or filtered
  here by id over a bounded scan (a label whose name holds a comma, an organisation's label; an organisation label
  holding a comma, which the search cannot look up, is found on the repository's own issues: `_seen_here`);
- every row Gitea serves must carry the filter by name: a name renamed or deleted within the catalogue's life
  would otherwise widen it. A row that does not carry it means the names are read afresh and the list asked again.
It also answers 404 for an unknown user in created_by/assigned_by/mentioned_by — the same status as a missing
repository (toolkit/missing.py tells them apart).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.invisible import scrub, scrubbed
from gitea_mcp.domain.issue_filter import IssueFilter
from gitea_mcp.gitea.catalog import fetch_all, fresh, milestone_named, now, rows_as
from gitea_mcp.gitea.client import ApiResponse, Segment
from gitea_mcp.gitea.errors import CatalogTooBig, NotFound
from gitea_mcp.gitea.models import Issue, Label
from gitea_mcp.gitea.page import Page, page_of
from gitea_mcp.toolkit import labels as label_names
from gitea_mcp.toolkit import missing
from gitea_mcp.toolkit.base import Deps

SCAN_ROWS = 500  # the most issues read to filter a label here; beyond it the call is refused


def check_places(deps: Deps, rows: list[Issue], owner: str, name: str | None) -> None:
    """Every row must come from where the call asked, and from an allowed owner (`Policy.check_rows`). Gitea names
    the repository on every row, of the search and of a repository's list alike (services/convert/issue.go; seen on
    1.25.4): a row without it comes from an upstream dropping fields, and its place cannot be checked."""
    if placeless := [row.number for row in rows if row.repository is None]:
        raise ToolFailure(
            f"Gitea answered with rows naming no repository ({', '.join(f'#{n}' for n in placeless[:5])}), so "
            f"where they come from cannot be checked against {owner}/{name or '*'}; nothing is shown. A proxy in "
            "front of Gitea may be dropping fields."
        )
    deps.policy.check_rows([row.repository.full_name for row in rows if row.repository], owner, name)


@dataclass(frozen=True)
class Sent:
    """The label and milestone filters as Gitea's list can take them, and the labels filtered here."""

    labels: tuple[str, ...] = ()  # repository labels, by name
    here: tuple[Label, ...] = ()  # labels Gitea's list cannot filter by: filtered here, by id
    titles: tuple[str, ...] = ()  # milestones by title
    ids: tuple[int, ...] = ()  # milestones by id (their title holds a comma)

    def params(self, asked: dict[str, str]) -> dict[str, str]:
        """The list's parameters as sent: `asked` (the filter's, `IssueFilter.list_params`) with the names resolved."""
        params = {k: v for k, v in asked.items() if k not in ("labels", "milestones")}
        if self.labels:
            params["labels"] = ",".join(self.labels)
        if self.titles or self.ids:
            params["milestones"] = ",".join([*self.titles, *map(str, self.ids)])
        return params

    def kept_by_gitea(self, issue: Issue) -> bool:
        """Whether a row carries what Gitea was asked to filter by: one that does not means Gitea dropped a name."""
        if not set(self.labels) <= {label.name for label in issue.labels}:
            return False
        if not (self.titles or self.ids):
            return True
        return issue.milestone is not None and (issue.milestone.title in self.titles or issue.milestone.id in self.ids)

    def kept_here(self, issue: Issue) -> bool:
        return {label.id for label in self.here} <= {label.id for label in issue.labels}


def repo_page(deps: Deps, owner: str, name: str, query: IssueFilter, page: int, limit: int) -> Page[Issue]:
    """One page of a repository's issues, label and milestone names checked in the same round trip, every row
    checked to come from there."""
    label_names.refuse_too_many(list(query.labels))
    asked = query.list_params()  # built once: every request for this page sends these, its names as resolved
    try:
        served = _served(deps, owner, name, query, asked, page, limit)
    except NotFound as exc:
        raise missing.explain_list_404(deps, owner, name, exc, query.users()) from None
    check_places(deps, served.rows, owner, name)
    return served


def _served(
    deps: Deps, owner: str, name: str, query: IssueFilter, asked: dict[str, str], page: int, limit: int
) -> Page[Issue]:
    newer_than: float | None = None  # the first round may take names from the cache
    for _ in range(2):
        sent, response = _first_round(deps, owner, name, query, asked, page, limit, newer_than)
        if sent.here:
            filtered = _filtered_here(deps, owner, name, asked, sent, page, limit)
            if filtered is not None:
                return filtered
        else:
            assert response is not None
            served = page_of(response, Issue, limit, page)
            if all(sent.kept_by_gitea(row) for row in served.rows):
                return served
        newer_than = now()  # a row did not carry a name it was sent: read every name afresh and ask again
    raise ToolFailure(
        f"Gitea ignored the label or milestone filter on {owner}/{name} twice: its names changed while listing. "
        "Try again."
    )


def _first_round(
    deps: Deps,
    owner: str,
    name: str,
    query: IssueFilter,
    asked: dict[str, str],
    page: int,
    limit: int,
    newer_than: float | None,
) -> tuple[Sent, ApiResponse | None]:
    """The names resolved and, in the same round trip, the list as asked when the names can go as they are."""
    if not query.labels and not query.milestones:  # nothing to resolve: the list alone, on this thread
        return Sent(), _get(deps, owner, name, asked, page, limit)
    resolve = partial(_resolve, deps, owner, name, query, newer_than)
    if any("," in text for text in (*query.labels, *query.milestones)):  # they go as ids: the list must wait
        sent, early = resolve(), None
    else:
        # The names first, so a refused name wins over whatever the list returned.
        sent, early = deps.client.gather(resolve, lambda: _get(deps, owner, name, asked, page, limit))
    if sent.here:
        return sent, None
    params = sent.params(asked)
    if early is not None and params == asked:
        return sent, early
    return sent, _get(deps, owner, name, params, page, limit)


def _get(deps: Deps, owner: str, name: str, params: dict[str, str], page: int, limit: int) -> ApiResponse:
    path: list[Segment] = ["repos", owner, name, "issues"]
    return deps.client.get(path, {**params, "page": page, "limit": limit})


def _resolve(deps: Deps, owner: str, name: str, query: IssueFilter, newer_than: float | None) -> Sent:
    def labels() -> Sent:
        return _labels(deps, owner, name, list(query.labels), newer_than) if query.labels else Sent()

    def milestones() -> Sent:
        return _milestones(deps, owner, name, list(query.milestones), newer_than) if query.milestones else Sent()

    if not query.milestones:  # one lookup runs on this thread, without a hop to a worker
        return labels()
    if not query.labels:
        return milestones()
    by_label, by_milestone = deps.client.gather(labels, milestones)
    return replace(by_label, titles=by_milestone.titles, ids=by_milestone.ids)


def _labels(deps: Deps, owner: str, name: str, wanted: list[str], newer_than: float | None) -> Sent:
    """Repository labels go to Gitea by name; a name with a comma, or an organisation's label, is filtered here."""
    started = now()
    repo = fresh(
        lambda at: deps.catalog.labels(deps.client, owner, name, at),
        lambda got: bool(_unknown(wanted, got)),
        newer_than,
    )
    org: list[Label] = []
    listed = True
    if unknown := _unknown(wanted, repo):
        org, listed = label_names.organisation_labels(deps, owner, unknown, started)
    if not listed and (commas := [n for n in _unknown(wanted, [*repo, *org]) if "," in n]):
        org += _seen_here(deps, owner, name, commas)
    if unknown := _unknown(wanted, [*repo, *org]):
        raise ToolFailure(_no_such_label(owner, name, unknown, repo, listed))
    # Each name as the server spells it (an answer shows it scrubbed); org holds only names the repository lacks.
    index = label_names.by_name([*repo, *org])
    known = {n: label for n in wanted if (label := label_names.named(index, n)) is not None}
    here = tuple(known[n] for n in wanted if "," in known[n].name or known[n] in org)
    return Sent(labels=tuple(known[n].name for n in wanted if known[n] not in here), here=here)


def _seen_here(deps: Deps, owner: str, name: str, names: list[str]) -> list[Label]:
    """Organisation labels whose names hold a comma, as this repository's own issues show them (at most SCAN_ROWS).

    The search that finds the others (`catalog.org_labels_seen`) cannot: Gitea splits its `labels` on commas and
    looks each part up among every label on the server, so `org, wide` searches for another owner's `org` or, no part
    found, for nothing at all (verified, 1.25.4). Only an issue here can carry the label this list filters by."""
    rows = _scan(
        deps,
        owner,
        name,
        {"state": "all"},
        lambda total: (
            f"label {', '.join(repr(n) for n in names)} is not a label of {owner}/{name} and holds a comma: "
            f"without read:organization {owner}'s labels are seen only on the issues carrying them, Gitea's search "
            f"cannot look up a name holding a comma, and {owner}/{name} has {total} issues to look through, more "
            f"than the {SCAN_ROWS} read here. Give the token read:organization, or rename the label without the comma."
        ),
    )
    shown = scrubbed(names)
    found = {x.name: x for row in rows for x in row.labels if scrub(x.name) in shown and x.of_org(owner)}
    return list(found.values())


def _unknown(wanted: list[str], labels: list[Label]) -> list[str]:
    index = label_names.by_name(labels)
    return [n for n in wanted if label_names.named(index, n) is None]


def _no_such_label(owner: str, name: str, unknown: list[str], repo: list[Label], listed: bool) -> str:
    text = (
        f"label {', '.join(repr(u) for u in unknown)} does not exist in {owner}/{name} "
        f"(Gitea would ignore it and list everything). Labels there: {_names([x.name for x in repo])}."
    )
    if not listed:
        where = f"{owner}/{name}" if all("," in u for u in unknown) else owner  # comma names: see _seen_here
        text += (
            f" Nor is it an organisation label any issue of {where} carries (listing the organisation's labels needs "
            "read:organization)."
        )
    return text


def _milestones(deps: Deps, owner: str, name: str, wanted: list[str], newer_than: float | None) -> Sent:
    """Each as given (a title, or an id: Gitea reads a title first, then an id, as `milestone_named` does); a title
    holding a comma goes as its id."""
    milestones = fresh(
        lambda at: deps.catalog.milestones(deps.client, owner, name, at),
        lambda got: any(milestone_named(got, w) is None for w in wanted),
        newer_than,
    )
    found = [milestone_named(milestones, w) for w in wanted]
    unknown = [w for w, m in zip(wanted, found, strict=True) if m is None]
    if unknown:
        raise ToolFailure(
            f"milestone {', '.join(repr(u) for u in unknown)} does not exist in {owner}/{name} "
            f"(Gitea would ignore it). Milestones there: {_names([m.title for m in milestones])}."
        )
    titles: list[str] = []
    ids: list[int] = []
    for given, m in zip(wanted, found, strict=True):
        assert m is not None
        if m.title == given and "," not in given:
            titles.append(given)
        elif milestone_named(milestones, str(m.id)) is m:
            ids.append(m.id)
        else:
            raise ToolFailure(
                f"milestone {m.title!r} holds a comma, on which Gitea's list splits names, and its id {m.id} is "
                "another milestone's title, which Gitea reads first: it cannot be filtered by; rename one of them."
            )
    return Sent(titles=tuple(titles), ids=tuple(ids))


def _filtered_here(
    deps: Deps, owner: str, name: str, asked: dict[str, str], sent: Sent, page: int, limit: int
) -> Page[Issue] | None:
    """The labels Gitea's list cannot filter by, filtered here over every issue the other filters leave (at most
    SCAN_ROWS); None when a row shows Gitea dropped a name it was sent."""
    rows = _scan(deps, owner, name, sent.params(asked), lambda total: _too_many(owner, sent.here, total))
    if not all(sent.kept_by_gitea(row) for row in rows):
        return None
    matching = [row for row in rows if sent.kept_here(row)]
    start = (page - 1) * limit
    return Page(matching[start : start + limit], len(matching), start + limit < len(matching), limit, page)


def _scan(deps: Deps, owner: str, name: str, params: dict[str, str], too_many: Callable[[int], str]) -> list[Issue]:
    """Every issue the list parameters leave, read by the catalogue's bounded pager (at most SCAN_ROWS); more, as
    Gitea counts them, is refused with `too_many(count)`, and any other reason they cannot all be read as such."""
    try:
        rows = fetch_all(
            deps.client,
            ["repos", owner, name, "issues"],
            dict(params),
            what=f"the issues of {owner}/{name}",
            rows=SCAN_ROWS,
            then="a label Gitea's list cannot filter by is filtered here over all of them, so it cannot be: narrow the "
            "other filters (state, since, milestones, a repository label), or, if there should not be so many, check "
            "what answers for Gitea (a proxy in front of it may be misbehaving)",
        )
    except CatalogTooBig as exc:
        if exc.counted is None:
            raise
        raise ToolFailure(too_many(exc.counted)) from None
    return rows_as(Issue, rows)


def _too_many(owner: str, here: tuple[Label, ...], total: int) -> str:
    why = " and ".join(f"{x.name!r} {'holds a comma' if ',' in x.name else 'is an organisation label'}" for x in here)
    searchable = [x.name for x in here if "," not in x.name]
    search = (
        f", or search across {owner}'s repositories: issue_search owner={owner} query='label:{searchable[0]}'"
        if len(searchable) == len(here) == 1
        else ""
    )
    return (
        f"label {why}, which Gitea's repository list cannot filter by (it would list everything), so it is filtered "
        f"here over at most {SCAN_ROWS} issues, and the other filters leave {total}. Narrow them (state, since, "
        f"milestones, a repository label){search}."
    )


def _names(names: list[str]) -> str:
    if not names:
        return "(none)"
    shown = ", ".join(repr(n) for n in sorted(names)[:40])
    return shown + (f" and {len(names) - 40} more" if len(names) > 40 else "")
