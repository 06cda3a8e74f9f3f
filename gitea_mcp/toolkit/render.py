"""Compact text for the model and the result envelope every tool shares."""

from __future__ import annotations

import functools
import re
import shlex
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from gitea_mcp.domain.invisible import PATTERN as HIDDEN
from gitea_mcp.domain.invisible import scrub
from gitea_mcp.domain.policy import DEFAULT_LIMIT, MAX_LIMIT, is_name

# Other people's text is scrubbed in both faces (domain/invisible.py: controls, invisible, bidi and tag characters,
# variation selectors, fillers and blanks); what is left here is how the text face shows what remains.
_UNTRUSTED_END = "</untrusted>"


# The fence's tags as other people's text may spell them, to close the fence from inside or open one: any case
# and spacing (`</UNTRUSTED >`, `< / untrusted`), and look-alikes. Their opening bracket is what is neutralised: a
# character reference inside a fence, a JSON escape in a quoted name; either reads back as the text it was.
# `<` and the characters Unicode's confusables.txt (UTS #39) gives for it, with its compatibility forms (U+FE64
# SMALL, U+FF1C FULLWIDTH): ˂ ᐸ ᚲ ‹ 〈 ❮ ⟨ 〈 ﹤ ＜ 𝈶.
_OPENERS = "<\u02c2\u1438\u16b2\u2039\u2329\u276e\u27e8\u3008\ufe64\uff1c\U0001d236"
# `/` and confusables.txt's look-alikes of it (and U+FF0F FULLWIDTH SOLIDUS): ᜵ ⁁ ⁄ ∕ ╱ ⟋ ⧸ ⼃ 〳 ㇓ 丿 ／ 𝈺.
_SLASHES = "/\u1735\u2041\u2044\u2215\u2571\u27cb\u29f8\u2f03\u3033\u31d3\u4e3f\uff0f\U0001d23a"
_OPENER = f"[{_OPENERS}](?=\\s*[{_SLASHES}]?\\s*(?P<word>\\w{{1,24}}))"
_FENCE_TAG = re.compile(_OPENER)
# Letters of other scripts confusables.txt gives for those of "untrusted" (Cyrillic, Greek, Armenian, Cherokee,
# Lisu, small capitals, …); fullwidth and mathematical letters are folded by NFKC, case by casefold.
_LOOKALIKE = str.maketrans(
    {
        **dict.fromkeys("\u03c5\u057d\u1d1c\ua79f\u028b", "u"),
        **dict.fromkeys("\u0578\u057c\u039d", "n"),
        **dict.fromkeys("\u0422\u0442\u03a4\u13a2\ua4d4", "t"),
        **dict.fromkeys("\u0433\u1d26\u2c85\u13a1\u01a6\ua4e3", "r"),
        **dict.fromkeys("\u0455\u0405\ua731\u01bd\u054f\u13d5\ua4e2", "s"),
        **dict.fromkeys("\u0435\u0415\u0395\u04bd\u212e\u13ac\ua4f0", "e"),
        **dict.fromkeys("\u0501\u13e7\u146f\ua4d2\u13a0\u15de\ua4d3", "d"),
    }
)


def _is_fence_tag(match: re.Match[str]) -> bool:
    word = unicodedata.normalize("NFKC", match.group("word").translate(_LOOKALIKE)).casefold()
    return word.translate(_LOOKALIKE).startswith("untrusted")


def fence_tag(text: str) -> bool:
    """Whether `text` holds something a reader could take for the fence's opening or closing tag."""
    return any(_is_fence_tag(m) for m in _FENCE_TAG.finditer(text))


def _reference(match: re.Match[str]) -> str:
    char = match.group(0)
    if not _is_fence_tag(match):
        return char
    return "&lt;" if char == "<" else f"&#x{ord(char):X};"


def clean(text: str) -> str:
    """Other people's text as the text face shows it inside a fence: scrubbed (domain/invisible.py; newlines and
    tabs stay) and NFC-normalised, unless NFC would lengthen it (a few characters excluded from composition are
    written as two or three), so the text face is never longer than the text the answer's budget counted."""
    text = scrub(text)
    normal = unicodedata.normalize("NFC", text)
    return normal if len(normal) <= len(text) else text


