"""How the real servers cut an issue title longer than 255 bytes, read from their code (modules/util/truncate.go),
on UTF-8 bytes as Go holds them.

The stand-in's own reading, never the product's (gitea_mcp/gitea/titles.py): the contract suite compares what each
says against the real servers, and a belief shared by both would pass unnoticed.
- Gitea 1.24 and later: `EllipsisDisplayString(title, 255)`.
- Gitea before 1.24, and Forgejo: `SplitStringAtByteN(title, 255)`, the part before the cut.
"""

from __future__ import annotations

import unicodedata

LIMIT = 255
ELLIPSIS = "…".encode()


def go_string(text: str) -> bytes:
    """The bytes Go's JSON decoder gives for this string: a lone surrogate becomes U+FFFD (utf8.RuneError)."""
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode()


def split_at_byte_n(text: str, n: int = LIMIT) -> str:
    """SplitStringAtByteN's left part: whole runes while they fit in n - 3 bytes, then "…" (the input is valid
    UTF-8: it came through JSON)."""
    data = go_string(text)
    if len(data) <= n:
        return data.decode()
    end = 0
    while end <= n - 3:
        size = _rune_size(data, end)
        if end + size > n - 3:
            break
        end += size
    return (data[:end] + ELLIPSIS).decode()


def ellipsis_display_string(text: str, limit: int = LIMIT) -> str:
    """ellipsisDisplayString with ellipsisDisplayGuessWidth: runes while their guessed width and 3 more fit; a
    rest of at most 3 runes (12 bytes) that fits whole is kept instead of the ellipsis."""
    data = go_string(text)
    if len(data) <= limit:
        return data.decode()
    pos = used = offset = 0
    invalid = False
    index = 0
    for rune in data.decode():
        invalid = invalid or rune == "\ufffd"
        pos = index
        width = _guess_width(rune)
        if used + width + 3 > limit:
            break
        used += width
        size = len(rune.encode())
        offset += size
        index += size
    if len(data) - pos <= 12:
        rest = data[pos:].decode()[:4]
        if len(rest) <= 3 and used + sum(map(_guess_width, rest)) <= limit:
            return data.decode()
    return (data[:offset] + (b"..." if invalid else ELLIPSIS)).decode()


def _guess_width(rune: str) -> int:
    if ord(rune) <= 255:
        return 1
    if rune == "\u3000":
        return 2
    category = unicodedata.category(rune)
    return 1 if category[0] in "MZ" or category in ("Cf", "Cs") else 2


def _rune_size(data: bytes, at: int) -> int:
    lead = data[at]
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
