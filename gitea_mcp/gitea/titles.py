"""How Gitea shortens an issue title, so a tool knows what Gitea will keep before it writes.

Gitea stores a title of at most 255 bytes whole and cuts a longer one, on create and on edit alike, appending "…"
(docs/server-behaviour.md, "Long titles"). How it cuts depends on the release (`ServerInfo.cuts_titles_by_width`):

- Gitea from 1.24, `util.EllipsisDisplayString(title, 255)`: by display width, not bytes (a character up to U+00FF
  counts 1, marks, format characters and spaces 1, the rest 2), to at most 252, then "…" ("..." when the title
  holds U+FFFD); a rest of up to three characters that still fits in 255 stays instead. 300 × "a" becomes
  252 × "a" + "…", 130 × "漢" becomes 126 × "漢" + "…" (381 bytes), 200 × "é" (400 bytes) stays whole.
- Gitea before 1.24 and Forgejo, `util.SplitStringAtByteN(title, 255)`: the whole characters of the first 252
  bytes, then "…" (255 bytes at most): 130 × "漢" becomes 84 × "漢" + "…".

The duplicate check compares what Gitea kept with what it would keep of the new call's title, and an edit to a
title whose cut is the current title changes nothing (Gitea would still record a title change).
"""

from __future__ import annotations

import unicodedata

LIMIT = 255
_ELLIPSIS, _ASCII_ELLIPSIS = "…", "..."
_INVALID = "\ufffd"  # Go's utf8.RuneError: also what Go's JSON decoder makes of a lone surrogate


def may_cut(title: str) -> bool:
    """Whether any release would shorten this title (then which one answers matters)."""
    return len(_as_go(title).encode()) > LIMIT


def stem(title: str) -> str:
    """What every title Gitea could store as it stores this one starts with: its first 250 bytes (a cut keeps at
    least 251: each character counts at most as wide as its bytes, and the cut stops at a width of 251 or more)."""
    return _as_go(title).encode()[:250].decode(errors="ignore")


def cut(title: str, *, by_width: bool) -> str:
    """The title as Gitea stores it."""
    text = _as_go(title)
    if len(text.encode()) <= LIMIT:
        return text
    if not by_width:  # SplitStringAtByteN: a JSON-decoded title is valid UTF-8, so always "…"
        return text.encode()[: LIMIT - 3].decode(errors="ignore") + _ELLIPSIS
    return _cut_by_width(text)


def is_cut(title: str, *, by_width: bool) -> bool:
    """Whether Gitea will store less than this title."""
    return cut(title, by_width=by_width) != _as_go(title)


def _cut_by_width(text: str) -> str:
    """A port of ellipsisDisplayString(str, 255, ellipsisDisplayGuessWidth) in Gitea's modules/util/truncate.go."""
    used = kept = 0
    invalid = False
    for char in text:
        invalid = invalid or char == _INVALID
        width = _width(char)
        if used + width + 3 > LIMIT:  # room for the ellipsis
            break
        used += width
        kept += 1
    rest = text[min(kept, len(text) - 1) :]  # from the character that did not fit (Go's loop variable)
    if len(rest.encode()) <= 12 and len(rest) <= 3 and used + sum(map(_width, rest)) <= LIMIT:
        return text  # a few characters more fit without the ellipsis
    return text[:kept] + (_ASCII_ELLIPSIS if invalid else _ELLIPSIS)


def _as_go(title: str) -> str:
    return "".join(_INVALID if 0xD800 <= ord(char) <= 0xDFFF else char for char in title)


def _width(char: str) -> int:
    """Gitea's guess of a character's display width (ellipsisDisplayGuessWidth): never 0."""
    if ord(char) <= 0xFF:
        return 1
    if char == "\u3000":  # the ideographic space
        return 2
    category = unicodedata.category(char)
    return 1 if category[0] in "MZ" or category in ("Cf", "Cs") else 2
