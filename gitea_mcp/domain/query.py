"""The search query an agent types (GitHub-like syntax), mapped onto Gitea's issue parameters — exactly, or refused.

Pure: no I/O. `parse_query` turns the text into a `ParsedQuery`; `repo_filter` and `search_filter` turn that into the
`IssueFilter` for `GET /repos/{o}/{r}/issues` or `GET /repos/issues/search`. Every qualifier maps onto a Gitea
parameter with the same meaning or raises `BadArgument` (a ToolFailure) naming it and saying what to write instead:
nothing is silently ignored, because an ignored filter returns a plausible but wrong list.

Decisions (see also the tests, one row per form):
- `label:a label:b` means all of a and b (Gitea's repository list is all-of). An unquoted comma (`label:a,b`) is
  refused: on GitHub it means any-of, which Gitea cannot do exactly. A quoted value (`label:"needs info, urgent"`) is
  one name, commas and all: in one repository it is filtered exactly (toolkit/repo_page.py: by id); across repositories
  it is refused, as Gitea's search splits names on commas and looks each part up on the whole server. The same holds
  for `milestone:`.
- `@me` is kept literally in `ParsedQuery`. The search endpoint has booleans for the signed-in user
  (`created`/`assigned`/`mentioned=true`); the repository list only takes usernames, so `repo_filter` needs `me`.
- No state default in a query (it searches all states, like a forge's search box); type defaults to issues
  (docs/decisions/0002-query-language.md).
- Dates: one rule for every tool (gitea_mcp/domain/dates.py): `updated:>=D` is issue_list's `since=D`, `updated:<D` its
  `before=D`; a `YYYY-MM-DD` is a whole UTC day, so `updated:<=D` includes it. Sent as Gitea's inclusive seconds.
- Keywords match as the server's index does (docs/server-behaviour.md): Gitea's as one phrase of whole words,
  ignoring quotes; Forgejo 11+'s as any word, reading `"exact phrase"`. Quotes are kept for Forgejo only; exclusions
  (`-word`, NOT) are refused rather than passed on with a meaning that depends on the server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from gitea_mcp.domain import dates
from gitea_mcp.domain.failures import BadArgument
from gitea_mcp.domain.issue_filter import IssueFilter, Mine
from gitea_mcp.domain.policy import is_name

State = Literal["open", "closed", "all"]
IssueType = Literal["issues", "pulls"]

SUPPORTED = (
    "is:open, is:closed, state:open|closed|all, is:issue, is:pr, type:issue|pr, label:NAME (repeat for all of them), "
    "milestone:NAME, author:USER, assignee:USER, mentions:USER (USER may be @me), "
    "updated:>=DATE, updated:>DATE, updated:<DATE, updated:<=DATE, updated:DATE, updated:DATE..DATE, "
    "repo:OWNER/NAME, org:/user:/owner:OWNER, free words and quoted phrases"
)
MAX_QUERY = 2000  # characters: more is no search, and over HTTP anyone may send it


@dataclass(frozen=True)
class ParsedQuery:
    text: str  # the query exactly as given (never rewritten)
    keywords: str = ""  # free words and phrases in order, single-spaced, quotes removed -> Gitea `q`
    phrases: tuple[str, ...] = ()  # the quoted ones among them, kept for servers that read quotes in `q`
    state: State | None = None  # None: the query did not say
    type: IssueType | None = None  # None: the query did not say
    labels: tuple[str, ...] = ()  # all must match
    milestones: tuple[str, ...] = ()  # at most one: an issue has one milestone
    author: str | None = None  # a username or "@me"
    assignee: str | None = None
    mentions: str | None = None
    since: str | None = None  # RFC 3339 UTC, whole seconds, inclusive
    before: str | None = None  # RFC 3339 UTC, whole seconds, inclusive
    repo: tuple[str, str] | None = None
    owner: str | None = None


# --- Parameters -------------------------------------------------------------------------------------------------------


def keyword_text(q: ParsedQuery, *, quotes: bool) -> str:
    """Gitea's `q`: the words with phrases quoted when the server reads quotes (Forgejo 11+), else plain words."""
    if not quotes or not q.phrases:
        return q.keywords
    out, rest = [], q.keywords
    for phrase in q.phrases:  # phrases appear in `keywords` in order: quote each where it stands
        before, _, rest = rest.partition(phrase)
        out += [before, f'"{phrase}"']
    return "".join([*out, rest])


_ATOI = re.compile(r"[+-]?\d+")


