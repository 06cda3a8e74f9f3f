"""Table-driven tests for the issue_search query language: one row per qualifier form, refusal, quoting and edge."""

from __future__ import annotations

from typing import Any

import pytest

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.query import ParsedQuery, keyword_text, parse_query, repo_filter, search_filter


def repo_params(q: ParsedQuery, *, me: str | None = None) -> dict[str, str]:
    """The Gitea parameters the decision table compares: the filter written out for the repository list."""
    return repo_filter(q, me=me).list_params()


def search_params(q: ParsedQuery, *, me: str | None = None) -> dict[str, str]:
    """The same for the cross-repository search; an `org:` in the query names the owner."""
    return search_filter(q, me=me).search_params(q.owner)


# --- Accepted forms: query -> the ParsedQuery fields it sets (all others keep their defaults) -------------------------

PARSED: list[tuple[str, dict[str, Any]]] = [
    # free text
    ("crash", {"keywords": "crash"}),
    ("crash on   start", {"keywords": "crash on start"}),
    ('"exact phrase"', {"keywords": "exact phrase", "phrases": ("exact phrase",)}),
    ('crash "on start" now', {"keywords": "crash on start now", "phrases": ("on start",)}),
    ('"two  spaces"', {"keywords": "two spaces", "phrases": ("two spaces",)}),
    ('"error:timeout"', {"keywords": "error:timeout"}),
    ('"OR"', {"keywords": "OR"}),
    ('"-flag"', {"keywords": "-flag"}),
    ("or and not", {"keywords": "or and not"}),
    ("12:30 #42 @alice", {"keywords": "12:30 #42 @alice"}),
    ("fix(parser)", {"keywords": "fix(parser)"}),
    ("don't", {"keywords": "don't"}),
    ("a-b", {"keywords": "a-b"}),
    ("-", {"keywords": "-"}),
    # state
    ("is:open", {"state": "open"}),
    ("is:closed", {"state": "closed"}),
    ("IS:OPEN", {"state": "open"}),
    ("state:open", {"state": "open"}),
    ("state:closed", {"state": "closed"}),
    ("state:all", {"state": "all"}),
    ("is:open state:open", {"state": "open"}),
    ("is:closed is:closed", {"state": "closed"}),
    # type
    ("is:issue", {"type": "issues"}),
    ("is:pr", {"type": "pulls"}),
    ("is:pull", {"type": "pulls"}),
    ("type:issue", {"type": "issues"}),
    ("type:issues", {"type": "issues"}),
    ("type:pr", {"type": "pulls"}),
    ("type:pull", {"type": "pulls"}),
    ("type:pulls", {"type": "pulls"}),
    ("is:pr type:pr", {"type": "pulls"}),
    # labels
    ("label:bug", {"labels": ("bug",)}),
    ('label:"needs review"', {"labels": ("needs review",)}),
    ("label:needs-review", {"labels": ("needs-review",)}),
    ("label:kind/bug", {"labels": ("kind/bug",)}),
    ("label:priority::high", {"labels": ("priority::high",)}),
    ("label:bug label:ui", {"labels": ("bug", "ui")}),
    ("label:bug label:bug", {"labels": ("bug",)}),
    ('label:" bug "', {"labels": ("bug",)}),
    ("Label:Bug", {"labels": ("Bug",)}),
    # a quoted value is one name, commas and all (unquoted, a comma reads as any-of: refused below)
    ('label:"needs info, urgent"', {"labels": ("needs info, urgent",)}),
    ('label:"a,b" label:c', {"labels": ("a,b", "c")}),
    # milestone
    ("milestone:v1.0", {"milestones": ("v1.0",)}),
    ('milestone:"v1.0 beta"', {"milestones": ("v1.0 beta",)}),
    ('milestone:"Sprint, week 3"', {"milestones": ("Sprint, week 3",)}),
    ("milestone:v1 milestone:v1", {"milestones": ("v1",)}),
    # users
    ("author:alice", {"author": "alice"}),
    ("author:@me", {"author": "@me"}),
    ("author:@ME", {"author": "@me"}),
    ("author:alice author:Alice", {"author": "alice"}),
    ("assignee:bob", {"assignee": "bob"}),
    ("assignee:@me", {"assignee": "@me"}),
    ("mentions:carol.d", {"mentions": "carol.d"}),
    ("mentions:@me", {"mentions": "@me"}),
    ("author:a_b-c.d", {"author": "a_b-c.d"}),
    # repository and owner
    ("repo:acme/widgets", {"repo": ("acme", "widgets")}),
    ("repo:acme/widgets repo:ACME/Widgets", {"repo": ("acme", "widgets")}),
    ("org:acme", {"owner": "acme"}),
    ("user:alice", {"owner": "alice"}),
    ("owner:acme", {"owner": "acme"}),
    ("org:acme owner:ACME", {"owner": "acme"}),
    ("repo:acme/widgets org:ACME", {"repo": ("acme", "widgets"), "owner": "ACME"}),
    # everything together
    (
        'is:open is:pr label:bug label:"needs review" milestone:v2 author:@me assignee:bob mentions:carol '
        'updated:>=2026-01-01 repo:acme/widgets flaky "time out"',
        {
            "keywords": "flaky time out",
            "phrases": ("time out",),
            "state": "open",
            "type": "pulls",
            "labels": ("bug", "needs review"),
            "milestones": ("v2",),
            "author": "@me",
            "assignee": "bob",
            "mentions": "carol",
            "since": "2026-01-01T00:00:00Z",
            "repo": ("acme", "widgets"),
        },
    ),
]


