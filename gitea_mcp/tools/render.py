"""Compact text for the model and the result envelope every tool shares."""

from __future__ import annotations

import functools
import re
import shlex
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from gitea_mcp.domain.policy import DEFAULT_LIMIT, MAX_LIMIT, is_name

# Characters that render as nothing or reorder text: zero-width, bidirectional overrides and isolates,
# the Unicode "tag" block. In other people's text they only serve to hide instructions from a reader.
_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # C0 and C1 controls, DEL
_UNTRUSTED_END = "</untrusted>"
# Any spelling of the fence's tags inside other people's text: `</UNTRUSTED>`, `</untrusted >`, `< / untrusted\n>`,
# an opening tag too. Their `<` becomes `‹`, so nothing inside can close the fence or open a new one.
_FENCE_TAG = re.compile(r"<(?=\s*/?\s*untrusted)", re.IGNORECASE)


def clean(text: str) -> str:
    """Remove invisible, bidi-override and tag characters and C0/C1 controls (newlines and tabs stay)."""
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub("", text)
    return unicodedata.normalize("NFC", text)


def one_line(text: str) -> str:
    """Text made safe for one line of our own (an error, a fence's label): cleaned, newlines shown as ⏎, runs of
    spaces folded. Not for other people's titles and names in a result: those are `exact` (it reads back)."""
    if text.isascii() and text.isprintable() and "  " not in text and text == text.strip():
        return text  # most titles: nothing to clean (no controls, no invisible characters are ASCII-printable)
    text = clean(text).replace("\r\n", "\n").replace("\r", "\n").replace("\n", " ⏎ ").replace("\t", " ")
    return " ".join(text.split())


# What the text face never shows raw in other people's one-line text: what `clean` removes (invisible, bidi, tag
# characters, controls) and every whitespace character but the plain space (line breaks, tabs, no-break spaces).
_HIDDEN = re.compile(f"{_INVISIBLE.pattern}|{_CONTROL.pattern}|[^\\S ]")
_ESCAPED = re.compile(f'{_HIDDEN.pattern}|["\\\\]')
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code > 0xFFFF:  # JSON spells a character beyond the BMP (the tag block) as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def quoted(text: str) -> str:
    """The exact text as a JSON string: `"Double  spaced   title"`, `"Zero\\u200bwidth"`. Decoded, it is the text
    itself; shown, it holds no line break, control or invisible character (those are escaped, so a reader sees
    them instead of being fooled by them)."""
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def plain(text: str) -> bool:
    """Whether the text shown bare reads back exactly: no run of spaces, no space at either end, nothing hidden,
    not empty, and no leading quote (which would read as a quoted text)."""
    return bool(text) and not _HIDDEN.search(text) and "  " not in text and text.strip(" ") == text and text[0] != '"'


def exact(text: str) -> str:
    """Other people's one-line text (a title, a label or milestone name, an author) in the text face: as it is
    when that reads back exactly, else quoted JSON-style. Copied back into a tool (issue_update title=…, labels=…)
    it is the server's text, so it rewrites nothing: folding `Double  spaced   title` to single spaces would."""
    return text if plain(text) else quoted(text)


# Names recur from row to row (the same labels and assignees on most of a page), so their text face is kept: a
# dictionary lookup instead of two or three pattern searches each. Bounded, and a pure function of the name.
_NAMES_KEPT = 4096


@functools.lru_cache(maxsize=_NAMES_KEPT)
def user(name: str) -> str:
    """A user as the text face shows it: `@alice` when Gitea could have that user name, else the exact text quoted
    (a migrated issue's `original_author` is whatever the source forge sent: quoted, it is one string that cannot
    hold a line break, a fence tag's quote, or pass for an `@name`)."""
    return f"@{name}" if is_name(name) else quoted(name)


# What could pass for one of a row's fields after the title: [labels], @assignees, Nc, a date, or a quote.
_FIELD_LIKE = re.compile(r'[\[\]@"]|\b\d+c\b|\d{4}-\d\d-\d\d')
_LABEL_LIKE = re.compile(r'[\[\],"]')


def inline(text: str, risky: re.Pattern[str] = _FIELD_LIKE) -> str:
    """Other people's one-line text inside a row: `exact`, and quoted too when it could pass for another field
    (a title `Fix [security] @admin 9c` would otherwise read as labels, an assignee and a count)."""
    return quoted(text) if risky.search(text) else exact(text)


@functools.lru_cache(maxsize=_NAMES_KEPT)
def label_inline(name: str) -> str:
    return inline(name, _LABEL_LIKE)