def as_number(keywords: str) -> int | None:
    """The number Gitea sees in `q` (Go's strconv.Atoi: an optional sign, digits, within int64), or None. Gitea
    1.23+ answers such a keyword from its database (docs/server-behaviour.md)."""
    if not _ATOI.fullmatch(keywords):
        return None
    value = int(keywords)
    return value if -(2**63) <= value < 2**63 else None


def repo_filter(q: ParsedQuery, *, me: str | None = None, quotes: bool = False) -> IssueFilter:
    """The filter for one repository's list. `me` is the signed-in username, needed for `@me`."""
    return replace(
        _common(q, quotes),
        created_by=_resolve_me(q.author, "created_by", me),
        assigned_by=_resolve_me(q.assignee, "assigned_by", me),
        mentioned_by=_resolve_me(q.mentions, "mentioned_by", me),
    )


def search_filter(q: ParsedQuery, *, me: str | None = None, quotes: bool = False) -> IssueFilter:
    """The filter for `GET /repos/issues/search`; refuses what that endpoint cannot do exactly.

    Use `repo_filter` when the query names a repository. The @me flags only work for a signed-in caller (Gitea
    ignores them anonymously), which the tool has to ensure.
    """
    if q.repo is not None:
        raise ValueError("the query names a repository: use repo_filter")
    if len(q.labels) > 1:
        raise BadArgument(
            "Several `label:` qualifiers cannot be searched across repositories: Gitea's search matches ANY of the "
            "labels there, not all. Keep one label:, or add repo:OWNER/NAME, where every label must match."
        )
    _no_comma_across(q)
    mine: list[Mine] = []
    created_by = None
    if q.author is not None:
        if is_me(q.author, me):
            mine.append("created")
        else:
            created_by = q.author
    if q.assignee is not None and _only_me("assignee", q.assignee, me):
        mine.append("assigned")
    if q.mentions is not None and _only_me("mentions", q.mentions, me):
        mine.append("mentioned")
    return replace(_common(q, quotes), created_by=created_by, mine=tuple(mine))


def _no_comma_across(q: ParsedQuery) -> None:
    """Gitea's search splits `labels` and `milestones` on commas and looks each part up among every label or
    milestone on the server, dropping the filter when no part is found (verified, 1.25.4): a name holding a comma
    cannot be searched across repositories, exactly or at all."""
    for key, names in (("label", q.labels), ("milestone", q.milestones)):
        for value in names:
            if "," in value:
                raise BadArgument(
                    f'`{key}:"{value}"` holds a comma, on which Gitea\'s cross-repository search splits {key} names '
                    f"(it would search for each part, on the whole server). Add repo:{q.owner or 'OWNER'}/NAME to "
                    "search one repository, where it is filtered exactly."
                )


def _common(q: ParsedQuery, quotes: bool) -> IssueFilter:
    # Merge rules (docs/decisions/0002-query-language.md): a query searches all states unless it names one; the
    # type is issues unless named (Gitea mixes both when `type` is omitted, which no forge search box does).
    return IssueFilter(
        state=q.state or "all",
        type=q.type or "issues",
        labels=q.labels,  # all of them on a repository; the search filter allows one (refused above otherwise)
        milestones=q.milestones,
        keywords=keyword_text(q, quotes=quotes),
        since=q.since,
        before=q.before,
    )


def is_me(value: str, me: str | None) -> bool:
    """`@me`, or the signed-in user's own name."""
    return value == "@me" or (me is not None and value.casefold() == me.casefold())


def _resolve_me(value: str | None, key: str, me: str | None) -> str | None:
    if value != "@me":
        return value
    if me is None:
        qualifier = {"created_by": "author", "assigned_by": "assignee", "mentioned_by": "mentions"}[key]
        raise BadArgument(
            f"`{qualifier}:@me` cannot be resolved: the signed-in user is unknown (no token?), and Gitea's "
            f"repository issue list needs a username. Name the user instead, e.g. {qualifier}:alice."
        )
    return me


def _only_me(qualifier: str, value: str, me: str | None) -> bool:
    if is_me(value, me):
        return True
    raise BadArgument(
        f"`{qualifier}:{value}` cannot be searched across repositories: Gitea's search filters on {qualifier} only for "
        f"the signed-in user ({qualifier}:@me). Add repo:OWNER/NAME to filter one repository by {qualifier}:{value}."
    )


# --- Tokens -----------------------------------------------------------------------------------------------------------