@pytest.mark.parametrize(("text", "fields"), PARSED)
def test_parse_accepts(text: str, fields: dict[str, Any]) -> None:
    assert parse_query(text) == ParsedQuery(text=text, **fields)


@pytest.mark.parametrize(
    ("text", "plain", "quoted"),
    [
        ("crash", "crash", "crash"),
        ('"exact phrase"', "exact phrase", '"exact phrase"'),
        ('crash "on start" now', "crash on start now", 'crash "on start" now'),
        ('start "on start" again', "start on start again", 'start "on start" again'),
        ('"a b" "c d"', "a b c d", '"a b" "c d"'),
        ('"single"', "single", "single"),
    ],
)
def test_keyword_text_keeps_phrases_only_when_asked(text: str, plain: str, quoted: str) -> None:
    """Forgejo 11+ reads quotes in `q`; Gitea's index matches the words as one phrase anyway."""
    parsed = parse_query(text)
    assert (keyword_text(parsed, quotes=False), keyword_text(parsed, quotes=True)) == (plain, quoted)


@pytest.mark.parametrize("text", [" label:bug ", "\tcrash\n", "a  b"])
def test_text_is_kept_exactly(text: str) -> None:
    assert parse_query(text).text == text


# --- Dates: Gitea compares since <= updated_unix <= before, whole seconds, both inclusive -----------------------------

