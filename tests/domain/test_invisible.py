"""The characters forge text loses in both faces, checked against Unicode's own lists over every code point: what
`unicodedata` (this Python's Unicode) calls a control, a format character or a surrogate, and the code points
DerivedCoreProperties.txt calls Default_Ignorable_Code_Point, written out below from Unicode 16.0."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from gitea_mcp.domain.invisible import same, scrub

# DerivedCoreProperties.txt (Unicode 16.0), Default_Ignorable_Code_Point, as listed there.
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180D),
    (0x180E, 0x180E), (0x180F, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2065, 0x2065),
    (0x2066, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0000), (0xE0001, 0xE0001), (0xE0002, 0xE001F),
    (0xE0020, 0xE007F), (0xE0080, 0xE00FF), (0xE0100, 0xE01EF), (0xE01F0, 0xE0FFF),
]  # fmt: skip
# PropList.txt (Unicode 16.0), Prepended_Concatenation_Mark: format characters that are drawn (the Arabic number
# sign spans the digits after it), so they stay.
PREPENDED_CONCATENATION_MARK = {
    *range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD,
}  # fmt: skip
# Drawn as nothing, yet in neither list: dropped too.
BLANKS = {0x2800, 0x1D159}  # BRAILLE PATTERN BLANK, MUSICAL SYMBOL NULL NOTEHEAD
KEPT_CONTROLS = {0x09, 0x0A, 0x0D}  # tab, line feed, carriage return: text, escaped by the text face

IGNORABLE = {code for first, last in DEFAULT_IGNORABLE for code in range(first, last + 1)}


def listed(code: int) -> bool:
    """Whether Unicode's lists, as read here, say the code point goes."""
    if code in KEPT_CONTROLS or code in PREPENDED_CONCATENATION_MARK:
        return False
    return code in IGNORABLE or code in BLANKS or unicodedata.category(chr(code)) in ("Cc", "Cf", "Cs")


def dropped(code: int) -> bool:
    return scrub(f"a{chr(code)}b") == "ab"


EVERY = range(sys.maxunicode + 1)


def test_everything_unicode_lists_is_dropped() -> None:
    wrong = [f"U+{code:04X}" for code in EVERY if listed(code) and not dropped(code)]
    assert wrong == []


def test_nothing_else_is_dropped() -> None:
    """Beyond this Python's lists, only code points it does not know yet (`Cn`) that Unicode 16.0 made format
    characters (U+13439..1343F, Egyptian hieroglyph format controls, from 15.0)."""
    wrong = [
        f"U+{code:04X}"
        for code in EVERY
        if dropped(code) and not listed(code) and unicodedata.category(chr(code)) != "Cn"
    ]
    assert wrong == []


# The characters the attack used, and their kin, by name: each goes.
NAMED = [
    "\u009b",  # CONTROL SEQUENCE INTRODUCER (C1): starts a terminal escape
    "\u0085",  # NEXT LINE (C1)
    "\x1b",  # ESCAPE
    "\x7f",  # DELETE
    "\x00",
    "\ufe0f",  # VARIATION SELECTOR-16
    "\ufe00",  # VARIATION SELECTOR-1
    "\U000e0100",  # VARIATION SELECTOR-17
    "\U000e01ef",  # VARIATION SELECTOR-256
    "\u180b",  # MONGOLIAN FREE VARIATION SELECTOR ONE
    "\u115f",  # HANGUL CHOSEONG FILLER
    "\u1160",  # HANGUL JUNGSEONG FILLER
    "\u3164",  # HANGUL FILLER
    "\uffa0",  # HALFWIDTH HANGUL FILLER
    "\u2800",  # BRAILLE PATTERN BLANK
    "\U000e0001",  # LANGUAGE TAG
    "\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "\U000e007f",  # CANCEL TAG
    "\u200b",  # ZERO WIDTH SPACE
    "\u200d",  # ZERO WIDTH JOINER
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u2066",  # LEFT-TO-RIGHT ISOLATE
    "\u2064",  # INVISIBLE PLUS
    "\u034f",  # COMBINING GRAPHEME JOINER
    "\u17b4",  # KHMER VOWEL INHERENT AQ
    "\u00ad",  # SOFT HYPHEN
    "\ufeff",  # ZERO WIDTH NO-BREAK SPACE
    "\U0001d173",  # MUSICAL SYMBOL BEGIN BEAM
    "\U0001bca0",  # SHORTHAND FORMAT LETTER OVERLAP
    "\ud800",  # a lone surrogate, as a JSON answer may spell it
]
# Text that stays exactly: whitespace, letters of every script, emoji, the Arabic number sign, private use.
KEPT = ["\t", "\n", "\r", " ", "\u00a0", "\u3000", "\u2028", "é", "e\u0301", "Ж", "中", "🚀", "\u0600", "\ue000", "ℵ"]


@pytest.mark.parametrize("char", NAMED, ids=[f"U+{ord(c):04X}" for c in NAMED])
def test_each_named_hidden_character_is_dropped(char: str) -> None:
    assert scrub(f"Fix{char} login{char}") == "Fix login"


@pytest.mark.parametrize("text", KEPT, ids=[ascii(t) for t in KEPT])
def test_text_stays_exactly(text: str) -> None:
    assert scrub(f"a{text}b") == f"a{text}b"


@pytest.mark.parametrize(
    ("sent", "server", "same_name"),
    [("bug", "bug", True), ("bug", "bug\u200b", True), ("bug\ufe0f", "bug", True), ("bug", "Bug", False),
     ("bug", "bug ", False), ("needs  triage", "needs triage", False)],
)  # fmt: skip
def test_a_name_sent_back_scrubbed_is_the_servers(sent: str, server: str, same_name: bool) -> None:
    assert same(sent, server) is same_name