_QUALIFIER = re.compile(r"(-?)([A-Za-z][A-Za-z_-]*):(.*)", re.DOTALL)


@dataclass(frozen=True)
class _Token:
    raw: str  # as typed, quotes included
    value: str  # quotes removed
    key: str | None = None  # lower-case qualifier name; None for free text
    negated: bool = False
    quoted: bool = False


def _split(text: str) -> list[str]:
    """Split on whitespace outside double quotes; quotes stay in the pieces for `_classify`."""
    pieces: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char.isspace() and not quoted:
            if current:
                pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    if quoted:
        raise BadArgument(
            'The query has an unbalanced double quote ("): every quoted phrase or value needs a closing quote. '
            'Close it, e.g. label:"needs review" or "exact phrase", or remove the quote.'
        )
    return [*pieces, "".join(current)] if current else pieces


def _unquote(part: str, raw: str) -> tuple[str, bool]:
    if '"' not in part:
        return part, False
    if len(part) >= 2 and part[0] == part[-1] == '"' and part.count('"') == 2:
        return part[1:-1], True
    raise BadArgument(
        f"`{raw}` mixes quoted and unquoted text: quotes must surround a whole phrase or a whole qualifier value. "
        'Write "exact phrase" or label:"needs review".'
    )


def _classify(raw: str) -> _Token:
    if raw.startswith('"'):
        value, _ = _unquote(raw, raw)
        return _Token(raw, value, quoted=True)
    match = _QUALIFIER.fullmatch(raw)
    if match:
        value, quoted = _unquote(match[3], raw)
        return _Token(raw, value, key=match[2].lower(), negated=bool(match[1]), quoted=quoted)
    if raw.startswith("-"):
        return _Token(raw, raw)  # an exclusion, refused by _check_word whatever its quoting
    value, _ = _unquote(raw, raw)
    return _Token(raw, value)


# --- Free text --------------------------------------------------------------------------------------------------------

_OPERATORS = {
    "OR": "Gitea applies every term together and cannot express alternatives. Run one search per alternative.",
    "AND": "every term already applies together. Remove AND.",
    "NOT": "Gitea's issue API cannot exclude anything. Drop NOT and the term after it.",
}


def _check_word(token: _Token) -> None:
    """Refuse the free-text forms GitHub gives a meaning Gitea would not honour; quoted text is always literal."""
    word = token.value
    if token.quoted:
        if not word.strip():
            raise BadArgument('The query has an empty phrase (""): put the words to find between the quotes.')
        return
    if word in _OPERATORS:
        raise BadArgument(f"The `{word}` operator is not supported: {_OPERATORS[word]}")
    if word.startswith("-") and len(word) > 1:
        raise BadArgument(
            f"`{word}` is an exclusion (-term), which is not supported: Gitea's issue API cannot exclude anything. "
            "Drop it, or drop the dash to search for the word itself."
        )
    if word.startswith("("):
        raise BadArgument(
            "Grouping with parentheses is not supported: Gitea applies every term together. Write the terms without "
            'parentheses, or quote text that contains one, e.g. "(beta)".'
        )


# --- Refused qualifiers -----------------------------------------------------------------------------------------------