DATES: list[tuple[str, str | None, str | None]] = [
    ("updated:>=2026-01-01", "2026-01-01T00:00:00Z", None),
    ("updated:>2026-01-01", "2026-01-02T00:00:00Z", None),
    ("updated:<2026-01-01", None, "2025-12-31T23:59:59Z"),
    ("updated:<=2026-01-01", None, "2026-01-01T23:59:59Z"),
    ("updated:2026-01-01", "2026-01-01T00:00:00Z", "2026-01-01T23:59:59Z"),
    ("updated:2026-01-01..2026-01-31", "2026-01-01T00:00:00Z", "2026-01-31T23:59:59Z"),
    ("updated:2026-01-01..2026-01-01", "2026-01-01T00:00:00Z", "2026-01-01T23:59:59Z"),
    ("updated:2026-01-01..*", "2026-01-01T00:00:00Z", None),
    ("updated:*..2026-01-31", None, "2026-01-31T23:59:59Z"),
    # month, year and leap-day edges
    ("updated:<2026-03-01", None, "2026-02-28T23:59:59Z"),
    ("updated:<2024-03-01", None, "2024-02-29T23:59:59Z"),
    ("updated:>2024-02-28", "2024-02-29T00:00:00Z", None),
    ("updated:>2025-12-31", "2026-01-01T00:00:00Z", None),
    ("updated:<=2025-12-31", None, "2025-12-31T23:59:59Z"),
    ("updated:<=9999-12-31", None, "9999-12-31T23:59:59Z"),
    ("updated:9999-12-31", "9999-12-31T00:00:00Z", "9999-12-31T23:59:59Z"),
    # RFC 3339 times: whole seconds map onto themselves
    ("updated:>=2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z", None),
    ("updated:>2026-01-31T12:00:00Z", "2026-01-31T12:00:01Z", None),
    ("updated:<2026-01-31T12:00:00Z", None, "2026-01-31T11:59:59Z"),
    ("updated:<=2026-01-31T12:00:00Z", None, "2026-01-31T12:00:00Z"),
    ("updated:2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z"),
    ("updated:2026-01-31t12:00:00z", "2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z"),
    # offsets are converted to UTC
    ("updated:>=2026-01-01T01:30:00+02:00", "2025-12-31T23:30:00Z", None),
    ("updated:<2026-01-01T00:00:00-05:00", None, "2026-01-01T04:59:59Z"),
    # fractions lie between two whole seconds
    ("updated:>=2026-01-31T12:00:00.5Z", "2026-01-31T12:00:01Z", None),
    ("updated:>2026-01-31T12:00:00.5Z", "2026-01-31T12:00:01Z", None),
    ("updated:<=2026-01-31T12:00:00.5Z", None, "2026-01-31T12:00:00Z"),
    ("updated:<2026-01-31T12:00:00.5Z", None, "2026-01-31T12:00:00Z"),
    ("updated:>=2026-01-31T12:00:00.000Z", "2026-01-31T12:00:00Z", None),
    # mixed range, and two one-sided qualifiers making one range
    ("updated:2026-01-01..2026-01-31T12:00:00Z", "2026-01-01T00:00:00Z", "2026-01-31T12:00:00Z"),
    ("updated:>=2026-01-01 updated:<2026-02-01", "2026-01-01T00:00:00Z", "2026-01-31T23:59:59Z"),
    ("updated:>=2026-01-01 updated:>=2026-01-01", "2026-01-01T00:00:00Z", None),
    # the earliest accepted bounds
    ("updated:>=1970-01-01", "1970-01-01T00:00:00Z", None),
    ("updated:<=1970-01-01T00:00:01Z", None, "1970-01-01T00:00:01Z"),
]


@pytest.mark.parametrize(("text", "since", "before"), DATES)
def test_updated_maps_onto_since_and_before(text: str, since: str | None, before: str | None) -> None:
    parsed = parse_query(text)
    assert (parsed.since, parsed.before) == (since, before)


# --- Refusals: query -> fragments the message must contain (the first names the qualifier or token) ------------------

