"""The stand-in's reading of Gitea's title cuts (standin/truncate.py) against the product's (gitea/titles.py): two
readings of the same Go code, written apart, must agree; the contract suite checks both against real servers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gitea_mcp.gitea import titles
from gitea_mcp.standin import truncate

# Widths 1 and 2, combining marks, format characters, spaces, astral runes, a lone surrogate.
RUNES = st.sampled_from(["a", "é", "ÿ", "Ā", "漢", "\u0301", "\u200b", " ", "\u3000", "😀", "\ud800", "ß"])
TITLES = st.lists(RUNES, min_size=60, max_size=300).map("".join)


@settings(max_examples=400, deadline=None)
@given(TITLES)
def test_the_two_readings_agree(title: str) -> None:
    assert truncate.ellipsis_display_string(title) == titles.cut(title, by_width=True)
    assert truncate.split_at_byte_n(title) == titles.cut(title, by_width=False)


def test_the_documented_examples() -> None:
    assert truncate.ellipsis_display_string("a" * 300) == "a" * 252 + "…"
    assert truncate.ellipsis_display_string("漢" * 130) == "漢" * 126 + "…"
    assert truncate.ellipsis_display_string("é" * 200) == "é" * 200
    assert truncate.split_at_byte_n("漢" * 130) == "漢" * 84 + "…"