_REFUSED = {
    "created": "Gitea filters dates on the updated time only. Use updated:>=2026-01-01 or drop the qualifier.",
    "closed": "Gitea cannot filter on the closing date. Use is:closed, optionally with updated:, or drop it.",
    "merged": "Gitea's issue API cannot filter on the merge date. Use is:pr, optionally with updated:, or drop it.",
    "sort": "Gitea always returns the newest created first and has no sort parameter. Drop it.",
    "reactions": "Gitea's issue API cannot filter on reactions. Drop it.",
    "comments": "Gitea's issue API cannot filter on the number of comments. Drop it.",
    "interactions": "Gitea's issue API cannot filter on interactions. Drop it.",
    "no": "Gitea's issue API cannot filter for a missing label, milestone or assignee. Drop it.",
    "in": "Gitea's keyword search always looks at title, body and comments together. Drop in: and keep the words.",
    "linked": "Gitea's issue API cannot filter on linked issues or pull requests. Drop it.",
    "draft": "Gitea's issue API cannot filter on draft pull requests. Use is:pr and check the results, or drop it.",
    "review": "Gitea's issue API cannot filter on the review state. Use is:pr, or drop it.",
    "review-requested": "Gitea's repository issue list has no review filter. Use is:pr, or drop it.",
    "reviewed-by": "Gitea's repository issue list has no reviewer filter. Use is:pr, or drop it.",
    "involves": "Gitea has no single 'involves' filter. Use one of author:, assignee: or mentions:.",
    "commenter": "Gitea's issue API cannot filter on commenters. Use mentions: or author:, or drop it.",
    "team": "Gitea's team filter selects repositories, not issues mentioning the team. Use org:OWNER, or drop it.",
    "language": "Gitea's issue API cannot filter on the repository language. Drop it.",
    "archived": "Gitea's issue API cannot filter on archived repositories. Drop it.",
    "project": "Gitea's issue API cannot filter on projects. Drop it.",
    "head": "Gitea's issue API cannot filter on branches. Drop it.",
    "base": "Gitea's issue API cannot filter on branches. Drop it.",
    "status": "Gitea's issue API cannot filter on CI status. Drop it.",
}
_IS_REFUSED = {
    "merged": "Gitea's issue API cannot tell merged pull requests apart. Use is:pr is:closed and check each result.",
    "unmerged": "Gitea's issue API cannot tell merged pull requests apart. Use is:pr is:closed and check each result.",
    "draft": "Gitea's issue API cannot filter on draft pull requests. Use is:pr and check the results.",
    "locked": "Gitea's issue API cannot filter on locked conversations. Drop it.",
    "unlocked": "Gitea's issue API cannot filter on locked conversations. Drop it.",
    "public": "Gitea's issue API cannot filter on repository visibility. Drop it.",
    "private": "Gitea's issue API cannot filter on repository visibility. Drop it.",
    "archived": "Gitea's issue API cannot filter on archived repositories. Drop it.",
    "blocked": "Gitea's issue API cannot filter on dependencies. Drop it.",
    "blocking": "Gitea's issue API cannot filter on dependencies. Drop it.",
}


# --- Building the result ----------------------------------------------------------------------------------------------

# Why two different values for one of these fields cannot both hold (or cannot be sent to Gitea).
_CONFLICT = {
    "state": "a query asks for one state. Keep one, or use state:all for open and closed together.",
    "type": "a query asks for issues or pull requests, not both. Run one search for each.",
    "milestone": "an issue has at most one milestone, so both can never match. Keep one milestone:.",
    "author": "an issue has one author, so both can never match. Keep one author:.",
    "assignee": "Gitea filters on one assignee only. Keep one assignee: and check the others in the results.",
    "mentions": "Gitea filters on one mentioned user only. Keep one mentions: and check the others in the results.",
    "repo": "this tool searches one repository at a time. Run one search per repository, or use org:OWNER.",
    "owner": "Gitea searches the repositories of one owner at a time. Keep one org:/user:/owner:.",
    "since": "both set the start of the updated range. Keep one, or write a range like updated:2026-01-01..2026-01-31.",
    "before": "both set the end of the updated range. Keep one, or write a range like updated:2026-01-01..2026-01-31.",
}
# Gitea user, organisation and repository names are case-insensitive; label and milestone names are not.
_CASELESS = {"author", "assignee", "mentions", "repo", "owner"}


@dataclass
class _Draft:
    keywords: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)  # field -> value, for the single-valued fields
    origin: dict[str, str] = field(default_factory=dict)  # field -> the token that set it, for conflict messages

    def set(self, name: str, value: str, raw: str) -> None:
        old = self.values.get(name)
        if old is None:
            self.values[name], self.origin[name] = value, raw
            return
        same = old.casefold() == value.casefold() if name in _CASELESS else old == value
        if not same:
            raise BadArgument(f"`{raw}` conflicts with `{self.origin[name]}`: {_CONFLICT[name]}")


_Handler = Callable[[_Draft, str, str], None]


def _on_is(draft: _Draft, value: str, raw: str) -> None:
    word = value.lower()
    if word in ("open", "closed"):
        draft.set("state", word, raw)
    elif word == "issue":
        draft.set("type", "issues", raw)
    elif word in ("pr", "pull"):
        draft.set("type", "pulls", raw)
    elif word in _IS_REFUSED:
        raise BadArgument(f"`is:{value}` is not supported: {_IS_REFUSED[word]}")
    else:
        raise BadArgument(f"`is:{value}` is not supported: use is:open, is:closed, is:issue or is:pr.")


def _on_state(draft: _Draft, value: str, raw: str) -> None:
    word = value.lower()
    if word not in ("open", "closed", "all"):
        raise BadArgument(f"`state:{value}` is not supported: use state:open, state:closed or state:all.")
    draft.set("state", word, raw)