REFUSED: list[tuple[str, tuple[str, ...]]] = [
    # empty and quoting
    ("", ("empty", "issue_list")),
    ("   \t\n", ("empty", "issue_list")),
    ('"unbalanced', ("unbalanced",)),
    ('label:"needs review', ("unbalanced",)),
    ('a "b" "c', ("unbalanced",)),
    ('""', ("empty phrase",)),
    ('"   "', ("empty phrase",)),
    ('"foo"bar', ('`"foo"bar`', "quotes")),
    ('foo"bar baz"', ('`foo"bar baz"`', "quotes")),
    ('label:"a"b', ('`label:"a"b`', "quotes")),
    # qualifiers Gitea cannot express
    ("created:>2026-01-01", ("`created:`", "updated:>=2026-01-01")),
    ("closed:>2026-01-01", ("`closed:`", "is:closed")),
    ("merged:>2026-01-01", ("`merged:`",)),
    ("sort:created-asc", ("`sort:`", "newest")),
    ("SORT:updated", ("`sort:`",)),
    ("reactions:>10", ("`reactions:`",)),
    ("comments:>5", ("`comments:`",)),
    ("interactions:>5", ("`interactions:`",)),
    ("no:label", ("`no:`",)),
    ("no:assignee", ("`no:`",)),
    ("in:title crash", ("`in:`", "title, body and comments")),
    ("linked:pr", ("`linked:`",)),
    ("draft:true", ("`draft:`",)),
    ("review:approved", ("`review:`",)),
    ("review-requested:@me", ("`review-requested:`",)),
    ("reviewed-by:alice", ("`reviewed-by:`",)),
    ("involves:alice", ("`involves:`", "author:")),
    ("commenter:alice", ("`commenter:`",)),
    ("team:acme/core", ("`team:`",)),
    ("language:go", ("`language:`",)),
    ("archived:false", ("`archived:`",)),
    ("project:acme/1", ("`project:`",)),
    ("head:feature", ("`head:`",)),
    ("base:main", ("`base:`",)),
    ("status:success", ("`status:`",)),
    ("sort:", ("`sort:`",)),
    # is: values
    ("is:merged", ("`is:merged`",)),
    ("is:unmerged", ("`is:unmerged`",)),
    ("is:draft", ("`is:draft`",)),
    ("is:locked", ("`is:locked`",)),
    ("is:unlocked", ("`is:unlocked`",)),
    ("is:public", ("`is:public`",)),
    ("is:private", ("`is:private`",)),
    ("is:archived", ("`is:archived`",)),
    ("is:blocked", ("`is:blocked`",)),
    ("is:queued", ("`is:queued`", "is:open, is:closed, is:issue or is:pr")),
    ("is:open,closed", ("`is:open,closed`",)),
    ("state:merged", ("`state:merged`", "state:all")),
    ("type:discussion", ("`type:discussion`", "type:pr")),
    # unknown qualifiers: tell them to quote text
    ("error:timeout", ("`error:`", "not a supported qualifier", '"error:timeout"', "label:")),
    ("https://example.com/x", ("`https:`", '"https://example.com/x"')),
    ('foo:"bar baz"', ("`foo:`", '"foo:bar baz"')),
    ("foo:", ("`foo:`",)),
    # negations and operators
    ("-label:bug", ("`-label:`", "negation", "label:bug")),
    ("-is:closed", ("`-is:`",)),
    ("-author:alice", ("`-author:`",)),
    ("-crash", ("`-crash`", "exclusion")),
    ('-"crash now"', ('`-"crash now"`', "exclusion")),
    ("crash NOT flaky", ("`NOT`",)),
    ("label:bug OR label:ui", ("`OR`", "one search per alternative")),
    ("crash AND flaky", ("`AND`",)),
    ("(label:bug OR label:ui)", ("parentheses",)),
    # empty values
    ("label:", ("`label:`", "needs a value")),
    ('label:""', ("`label:`", "needs a value")),
    ('label:"  "', ("`label:`", "needs a value")),
    ("milestone:", ("`milestone:`", "needs a value")),
    ("author:", ("`author:`", "needs a value")),
    ("assignee:", ("`assignee:`", "needs a value")),
    ("mentions:", ("`mentions:`", "needs a value")),
    ("updated:", ("`updated:`", "needs a value")),
    ("repo:", ("`repo:`", "needs a value")),
    ("org:", ("`org:`", "needs a value")),
    ("is:", ("`is:`", "needs a value")),
    # commas
    ("label:bug,ui", ("`label:bug,ui`", "comma", "label:a label:b", 'label:"bug,ui"')),
    ("milestone:v1,v2", ("`milestone:v1,v2`", "comma", "one search per milestone", 'milestone:"v1,v2"')),
    # conflicts
    ("is:open is:closed", ("`is:closed` conflicts with `is:open`", "state:all")),
    ("state:all is:open", ("`is:open` conflicts with `state:all`",)),
    ("is:issue is:pr", ("`is:pr` conflicts with `is:issue`",)),
    ("type:pr is:issue", ("`is:issue` conflicts with `type:pr`",)),
    ("milestone:v1 milestone:v2", ("`milestone:v2` conflicts with `milestone:v1`", "one milestone")),
    ("author:alice author:bob", ("`author:bob` conflicts with `author:alice`",)),
    ("assignee:alice assignee:bob", ("`assignee:bob` conflicts with `assignee:alice`",)),
    ("mentions:alice mentions:@me", ("`mentions:@me` conflicts with `mentions:alice`",)),
    ("repo:acme/a repo:acme/b", ("`repo:acme/b` conflicts with `repo:acme/a`",)),
    ("org:acme user:other", ("`user:other` conflicts with `org:acme`",)),
    ("repo:acme/widgets org:other", ("`repo:acme/widgets` conflicts with `org:other`", "another owner")),
    ("org:other repo:acme/widgets", ("`repo:acme/widgets` conflicts with `org:other`",)),
    ("updated:>=2026-01-01 updated:>2026-02-01", ("`updated:>2026-02-01` conflicts with `updated:>=2026-01-01`",)),
    ("updated:<2026-01-01 updated:2026-02-01", ("`updated:2026-02-01` conflicts with `updated:<2026-01-01`",)),
    ("updated:>=2026-02-01 updated:<2026-01-01", ("empty time range",)),
    ("updated:2026-02-01..2026-01-01", ("`updated:2026-02-01..2026-01-01` leave", "empty time range")),
    ("updated:2026-01-31T12:00:00.5Z", ("`updated:2026-01-31T12:00:00.5Z` leave", "empty time range")),
    # names
    ("repo:widgets", ("`repo:widgets`", "OWNER/NAME")),
    ("repo:acme/", ("`repo:acme/`", "invalid repository name")),
    ("repo:/widgets", ("`repo:/widgets`", "invalid owner name")),
    ("repo:acme/../x", ("`repo:acme/../x`", "invalid repository name")),
    ("repo:acme/wid*gets", ("`repo:acme/wid*gets`", "invalid repository name", "'wid*gets'")),
    ("repo:acme/widgets/x", ("`repo:acme/widgets/x`", "invalid")),
    ("org:..", ("`org:..`", "invalid owner name")),
    ("owner:a/b", ("`owner:a/b`", "invalid owner name")),
    ('author:"al ice"', ("`author:al ice`", "invalid user name")),
    ("assignee:bob!", ("`assignee:bob!`",)),
    # dates
    ("updated:2026-13-01", ("`updated:2026-13-01`", "not a valid date or time", "YYYY-MM-DD", "2026-01-31T12:00:00Z")),
    ("updated:2026-02-30", ("`updated:2026-02-30`", "not a valid date or time")),
    ("updated:>=2026-1-5", ("`updated:>=2026-1-5`", "not a valid date or time")),
    ("updated:>=yesterday", ("not a valid date or time",)),
    ("updated:>=2026-01-01T10:00:00", ("not a valid date or time", "RFC 3339")),
    ("updated:>=2026-01-01T10:00Z", ("not a valid date or time",)),
    ("updated:>=2026-01-01T25:00:00Z", ("not a valid date or time",)),
    ("updated:>=2026-01-01T10:00:00+24:00", ("not a valid date or time",)),
    ("updated:>=", ("not a valid date or time",)),
    ("updated:>=>2026-01-01", ("not a valid date or time",)),
    ("updated:=2026-01-01", ("not a valid date or time",)),
    ("updated:>2026-01-01..2026-02-01", ("not a valid date or time",)),
    ("updated:*..*", ("no bound",)),
    ("updated:2026-01-01..", ("not a valid date or time",)),
    ("updated:>9999-12-31", ("`updated:>9999-12-31`", "9999-12-31")),
    ("updated:>=9999-12-31T23:59:59.5Z", ("9999-12-31",)),
    ("updated:<1970-01-01", ("`updated:<1970-01-01`", "1970")),
    ("updated:<=1970-01-01T00:00:00Z", ("1970",)),
    ("updated:>=1969-12-31", ("1970",)),
]


