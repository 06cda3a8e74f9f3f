"""How each indexer matches `q` (gitea_mcp.standin.keyword), on the texts of the contract lab's issue."""

from __future__ import annotations

import pytest

from gitea_mcp.standin.keyword import matches

TEXTS = ["Authentication fails after password reset", "Users cannot sign in once they reset the password."]


@pytest.mark.parametrize(
    ("q", "phrase", "substring", "words"),
    [
        ("authentication", True, True, True),
        ("Authentica", False, True, False),  # part of a word
        ("reset Authentication", False, False, True),  # out of order: any word suffices on Forgejo
        ("password reset", True, True, True),
        ('"password reset"', True, False, True),  # quotes: ignored, literal, an exact phrase
        ('"reset password"', False, False, False),
        ("password, reset!", True, False, True),  # punctuation is not a word
        ("fails password", False, False, True),
        ("sign in once", True, True, True),  # each text on its own
        ("reset users", False, False, True),  # not across texts
        ("+zzz reset", False, False, False),  # Forgejo: a `+` term must match
        ("+reset -zzz", False, False, True),
        ("-reset authentication", False, False, False),  # a `-` term must not
        ('+"sign in" nothing', False, False, True),
        ("|", False, False, False),  # no word at all matches nothing (but the substring is absent too)
    ],
)
def test_matches(q: str, phrase: bool, substring: bool, words: bool) -> None:
    assert (matches("phrase", q, TEXTS), matches("substring", q, TEXTS), matches("words", q, TEXTS)) == (
        phrase,
        substring,
        words,
    )