def one_line(text: str) -> str:
    """Text made safe for one line of our own (an error, a fence's label): cleaned, newlines shown as ⏎, runs of
    spaces folded. Not for other people's titles and names in a result: those are `exact` (it reads back)."""
    if text.isascii() and text.isprintable() and "  " not in text and text == text.strip():
        return text  # most titles: nothing to clean (no controls, no invisible characters are ASCII-printable)
    text = clean(text).replace("\r\n", "\n").replace("\r", "\n").replace("\n", " ⏎ ").replace("\t", " ")
    return " ".join(text.split())


# What the text face never shows raw in other people's one-line text: what `scrub` removes (should any reach it)
# and every whitespace character but the plain space (line breaks, tabs, no-break spaces); a fence tag's bracket.
_HIDDEN = re.compile(f"{HIDDEN}|[^\\S ]")
_ESCAPED = re.compile(f'{_HIDDEN.pattern}|["\\\\]|{_OPENER}')
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if match.group("word") is not None and not _is_fence_tag(match):
        return char  # a bracket, but of no fence tag: `Vec<T>` stays as it is
    code = ord(char)
    if code > 0xFFFF:  # JSON spells a character beyond the BMP (the tag block) as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def quoted(text: str) -> str:
    """Other people's text, scrubbed, as a JSON string: `"Double  spaced   title"`, `"Tab\\there"`. Decoded, it is
    the text as the structured face holds it; shown, it holds no line break or control, and no fence tag: the
    bracket of one is escaped (`"\\u003c/untrusted>"`)."""
    return '"' + _ESCAPED.sub(_escape, scrub(text)) + '"'


def plain(text: str) -> bool:
    """Whether the text shown bare reads back exactly: no run of spaces, no space at either end, nothing hidden,
    not empty, no leading quote (which would read as a quoted text), and nothing that passes for a fence tag."""
    return (
        bool(text)
        and not _HIDDEN.search(text)
        and "  " not in text
        and text.strip(" ") == text
        and text[0] != '"'
        and not fence_tag(text)
    )


def exact(text: str) -> str:
    """Other people's one-line text (a title, a label or milestone name, an author) in the text face, scrubbed as
    the structured face holds it: as it is when that reads back exactly, else quoted JSON-style. Copied back into a
    tool (issue_update title=…, labels=…) it is that text, so it rewrites nothing visible: folding
    `Double  spaced   title` to single spaces would."""
    text = scrub(text)
    return text if plain(text) else quoted(text)


# Names recur from row to row (the same labels and assignees on most of a page), so their text face is kept: a
# dictionary lookup instead of two or three pattern searches each. Bounded, and a pure function of the name.
_NAMES_KEPT = 4096


@functools.lru_cache(maxsize=_NAMES_KEPT)
def user(name: str) -> str:
    """A user as the text face shows it: `@alice` when Gitea could have that user name, else the exact text quoted
    (a migrated issue's `original_author` is whatever the source forge sent: quoted, it is one string that cannot
    hold a line break, a fence tag's quote, or pass for an `@name`)."""
    return f"@{name}" if is_name(name) else quoted(name)  # a Gitea user name is ASCII letters, digits and .-_


# What could pass for one of a row's fields after the title: [labels], @assignees, Nc, a date, or a quote.
_FIELD_LIKE = re.compile(r'[\[\]@"]|\b\d+c\b|\d{4}-\d\d-\d\d')
_LABEL_LIKE = re.compile(r'[\[\],"]')


def inline(text: str, risky: re.Pattern[str] = _FIELD_LIKE) -> str:
    """Other people's one-line text inside a row: `exact`, and quoted too when it could pass for another field
    (a title `Fix [security] @admin 9c` would otherwise read as labels, an assignee and a count)."""
    text = scrub(text)
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
    Cleaned (`clean`) as the structured face is scrubbed; the bracket of anything passing for the fence's tags is
    a character reference (`&lt;/untrusted>`), as XML would write it."""
    body = _FENCE_TAG.sub(_reference, clean(text))
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


def showing(count: int, page: int, limit: int, total: int | None, has_more: bool) -> str:
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
