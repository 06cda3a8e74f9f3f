"""issue_search: a forge-style query run exactly on Gitea, answered as a locator list with the next step.

Search stays a locator (docs/decisions/0001-search-stays-a-locator.md): it never loads a detail, even for one
match; the hint after it depends on the count — 0 suggests a plain listing with state=all (the keyword index can
lag), 1 fills in the real number, 2+ gives a placeholder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp.domain import dates, links
from gitea_mcp.domain import query as ql
from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.policy import DEFAULT_LIMIT, cap_limit, validate_name
from gitea_mcp.gitea.client import ApiResponse
from gitea_mcp.gitea.errors import GiteaError, Rejected, Unauthorized
from gitea_mcp.gitea.models import Issue
from gitea_mcp.gitea.page import Page, page_of
from gitea_mcp.gitea.release import ServerInfo
from gitea_mcp.toolkit import envelope, list_link, render, repo_page, rows, scopes
from gitea_mcp.toolkit.arguments import Arguments, Limit, PageNumber
from gitea_mcp.toolkit.base import Deps, ToolDefinition, guard
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.reading(
    "issue_search",
    "Find issue/PR numbers by query or list page URL. Words match title/body/comments as the server's index does: "
    "Gitea whole adjacent words (auth misses Authentication), a lone number N also #N and text containing N (1.23+); "
    'Forgejo any word, "exact phrases". Qualifiers: is:open|closed, state:all, is:issue|pr, label:X (repeat: all '
    "must match), milestone:X, author:X, assignee:X, mentions:X (X may be @me), updated:>=DATE (>, <, <=, A..B), "
    f"repo:owner/name, org:X; others refused. Default: all states. {dates.RULE}",
    scopes.READ_ISSUE,
    toolset="issues",
    order=2,
    budget=1140,
    listed_budget=2150,
    scope_note="(and `read:user` for `@me`)",
)
NAME = SPEC.name


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One match as the text face shows it (a locator: the author, never the labels); the structured face's row is a
    `rows.SearchRow`, the card's object."""

    number: int
    title: str
    state: str
    is_pull: bool
    author: str
    created_at: str
    repository: str


class SearchResult(BaseModel):
    query: str
    scope: str = Field(description="owner/name, or owner/* across the owner's repositories")
    params: dict[str, str] = Field(description="The Gitea parameters the query became.")
    results: list[rows.SearchRow]
    total: int | None
    page: int
    limit: int
    has_more: bool


class SearchArgs(Arguments):
    query: Annotated[str, Field(description="e.g. crash label:bug is:open author:@me")]
    owner: Annotated[str | None, Field(description="Or repo:/org: in the query.")] = None
    name: Annotated[str | None, Field(description="Omit for all of owner's.")] = None
    page: PageNumber = 1
    limit: Limit = DEFAULT_LIMIT


@dataclass(frozen=True)
class Scope:
    owner: str
    name: str | None  # None: every repository of the owner

    def __str__(self) -> str:
        return f"{self.owner}/{self.name or '*'}"