_STATES: dict[str, State] = {"open": "open", "closed": "closed", "all": "all"}
_KINDS: dict[str, IssueType] = {"issues": "issues", "pulls": "pulls"}
_TYPES = {"issue": "issues", "issues": "issues", "pr": "pulls", "pull": "pulls", "pulls": "pulls"}


def _on_type(draft: _Draft, value: str, raw: str) -> None:
    kind = _TYPES.get(value.lower())
    if kind is None:
        raise BadArgument(f"`type:{value}` is not supported: use type:issue or type:pr.")
    draft.set("type", kind, raw)


_COMMA_ADVICE = {
    "label": "Repeat the qualifier (label:a label:b) to require all of them, or run one search per label",
    "milestone": "An issue has one milestone: run one search per milestone",
}


def _is_quoted(raw: str) -> bool:
    """Whether the qualifier's value was typed in quotes (`_unquote` allows quotes only around a whole value)."""
    return raw.partition(":")[2].startswith('"')


def _no_comma(key: str, value: str, raw: str) -> None:
    # GitHub reads an unquoted comma as any-of, which Gitea cannot do exactly; a quoted value is one name.
    if "," in value and not _is_quoted(raw):
        raise BadArgument(
            f"`{key}:{value}` has a comma, which is not supported unquoted: on GitHub it means any-of, which this "
            f"tool cannot map exactly. {_COMMA_ADVICE[key]}; if the comma is part of one name, quote it: "
            f'{key}:"{value}".'
        )


def _on_label(draft: _Draft, value: str, raw: str) -> None:
    _no_comma("label", value, raw)
    draft.labels.append(value)  # repeats are dropped once, at the end: a membership test here would be quadratic


def _on_milestone(draft: _Draft, value: str, raw: str) -> None:
    _no_comma("milestone", value, raw)
    draft.set("milestone", value, raw)


def _check_name(shown: str, value: str, what: str) -> str:
    # The URL path guard's rule (policy.is_name): letters, digits, - _ . and never "." or "..".
    if not is_name(value):
        raise BadArgument(
            f"`{shown}` has an invalid {what} name ({value!r}): Gitea names use letters, digits, '-', '_' and '.'. "
            "Check the spelling."
        )
    return value


def _user_handler(name: str) -> _Handler:
    def handle(draft: _Draft, value: str, raw: str) -> None:
        user = "@me" if value.lower() == "@me" else _check_name(f"{name}:{value}", value, "user")
        draft.set(name, user, raw)

    return handle


def _on_owner(draft: _Draft, value: str, raw: str) -> None:
    key = raw.split(":", 1)[0].lower()  # org:, user: or owner:
    draft.set("owner", _check_name(f"{key}:{value}", value, "owner"), raw)


def _on_repo(draft: _Draft, value: str, raw: str) -> None:
    owner, slash, name = value.partition("/")
    if not slash:
        raise BadArgument(f"`repo:{value}` needs the owner too: write repo:OWNER/NAME, e.g. repo:acme/widgets.")
    shown = f"repo:{value}"
    draft.set("repo", f"{_check_name(shown, owner, 'owner')}/{_check_name(shown, name, 'repository')}", raw)


# --- Dates ------------------------------------------------------------------------------------------------------------
#
# One rule for every tool (domain/dates.py): a day is a whole UTC day, and each bound becomes Gitea's inclusive
# whole second.


_OPERATORS_BY_LENGTH: tuple[dates.Op, ...] = (">=", "<=", ">", "<")


def _on_updated(draft: _Draft, value: str, raw: str) -> None:
    operator = next((op for op in _OPERATORS_BY_LENGTH if value.startswith(op)), None)
    rest = value[len(operator or "") :]
    shown = f"`{raw}`"
    if ".." in rest and not operator:
        _on_range(draft, rest, raw)
    elif operator is None:  # one day, or one second
        _on_range(draft, f"{rest}..{rest}", raw)
    else:
        draft.set(dates.side(operator), str(dates.bound(operator, rest, shown)), raw)


def _on_range(draft: _Draft, value: str, raw: str) -> None:
    low, _, high = value.partition("..")
    if low == high == "*":
        raise BadArgument(f"`{raw}` has no bound at all: give at least one date, e.g. updated:2026-01-01..*.")
    ends: tuple[tuple[dates.Op, str], ...] = ((">=", low), ("<=", high))
    for op, text in ends:
        if text != "*":
            draft.set(dates.side(op), str(dates.bound(op, text, f"`{raw}`")), raw)