@pytest.mark.parametrize(("text", "fragments"), REFUSED)
def test_parse_refuses(text: str, fragments: tuple[str, ...]) -> None:
    with pytest.raises(ToolFailure) as caught:
        parse_query(text)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_space_ends_an_unquoted_value() -> None:
    assert parse_query("author:al ice") == ParsedQuery(text="author:al ice", author="al", keywords="ice")


@pytest.mark.parametrize(("text", "_"), REFUSED)
def test_refusal_messages_are_short_and_actionable(text: str, _: tuple[str, ...]) -> None:
    with pytest.raises(ToolFailure) as caught:
        parse_query(text)
    message = str(caught.value)
    assert message.endswith((".", '."')), message
    assert len(message) < 700, message


# --- repo_params: GET /repos/{o}/{r}/issues ---------------------------------------------------------------------------

REPO_PARAMS: list[tuple[str, dict[str, str]]] = [
    # merge rules: state all and type issues unless the query names them
    ("crash", {"state": "all", "type": "issues", "q": "crash"}),
    ("is:open crash", {"state": "open", "type": "issues", "q": "crash"}),
    ("is:closed", {"state": "closed", "type": "issues"}),
    ("state:all", {"state": "all", "type": "issues"}),
    ("is:pr", {"state": "all", "type": "pulls"}),
    ("type:pr is:open", {"state": "open", "type": "pulls"}),
    ("is:issue", {"state": "all", "type": "issues"}),
    # filters
    ("label:bug", {"state": "all", "type": "issues", "labels": "bug"}),
    ('label:bug label:"needs review"', {"state": "all", "type": "issues", "labels": "bug,needs review"}),
    ('milestone:"v1.0 beta"', {"state": "all", "type": "issues", "milestones": "v1.0 beta"}),
    ("author:alice", {"state": "all", "type": "issues", "created_by": "alice"}),
    ("assignee:bob", {"state": "all", "type": "issues", "assigned_by": "bob"}),
    ("mentions:carol", {"state": "all", "type": "issues", "mentioned_by": "carol"}),
    (
        "updated:2026-01-01..2026-01-31",
        {"state": "all", "type": "issues", "since": "2026-01-01T00:00:00Z", "before": "2026-01-31T23:59:59Z"},
    ),
    ("updated:<2026-01-01", {"state": "all", "type": "issues", "before": "2025-12-31T23:59:59Z"}),
    # repo:/org: choose the endpoint; they are no parameters of it
    ("repo:acme/widgets", {"state": "all", "type": "issues"}),
    ("repo:acme/widgets org:acme crash", {"state": "all", "type": "issues", "q": "crash"}),
    # several labels are all-of here, which is what the query means
    ("label:a label:b label:c", {"state": "all", "type": "issues", "labels": "a,b,c"}),
]