def run(deps: Deps, args: SearchArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    return guard(lambda: _run(deps, args), SPEC, deps)


def _run(deps: Deps, args: SearchArgs) -> CallToolResult:
    if links.looks_like_link(args.query):
        scope, hits, again = _from_link(deps, args)
        notes = [_WEB_NOTE] if hits.page.size == list_link.WEB_PAGE_SIZE else []
        if "limit" in args.model_fields_set and hits.page.size != args.limit:
            notes.append(render.served_fewer(args.limit, hits.page.size))
        return _answer(args, scope, _screened(deps, scope, hits), notes, again)
    parsed = ql.parse_query(args.query)
    scope = _scope(deps, parsed, args)
    limit = cap_limit(args.limit)
    me = _me(deps, parsed)
    named_author = parsed.author is not None and not ql.is_me(parsed.author, me)
    if parsed.keywords or (named_author and scope.name is None):
        server, hits = _with_release(deps, scope, parsed, me, args.page, limit)
    else:  # nothing here depends on the release
        server, hits = None, _fetch(deps, scope, parsed, me, False, args.page, limit)
    asked = args.limit if hits.page.size != args.limit else None
    return _answer(args, scope, _screened(deps, scope, hits), _notes(server, parsed.keywords, hits, asked))


def _screened(deps: Deps, scope: Scope, hits: Hits) -> Hits:
    """Under lockdown, the titles of issues opened by users without write access marked (toolkit/lockdown.py)."""
    if deps.lockdown is None:
        return hits
    return replace(hits, page=replace(hits.page, rows=deps.screen_issues(str(scope), hits.page.rows)))


@dataclass(frozen=True)
class _Plan:
    """What the release decides about the request: quotes kept in `q` (Forgejo 11+ reads them), and keyword +
    assignee filtered here (where the index stores no assignees)."""

    quotes: bool = False
    assignee_here: bool = False


def _plan(server: ServerInfo, parsed: ql.ParsedQuery) -> _Plan:
    return _Plan(
        quotes=bool(parsed.phrases) and server.keyword_mode == "words",
        assignee_here=bool(parsed.keywords) and parsed.assignee is not None and server.keyword_drops_assignee,
    )


def _plans(parsed: ql.ParsedQuery) -> list[_Plan]:
    """Every plan some release would choose for this query; one unless it has phrases or keywords + assignee."""
    quotes = (False, True) if parsed.phrases else (False,)
    here = (False, True) if parsed.keywords and parsed.assignee is not None else (False,)
    return [_Plan(q, h) for q in quotes for h in here]


def _with_release(
    deps: Deps, scope: Scope, parsed: ql.ParsedQuery, me: str | None, page: int, limit: int
) -> tuple[ServerInfo, Hits]:
    """The search as this release needs it, in one round: the first time in a while the release is asked together
    with the request of every plan it could choose (usually one), and the answer picks; then it is cached."""
    known = deps.catalog.known_server(deps.client)
    if known is not None:
        _check_author_searchable(known, scope, parsed, me)  # before anything is sent
    plans = [_plan(known, parsed)] if known else _plans(parsed)
    attempts = [_attempt(deps, scope, parsed, me, plan, page, limit) for plan in plans]
    if known is None:
        # The plans on this thread, so they fan out to workers too (a worker runs nested calls inline).
        answers, server = deps.client.gather(
            lambda: deps.client.parallel(*attempts), lambda: deps.catalog.server(deps.client)
        )
    else:
        server, answers = known, deps.client.parallel(*attempts)
    plan = _plan(server, parsed)
    first = answers[plans.index(plan)]
    _check_author_searchable(server, scope, parsed, me)
    if isinstance(first, Exception):
        raise first  # only the chosen plan's failure counts: the others' requests were never needed
    if plan.assignee_here:
        return server, _assignee_here(deps, scope, parsed, me, server, first, page, limit)
    return server, first


def _check_author_searchable(server: ServerInfo, scope: Scope, parsed: ql.ParsedQuery, me: str | None) -> None:
    if scope.name is None and parsed.author and not ql.is_me(parsed.author, me) and not server.search_filters_author:
        raise ToolFailure(
            f"{server} cannot search author:{parsed.author} across repositories (its search ignores the author). "
            "Add repo:OWNER/NAME to filter one repository by author, or search author:@me."
        )


def _attempt(
    deps: Deps, scope: Scope, parsed: ql.ParsedQuery, me: str | None, plan: _Plan, page: int, limit: int
) -> Callable[[], Hits | Exception]:
    """One plan's first page; a failure is kept, and raised only if this plan is the one the release chooses."""

    def attempt() -> Hits | Exception:
        try:
            return _first_page(deps, scope, parsed, me, plan, page, limit)
        except Exception as exc:
            return exc

    return attempt


def _first_page(
    deps: Deps, scope: Scope, parsed: ql.ParsedQuery, me: str | None, plan: _Plan, page: int, limit: int
) -> Hits:
    if plan.assignee_here:  # the keyword matches without the assignee, as many as are filtered here at once
        return _fetch(deps, scope, replace(parsed, assignee=None), me, plan.quotes, 1, KEYWORD_ROWS // 2)
    return _fetch(deps, scope, parsed, me, plan.quotes, page, limit)


def _answer(args: SearchArgs, scope: Scope, hits: Hits, notes: list[str], again: str | None = None) -> CallToolResult:
    """`again`: the query the next-page hint repeats (a link with its state pinned); the caller's by default."""
    page = hits.page
    found = [_hit(issue, scope) for issue in page.rows]
    pulls_in = hits.params.get("type") != "issues"  # the query let pull requests in: each row says which it is
    out = SearchResult(
        query=args.query,
        scope=str(scope),
        params=hits.params,
        results=[
            rows.search_row(issue, pulls_in, hit.repository if scope.name is None else None)
            for issue, hit in zip(page.rows, found, strict=True)
        ],
        total=page.total,
        page=page.number,
        limit=page.size,
        has_more=page.has_more,
    )
    return envelope.result(_text(out, found, scope, args, notes, again or args.query), out)


_WEB_NOTE = "the link's list as its web page shows it: 20 per page, newest first."


def _from_link(deps: Deps, args: SearchArgs) -> tuple[Scope, Hits, str]:
    """A pasted list page, run as its exact equivalent (toolkit/list_link.py); an issue's page belongs to issue_get.

    Also the link for the next pages: with the state this page showed written in, so that every page lists the
    same issues even if one is opened or closed meanwhile (the page number goes in the hint's own argument).
    """
    link = links.parse(args.query, deps.client.url)
    if isinstance(link, links.IssueLink):
        raise ToolFailure("that link is one issue's page: read it with issue_get url=<the link>.")
    owner, name = deps.policy.check_repo(link.owner, link.name)
    if (args.owner or owner).lower() != owner.lower() or (args.name or name).lower() != name.lower():
        raise ToolFailure(f"owner/name disagree with the link ({owner}/{name}); give one or the other.")
    web = list_link.web_list(deps, link)
    page = args.page if "page" in args.model_fields_set else web.page
    limit = cap_limit(args.limit) if "limit" in args.model_fields_set else list_link.WEB_PAGE_SIZE
    query = web.query
    served = repo_page.repo_page(deps, owner, name, query, page, limit)
    if not web.state_given and query.state == "open" and _none_open(served):
        # The web's rule, on every page alike (routers/web/repo/issue_list.go): without a state, a filter that
        # matches no open issue shows every state.
        query = replace(query, state="all")
        served = repo_page.repo_page(deps, owner, name, query, page, limit)
    again = links.with_params(args.query, {"state": query.state}, drop=("page",))
    return Scope(owner, name), Hits(served, query.list_params()), again


def _none_open(served: Page[Issue]) -> bool:
    """No open issue matches at all: Gitea's total, or (without one, never seen) an empty first page."""
    return served.total == 0 if served.total is not None else served.number == 1 and not served.rows


@dataclass(frozen=True)
class Hits:
    """One page of matches, as Gitea served it or as filtered here, and what Gitea was asked."""

    page: Page[Issue]
    params: dict[str, str]  # what Gitea was asked
    filtered_here: str | None = None  # a filter applied here, not by Gitea


def _fetch(
    deps: Deps, scope: Scope, parsed: ql.ParsedQuery, me: str | None, quotes: bool, page: int, limit: int
) -> Hits:
    if scope.name is not None:
        query = ql.repo_filter(parsed, me=me, quotes=quotes)
        return Hits(repo_page.repo_page(deps, scope.owner, scope.name, query, page, limit), query.list_params())
    params = ql.search_filter(parsed, me=me, quotes=quotes).search_params(scope.owner)
    served = page_of(_search_owner(deps, params, page, limit), Issue, limit, page)
    repo_page.check_places(deps, served.rows, scope.owner, None)
    _check_not_ignored(parsed, served.rows, me)
    return Hits(served, params)


KEYWORD_ROWS = 100  # how many keyword matches are filtered here by assignee before the search is refused


def _assignee_here(
    deps: Deps,
    scope: Scope,
    parsed: ql.ParsedQuery,
    me: str | None,
    server: ServerInfo,
    first: Hits,
    page: int,
    limit: int,
) -> Hits:
    """Keywords with an assignee: this server's index stores no assignees and would answer nothing, so the keyword
    matches (`first`: their first page) are fetched and filtered here (verified: Gitea 1.22–1.25, Forgejo 11–14).
    A server serving fewer than 50 a page gets the rest in one more round."""
    who = me if parsed.assignee == "@me" else parsed.assignee
    assert who is not None
    wide = replace(parsed, assignee=None)
    quotes = _plan(server, parsed).quotes
    total, size = first.page.total, first.page.size
    rows = list(first.page.rows)
    if total is not None and len(rows) < min(total, KEYWORD_ROWS) and size:
        pages = range(2, -(-min(total, KEYWORD_ROWS) // size) + 1)
        more = deps.client.parallel(*[_page_loader(deps, scope, wide, me, quotes, n, size) for n in pages])
        rows += [issue for hits in more for issue in hits.page.rows]
    if total is None or total > len(rows):
        raise ToolFailure(
            f"{server} cannot combine keywords with assignee: its search index stores no assignees. The keywords "
            f"alone match {total if total is not None else 'too many'} issues, more than the "
            f"{KEYWORD_ROWS} that can be filtered here; use more specific words, or search assignee:{parsed.assignee} "
            "without keywords."
        )
    mine = [issue for issue in rows if who.lower() in {user.login.lower() for user in issue.assignees}]
    start = (page - 1) * limit
    filtered = Page(mine[start : start + limit], len(mine), start + limit < len(mine), limit, page)
    return Hits(filtered, first.params, filtered_here=f"assignee {who}")


def _page_loader(
    deps: Deps, scope: Scope, parsed: ql.ParsedQuery, me: str | None, quotes: bool, page: int, size: int
) -> Callable[[], Hits]:
    return lambda: _fetch(deps, scope, parsed, me, quotes, page, size)


def _notes(server: ServerInfo | None, keywords: str, hits: Hits, asked: int | None) -> list[str]:
    notes = []
    if asked is not None:
        notes.append(render.served_fewer(asked, hits.page.size))
    if server is not None and keywords:
        notes.append(f"keywords on {server}: {_keyword_note(server, keywords)}")
    if hits.filtered_here:
        notes.append(f"{hits.filtered_here} was filtered here: this server's keyword index ignores assignees.")
    return notes


_MODES = {
    "phrase": "all the words, adjacent and whole, as one phrase (a database indexer matches parts of words too)",
    "words": 'any of the words (close spellings too); "quoted phrases" exactly',
}


def _keyword_note(server: ServerInfo, keywords: str) -> str:
    """How this server matches these keywords: a lone number is a case of its own (docs/server-behaviour.md)."""
    number = ql.as_number(keywords)
    if number is not None and server.numeric_keyword_from_db:
        return (
            f"{keywords} is a number, which Gitea matches in its database whatever its index: issue #{number} and "
            f"every title, body or comment containing {keywords}, inside longer numbers and words too"
        )
    mode = _MODES[server.keyword_mode]
    if number is None:
        return mode
    if server.keyword_finds_number:
        return f"{mode}; a number also finds the issue of that number"
    return f"{mode}; a number is only a word here, not an issue number"


def _scope(deps: Deps, parsed: ql.ParsedQuery, args: SearchArgs) -> Scope:
    """Where to search: the arguments and the query's repo:/org: must agree, and the owner must be allowed."""
    owners = {o for o in (args.owner, parsed.repo[0] if parsed.repo else None, parsed.owner) if o}
    if len({o.lower() for o in owners}) > 1:
        raise BadArgument(f"the owner is given twice and differently ({', '.join(sorted(owners))}); name one owner.")
    if not owners:
        raise BadArgument(
            "say whose issues to search: pass owner (and name for one repository) or put repo:OWNER/NAME in the query."
        )
    names = {n for n in (args.name, parsed.repo[1] if parsed.repo else None) if n}
    if len({n.lower() for n in names}) > 1:
        raise BadArgument(f"the repository is given twice and differently ({', '.join(sorted(names))}); name one.")
    owner = deps.policy.check_owner(owners.pop())
    name = validate_name(names.pop(), "name") if names else None
    return Scope(owner, name)


def _me(deps: Deps, parsed: ql.ParsedQuery) -> str | None:
    """The token's login, looked up only when the query says @me."""
    if "@me" not in (parsed.author, parsed.assignee, parsed.mentions):
        return None
    try:
        return deps.catalog.me(deps.client).login
    except Unauthorized:
        raise ToolFailure("@me needs a signed-in user: set GITEA_TOKEN, or name the user instead.") from None


def _search_owner(deps: Deps, params: dict[str, str], page: int, limit: int) -> ApiResponse:
    try:
        return deps.client.get(["repos", "issues", "search"], {**params, "page": page, "limit": limit})
    except GiteaError as exc:
        if isinstance(exc, Rejected) and exc.unknown_user is not None:  # `user does not exist [uid: 0, name: X]`
            raise ToolFailure(f"owner {params['owner']!r} does not exist on this Gitea; check the name.") from None
        raise


def _check_not_ignored(parsed: ql.ParsedQuery, issues: list[Issue], me: str | None) -> None:
    """Gitea's cross-repository search drops an unknown label or milestone name, and servers before 1.26 ignore
    created_by: either way it would answer with unfiltered issues. Any row that does not match gives it away."""
    if parsed.labels and any(parsed.labels[0] not in {label.name for label in i.labels} for i in issues):
        raise ToolFailure(
            f"label {parsed.labels[0]!r} exists in no repository of this owner (Gitea ignored it); "
            "check the name, or add repo:OWNER/NAME to see that repository's labels."
        )
    if parsed.milestones and any(not i.milestone or i.milestone.title != parsed.milestones[0] for i in issues):
        raise ToolFailure(
            f"milestone {parsed.milestones[0]!r} exists in no repository of this owner (Gitea ignored it)."
        )
    author = me if parsed.author == "@me" else parsed.author
    if author and any(i.author.lower() != author.lower() for i in issues):
        raise ToolFailure(
            f"this server ignored author:{parsed.author} across repositories; "
            "add repo:OWNER/NAME to filter one repository by author."
        )


def _hit(issue: Issue, scope: Scope) -> SearchHit:
    repo = issue.repository.full_name if issue.repository and issue.repository.full_name else str(scope)
    return SearchHit(
        number=issue.number,
        title=issue.title,
        state=issue.state,
        is_pull=issue.pull_request is not None,
        author=issue.author,
        created_at=issue.created_at,
        repository=repo,
    )


def _text(
    out: SearchResult, found: list[SearchHit], scope: Scope, args: SearchArgs, notes: list[str], again: str
) -> str:
    shown = render.args_text(out.params)
    header = f"search {scope} {args.query!r} → {shown}: "
    lines = [header + render.showing(len(found), out.page, out.limit, out.total, out.has_more)]
    lines += [f"note: {note}" for note in notes]
    cross = scope.name is None
    if found:  # the legend: here @name is the author (in issue_list rows it is the assignees)
        lines.append(f"rows: {'owner/repo' if cross else ''}#number (state) title @author created")
    lines += [_row(hit, cross) for hit in found]
    lines += render.help_lines(_next_steps(out, found, scope, again))
    return "\n".join(lines)


def _row(hit: SearchHit, cross: bool) -> str:
    where = f"{hit.repository}#{hit.number}" if cross else f"#{hit.number}"
    kind = "PR, " if hit.is_pull else ""
    return f"{where} ({kind}{hit.state}) {render.inline(hit.title)} {render.user(hit.author)} {hit.created_at[:10]}"


def _next_steps(out: SearchResult, found: list[SearchHit], scope: Scope, again: str) -> list[str]:
    count = len(found)
    if count == 0 and out.page == 1:
        target = render.args_text({"owner": scope.owner, "name": scope.name or "<name>"})
        return [
            f"no match; the keyword index can lag behind new issues and the query may be too narrow: "
            f"try issue_list {target} state=all"
        ]
    steps = []
    if count == 1 and out.total in (1, None) and not out.has_more:
        hit = found[0]
        owner, _, name = hit.repository.partition("/")
        steps.append(f"open it: issue_get {render.args_text({'owner': owner, 'name': name, 'number': hit.number})}")
    elif count:
        repos = {hit.repository for hit in found}
        # Across repositories the rows say where each issue lives; one repository can be filled in.
        owner, _, name = repos.pop().partition("/") if len(repos) == 1 else (scope.owner, "", "<name>")
        steps.append(f"open one: issue_get {render.args_text({'owner': owner, 'name': name})} number=<number>")
    if out.has_more:
        call: dict[str, Any] = {"query": again, "owner": scope.owner}
        if scope.name:
            call["name"] = scope.name
        steps.append(render.next_page(NAME, call, out.page, out.limit))
    return steps


TOOL = ToolDefinition(SPEC, SearchArgs, SearchResult, run)