def _rfc3339(unix: str | None) -> str | None:
    return None if unix is None else dates.rfc3339(int(unix))


# --- Parsing ----------------------------------------------------------------------------------------------------------

_HANDLERS: dict[str, _Handler] = {
    "is": _on_is,
    "state": _on_state,
    "type": _on_type,
    "label": _on_label,
    "milestone": _on_milestone,
    "author": _user_handler("author"),
    "assignee": _user_handler("assignee"),
    "mentions": _user_handler("mentions"),
    "updated": _on_updated,
    "repo": _on_repo,
    "org": _on_owner,
    "user": _on_owner,
    "owner": _on_owner,
}
_EXAMPLES = {
    "is": "is:open",
    "state": "state:closed",
    "type": "type:pr",
    "label": 'label:bug or label:"needs review"',
    "milestone": 'milestone:"v1.0 beta"',
    "updated": "updated:>=2026-01-01",
    "repo": "repo:acme/widgets",
}


def _apply(draft: _Draft, token: _Token) -> None:
    key = token.key
    if key is None:
        _check_word(token)
        draft.keywords.append(token.value)
        if token.quoted and " " in token.value.strip():
            draft.phrases.append(" ".join(token.value.split()))
        return
    if token.negated:
        raise BadArgument(
            f"`-{key}:` (a negation) is not supported: Gitea's issue API cannot exclude anything. "
            f"Drop the minus to filter for {key}:{token.value}, or drop the qualifier."
        )
    if key in _REFUSED:
        raise BadArgument(f"`{key}:` is not supported: {_REFUSED[key]}")
    handler = _HANDLERS.get(key)
    if handler is None:
        raise BadArgument(
            f"`{key}:` is not a supported qualifier. Supported: {SUPPORTED}. "
            f'If you meant it as text, put it in quotes: "{token.raw.replace(chr(34), "")}".'
        )
    value = token.value.strip()
    if not value:
        example = _EXAMPLES.get(key, f"{key}:alice")
        raise BadArgument(f"`{key}:` needs a value, e.g. {example}.")
    handler(draft, value, token.raw)


def _finish(text: str, draft: _Draft) -> ParsedQuery:
    values = draft.values
    if "since" in values and "before" in values and int(values["since"]) > int(values["before"]):
        shown = dict.fromkeys((draft.origin["since"], draft.origin["before"]))  # one token may set both
        raise BadArgument(
            f"{' and '.join(f'`{raw}`' for raw in shown)} leave an empty time range at Gitea's whole-second "
            "precision, so nothing can match. Check the dates."
        )
    repo = tuple(values["repo"].split("/", 1)) if "repo" in values else None
    owner = values.get("owner")
    if repo and owner and repo[0].casefold() != owner.casefold():
        raise BadArgument(
            f"`{draft.origin['repo']}` conflicts with `{draft.origin['owner']}`: the repository belongs to another "
            "owner. Drop one of them."
        )
    return ParsedQuery(
        text=text,
        keywords=" ".join(" ".join(k.split()) for k in draft.keywords),
        phrases=tuple(draft.phrases),
        state=_STATES.get(values.get("state", "")),
        type=_KINDS.get(values.get("type", "")),
        labels=tuple(dict.fromkeys(draft.labels)),
        milestones=(values["milestone"],) if "milestone" in values else (),
        author=values.get("author"),
        assignee=values.get("assignee"),
        mentions=values.get("mentions"),
        since=_rfc3339(values.get("since")),
        before=_rfc3339(values.get("before")),
        repo=(repo[0], repo[1]) if repo else None,
        owner=owner,
    )


def parse_query(text: str) -> ParsedQuery:
    """Parse a GitHub-like issue query; raise `BadArgument` (a ToolFailure) for anything Gitea cannot run exactly."""
    if not text.strip():
        raise BadArgument(
            "The query is empty: issue_search needs at least one word or qualifier, e.g. is:open label:bug. "
            "Use issue_list to list everything."
        )
    if len(text) > MAX_QUERY:
        raise BadArgument(
            f"The query is {len(text):,} characters long; keep it under {MAX_QUERY:,}: a few words and qualifiers "
            "find any issue."
        )
    draft = _Draft()
    for raw in _split(text):
        _apply(draft, _classify(raw))
    return _finish(text, draft)