# How each fact of an issue reads in a facts line; a fact that is empty is left out. Other people's text through
# `exact`, label names so that none can split the list.
_FACT_TEXT: dict[str, Callable[[Any], str]] = {
    "state": lambda v: f"state {v}",
    "author": lambda v: f"author {user(v)}",
    "created_at": lambda v: f"created {v}",
    "updated_at": lambda v: f"updated {v}",
    "closed_at": lambda v: f"closed {v}",
    "due_date": lambda v: f"due {v}",
    "milestone": lambda v: f"milestone {exact(v)}",
    "labels": lambda v: f"labels {', '.join(label_inline(name) for name in v)}",
    "assignees": lambda v: f"assignees {' '.join(user(a) for a in v)}",
}


def facts_line(model: BaseModel, fields: Iterable[str]) -> str:
    """`state open · author @alice · updated … · labels bug`: the one way every tool writes an issue's facts."""
    values = ((name, getattr(model, name)) for name in fields)
    return " · ".join(_FACT_TEXT[name](value) for name, value in values if value)


def clip(text: str, max_chars: int) -> tuple[str, bool]:
    """At most `max_chars` characters (0 means no limit), and whether anything was cut."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text, False
    return text[:max_chars], True


# The fence's source attribute as XML reads it: a quote or bracket in the label (a quoted user name) is a character
# reference, so nothing in the label can end the attribute or the tag.
_ATTRIBUTE = re.compile(r'[&"<>]')
_REFERENCES = {"&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;"}


def untrusted(label: str, text: str) -> str:
    """Wrap other people's text so a model can tell data from instructions, and so it cannot close the wrapper.
    Cleaned (render.clean): the text face never shows invisible or bidi characters; the structured face has the
    exact text."""
    body = _FENCE_TAG.sub("‹", clean(text))
    source = _ATTRIBUTE.sub(lambda m: _REFERENCES[m.group(0)], one_line(label))
    return f'<untrusted source="{source}">\n{body}\n{_UNTRUSTED_END}'


def counted(number: int, singular: str, plural: str | None = None) -> str:
    """`1 comment`, `2 comments`, `0 comments`."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def served_fewer(asked: int, size: int) -> str:
    """Why pages are `size`, not the limit asked for: more than MAX_LIMIT was asked (policy.cap_limit), and/or the
    server's own page-size cap (its MAX_RESPONSE_ITEMS) is smaller."""
    if asked > MAX_LIMIT and size >= MAX_LIMIT:
        return f"limit={asked} is capped at {MAX_LIMIT}, the most per page; pages are {size}."
    why = f"limit={asked} is capped at {MAX_LIMIT}, and" if asked > MAX_LIMIT else f"limit={asked}, but"
    return f"{why} this server serves at most {size} per page (its MAX_RESPONSE_ITEMS); pages are {size}."


def span(count: int, page: int, limit: int, total: int | None, has_more: bool) -> str:
    """`312 matches, showing 31–60` — or a definitive `0 matches`; without a total, say whether more exist."""
    first = (page - 1) * limit + 1
    if count == 0:
        if total:
            return f"{counted(total, 'match', 'matches')}, none on page {page} (pages end at {-(-total // limit)})"
        return "0 matches" if page == 1 else f"0 matches on page {page}"
    shown = f"showing {first}–{first + count - 1}"
    if total is not None:
        return f"{counted(total, 'match', 'matches')}, {shown}"
    more = "more may follow on the next page" if has_more else "no more pages"
    return f"{shown}, {more} (total unknown: Gitea sent no count)"


# What a shell (where `call` takes these) would read otherwise: spaces, quotes, `&` in a pasted link's query, ….
_SHELL_SPECIAL = re.compile(r"[\s\"'\\&;|$`()*?\[\]#~!{}]")


def args_text(args: Mapping[str, object]) -> str:
    """`owner=acme name=widgets labels="a b"` — how help lines spell a tool call; any value reads back whole
    (shell rules: a value holding a double quote is single-quoted)."""
    parts = []
    for key, value in args.items():
        text = str(value)
        if text and not _SHELL_SPECIAL.search(text):
            parts.append(f"{key}={text}")
        elif not re.search(r"[\"\\$`!]", text):  # what double quotes leave to the shell
            parts.append(f'{key}="{text}"')
        else:
            parts.append(f"{key}={shlex.quote(text)}")
    return " ".join(parts)


def next_page(tool: str, args: Mapping[str, object], page: int, limit: int) -> str:
    """The hint to the next page: every argument that shaped this one, the page size actually served included, so
    following it skips no row and repeats none."""
    size = {} if limit == DEFAULT_LIMIT else {"limit": limit}
    return f"next page: {tool} {args_text({**args, **size, 'page': page + 1})}"


def help_lines(lines: Iterable[str]) -> list[str]:
    return [f"help: {line}" for line in lines]