@pytest.mark.parametrize(("text", "params"), REPO_PARAMS)
def test_repo_params(text: str, params: dict[str, str]) -> None:
    assert repo_params(parse_query(text)) == params


@pytest.mark.parametrize(
    ("text", "params"),
    [
        ("author:@me", {"state": "all", "type": "issues", "created_by": "bob"}),
        ("assignee:@me", {"state": "all", "type": "issues", "assigned_by": "bob"}),
        ("mentions:@me", {"state": "all", "type": "issues", "mentioned_by": "bob"}),
        ("author:alice", {"state": "all", "type": "issues", "created_by": "alice"}),
    ],
)
def test_repo_params_resolve_me(text: str, params: dict[str, str]) -> None:
    assert repo_params(parse_query(text), me="bob") == params


@pytest.mark.parametrize("qualifier", ["author", "assignee", "mentions"])
def test_repo_params_refuse_unresolved_me(qualifier: str) -> None:
    with pytest.raises(ToolFailure, match=f"`{qualifier}:@me`"):
        repo_params(parse_query(f"{qualifier}:@me"))


# --- search_params: GET /repos/issues/search --------------------------------------------------------------------------

SEARCH_PARAMS: list[tuple[str, str | None, dict[str, str]]] = [
    ("crash", None, {"state": "all", "type": "issues", "q": "crash"}),
    ("is:open is:pr", None, {"state": "open", "type": "pulls"}),
    ("org:acme crash", None, {"state": "all", "type": "issues", "owner": "acme", "q": "crash"}),
    ("user:alice", None, {"state": "all", "type": "issues", "owner": "alice"}),
    ("label:bug", None, {"state": "all", "type": "issues", "labels": "bug"}),
    ("label:bug label:bug", None, {"state": "all", "type": "issues", "labels": "bug"}),
    ("milestone:v1", None, {"state": "all", "type": "issues", "milestones": "v1"}),
    ("author:alice", None, {"state": "all", "type": "issues", "created_by": "alice"}),
    ("author:@me", None, {"state": "all", "type": "issues", "created": "true"}),
    ("assignee:@me", None, {"state": "all", "type": "issues", "assigned": "true"}),
    ("mentions:@me", None, {"state": "all", "type": "issues", "mentioned": "true"}),
    # a named user who is the caller maps onto the caller's booleans
    ("author:Bob", "bob", {"state": "all", "type": "issues", "created": "true"}),
    ("assignee:bob", "bob", {"state": "all", "type": "issues", "assigned": "true"}),
    ("mentions:BOB", "bob", {"state": "all", "type": "issues", "mentioned": "true"}),
    (
        "author:@me assignee:@me mentions:@me",
        None,
        {"state": "all", "type": "issues", "created": "true", "assigned": "true", "mentioned": "true"},
    ),
    ("updated:>=2026-01-01", None, {"state": "all", "type": "issues", "since": "2026-01-01T00:00:00Z"}),
    (
        "updated:2026-01-05",
        None,
        {"state": "all", "type": "issues", "since": "2026-01-05T00:00:00Z", "before": "2026-01-05T23:59:59Z"},
    ),
]


