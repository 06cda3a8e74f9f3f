"""Gitea's title cut, as real servers answered each of these titles on create (docs/server-behaviour.md)."""

from __future__ import annotations

import random

import pytest

from gitea_mcp.gitea import titles

# (title sent, title kept): each pair as Gitea 1.25.4 answered it (by display width).
BY_WIDTH = [
    pytest.param("c" * 255, "c" * 255, id="255-bytes-whole"),
    pytest.param("b" * 256, "b" * 252 + "…", id="256-bytes-cut-to-255"),
    pytest.param("a" * 300, "a" * 252 + "…", id="ascii"),
    pytest.param("漢" * 130, "漢" * 126 + "…", id="wide-characters-count-2"),
    pytest.param("字" * 100, "字" * 100, id="300-bytes-of-width-200-whole"),
    pytest.param("é" * 200, "é" * 200, id="latin-1-counts-1"),
    pytest.param("x" * 250 + "🎉" * 3, "x" * 250 + "🎉…", id="emoji"),
    pytest.param("\ufffd" + "e" * 300, "\ufffd" + "e" * 250 + "...", id="replacement-character-ascii-ellipsis"),
    pytest.param("w " * 140, "w " * 126 + "…", id="spaces"),
    pytest.param("a" * 254 + "é", "a" * 254 + "é", id="a-short-rest-that-fits-stays"),
    pytest.param("a" * 253 + "éé", "a" * 253 + "éé", id="257-bytes-whole"),
    pytest.param("\u0301" * 200 + "b" * 100, "\u0301" * 200 + "b" * 52 + "…", id="combining-marks-count-1"),
]


# (title sent, title kept): each pair as Forgejo 12.0.4 answered it (by bytes, as Gitea before 1.24).
BY_BYTES = [
    pytest.param("a" * 300, "a" * 252 + "…", id="ascii"),
    pytest.param("漢" * 130, "漢" * 84 + "…", id="three-byte-characters"),
    pytest.param("é" * 200, "é" * 126 + "…", id="two-byte-characters"),
    pytest.param("a" * 254 + "é", "a" * 252 + "…", id="256-bytes"),
    pytest.param("\ufffd" + "e" * 300, "\ufffd" + "e" * 249 + "…", id="replacement-character"),
]


@pytest.mark.parametrize(
    ("sent", "kept", "by_width"),
    [
        *(pytest.param(*p.values, True, id=f"width-{p.id}") for p in BY_WIDTH),
        *(pytest.param(*p.values, False, id=f"bytes-{p.id}") for p in BY_BYTES),
    ],
)
def test_cut_is_what_gitea_keeps(sent: str, kept: str, by_width: bool) -> None:
    assert titles.cut(sent, by_width=by_width) == kept
    assert titles.is_cut(sent, by_width=by_width) == (kept != sent)
    assert titles.may_cut(sent) == (len(sent.encode()) > 255)


@pytest.mark.parametrize("by_width", [True, False])
def test_a_lone_surrogate_is_the_replacement_character_and_no_cut(by_width: bool) -> None:
    assert titles.cut("a\ud800b", by_width=by_width) == "a\ufffdb"
    assert not titles.is_cut("a\ud800b", by_width=by_width)


@pytest.mark.parametrize("sent", [p.values[0] for p in [*BY_WIDTH, *BY_BYTES]])
@pytest.mark.parametrize("by_width", [True, False])
def test_titles_kept_alike_share_a_stem(sent: str, by_width: bool) -> None:
    kept = titles.cut(sent, by_width=by_width)
    assert titles.stem(kept) == titles.stem(sent)
    assert titles.stem(kept + "x" * 300) == titles.stem(sent)


def test_a_cut_keeps_the_stem_whatever_the_characters() -> None:
    pool = ["a", " ", "é", "漢", "🎉", "\u0301", "\u200b", "\u3000", "Ж", "\ufffd"]
    rng = random.Random(19)
    for _ in range(500):
        sent = "".join(rng.choice(pool) for _ in range(rng.randint(60, 300)))
        for by_width in (True, False):
            kept = titles.cut(sent, by_width=by_width)
            assert titles.stem(kept) == titles.stem(sent), (sent, by_width)
            assert len(kept.encode()) <= 255 or by_width
