"""Every string of an answer's structured content is scrubbed, whichever tool and row built it: found in one search
of its JSON, where controls below U+0020 are escapes and the rest raw (toolkit/envelope.py)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from gitea_mcp.toolkit import envelope
from tests.domain.test_invisible import NAMED


class Row(BaseModel):
    title: str
    labels: list[str]


class Answer(BaseModel):
    rows: list[Row]
    note: str | None = None


CONTROLS = ["\x08", "\x0c", "\x01", "\x1f"]  # written \b, \f, \u0001, \u001f in JSON


@pytest.mark.parametrize("char", NAMED + CONTROLS, ids=[f"U+{ord(c):04X}" for c in NAMED + CONTROLS])
def test_a_hidden_character_anywhere_in_the_structured_content_is_dropped(char: str) -> None:
    answer = Answer(rows=[Row(title="ok", labels=["a"]), Row(title="ok", labels=["x", f"b{char}ug"])])
    result = envelope.result(f"text{char}", answer)
    assert result.structured_content == {"rows": [{"title": "ok", "labels": ["a"]},
                                                  {"title": "ok", "labels": ["x", "bug"]}], "note": None}  # fmt: skip
    assert result.content[0].text == "text"  # type: ignore[union-attr]


@pytest.mark.parametrize("kept", ["a\\u00ffb", "tab\there", "line\nbreak", "Größe — 🚀", "back\\bslash", ""])
def test_everything_else_is_kept_exactly(kept: str) -> None:
    result = envelope.result("t", Answer(rows=[Row(title=kept, labels=[])], note=kept))
    assert result.structured_content == {"rows": [{"title": kept, "labels": []}], "note": kept}