@pytest.mark.parametrize(("text", "me", "params"), SEARCH_PARAMS)
def test_search_params(text: str, me: str | None, params: dict[str, str]) -> None:
    assert search_params(parse_query(text), me=me) == params


SEARCH_REFUSED: list[tuple[str, str | None, tuple[str, ...]]] = [
    ("label:bug label:ui", None, ("`label:`", "ANY", "repo:OWNER/NAME")),
    ("assignee:alice", None, ("`assignee:alice`", "assignee:@me", "repo:OWNER/NAME")),
    ("assignee:alice", "bob", ("`assignee:alice`",)),
    ("mentions:alice", None, ("`mentions:alice`", "mentions:@me")),
    # Gitea's search splits names on commas and looks each part up on the whole server (verified, 1.25.4)
    ('label:"org, wide"', None, ('`label:"org, wide"`', "comma", "repo:OWNER/NAME")),
    ('milestone:"Sprint, week 3"', None, ('`milestone:"Sprint, week 3"`', "comma", "repo:OWNER/NAME")),
]


@pytest.mark.parametrize(("text", "me", "fragments"), SEARCH_REFUSED)
def test_search_params_refuse(text: str, me: str | None, fragments: tuple[str, ...]) -> None:
    with pytest.raises(ToolFailure) as caught:
        search_params(parse_query(text), me=me)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_search_params_is_not_for_one_repository() -> None:
    with pytest.raises(ValueError, match="repo_filter"):
        search_params(parse_query("repo:acme/widgets"))


def test_parsed_query_is_immutable() -> None:
    parsed = parse_query("label:bug")
    with pytest.raises(AttributeError):
        parsed.labels = ()  # type: ignore[misc]


def test_a_long_query_is_refused_before_parsing() -> None:
    with pytest.raises(ToolFailure, match="The query is 30,000 characters long; keep it under 2,000"):
        parse_query("label:x " * 3750)


def test_the_longest_query_allowed_parses() -> None:
    text = " ".join(f"label:l{i:03d}" for i in range(181))  # 1,990 characters, 181 labels
    assert len(text) <= 2000 and len(parse_query(text).labels) == 181
