"""Characters forge text never brings into an answer: they render as nothing (or as a blank that is no space),
reorder the text around them, or drive a terminal. In a title, a name or a comment they only serve to hide words
from the reader, or to make two names that look the same differ; so both faces of every answer drop them
(docs/decisions/0004-output-contract.md), and names an agent sends back are matched without them (`same`).

The set, by Unicode 16.0's own lists (tests/domain/test_invisible.py checks it against `unicodedata` over every
code point, and against the lists below):
- controls (general category Cc): C0 but tab, line feed and carriage return, DEL, and C1 (U+009B is the 8-bit
  CSI that starts a terminal escape);
- format characters (Cf: zero-width space and joiners, bidirectional overrides and isolates, the tag block, …),
  but the prepended concatenation marks (PropList.txt's Prepended_Concatenation_Mark: the Arabic number signs and
  their kin), which are drawn;
- Default_Ignorable_Code_Point (DerivedCoreProperties.txt): variation selectors, the Hangul fillers, the
  combining grapheme joiner, Khmer's inherent vowels, Mongolian's free variation selectors, and the unassigned
  code points Unicode reserves as ignorable;
- blanks that are neither spaces nor ignorable: U+2800 BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL
  NOTEHEAD (both drawn as nothing at all);
- surrogates (Cs), which a JSON answer may spell alone (`"\\ud800"`) and no UTF-8 can carry.

Spaces, line breaks and tabs are text: they stay (the text face escapes all but the plain space).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# (first, last) code points, inclusive, with the list each comes from.
RANGES: tuple[tuple[int, int], ...] = (
    # Cc (UnicodeData.txt): C0 but U+0009 TAB, U+000A LF, U+000D CR; DEL and C1.
    (0x0000, 0x0008),
    (0x000B, 0x000C),
    (0x000E, 0x001F),
    (0x007F, 0x009F),
    # Cf and Default_Ignorable_Code_Point, merged (DerivedGeneralCategory.txt, DerivedCoreProperties.txt).
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER (DI)
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER (DI)
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ, AA (DI)
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS ONE..THREE, VOWEL SEPARATOR, FVS FOUR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidirectional embeddings and overrides
    (0x2060, 0x206F),  # WORD JOINER, invisible operators, bidirectional isolates, deprecated format characters
    (0x3164, 0x3164),  # HANGUL FILLER (DI)
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16 (DI)
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER (DI)
    (0xFFF0, 0xFFFB),  # unassigned (DI), then the interlinear annotation characters (Cf)
    (0x13430, 0x1343F),  # EGYPTIAN HIEROGLYPH format controls (Cf; 13439..1343F from Unicode 15.0)
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT controls
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM..END PHRASE (format)
    (0xE0000, 0xE0FFF),  # the tag block (E0001, E0020..E007F), VARIATION SELECTOR-17..256, reserved (DI)
    # Drawn as nothing, in no list above.
    (0x2800, 0x2800),  # BRAILLE PATTERN BLANK
    (0x1D159, 0x1D159),  # MUSICAL SYMBOL NULL NOTEHEAD
    # Cs: surrogates.
    (0xD800, 0xDFFF),
)


def _char(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges) + "]"


# As a regular expression's character class, for the text face's own patterns (toolkit/render.py).
PATTERN = _class(RANGES)
# Searched in parts: a class of BMP characters is a bitmap (one lookup a character), while one range beyond it makes
# every character be compared with every range (4-5 times slower: 62 against 13 µs on a 4,400-character answer);
# the ranges beyond the BMP are searched only in a text that holds such a character.
_ASCII = re.compile(_class(tuple((a, min(b, 0x7F)) for a, b in RANGES if a < 0x80)) + "+")
_BMP = re.compile(_class(tuple(r for r in RANGES if r[1] <= 0xFFFF)) + "+")
_ASTRAL = re.compile(_class(tuple(r for r in RANGES if r[0] > 0xFFFF)) + "+")


def _astral(text: str) -> bool:
    """Whether `text` holds a character beyond the BMP (encoding it is a few µs, a search of its ranges far more)."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def scrub(text: str) -> str:
    """`text` without the characters above; everything else exactly as it was (no folding, no normalising)."""
    if text.isascii():  # most names and titles: only controls can be there, and a printable text has none
        return text if text.isprintable() else _ASCII.sub("", text)
    text = _BMP.sub("", text)
    return _ASTRAL.sub("", text) if _astral(text) else text


def hides(text: str) -> bool:
    """Whether `scrub` would change `text`."""
    if text.isascii():
        return not text.isprintable() and _ASCII.search(text) is not None
    return _BMP.search(text) is not None or (_astral(text) and _ASTRAL.search(text) is not None)


def scrubbed(names: Iterable[str]) -> set[str]:
    """The names as the answers show them: for comparing what an agent sent with what the server has."""
    return {scrub(name) for name in names}


def same(ours: str, theirs: str) -> bool:
    """Whether a name an agent sent is the server's name: equal, or equal once both are scrubbed (an answer showed
    the server's `bug\\u200b` as `bug`, and `bug` must find it again)."""
    return ours == theirs or scrub(ours) == scrub(theirs)
