"""How the issue indexers match a keyword `q` against an issue's texts (its title, body and each comment).

- "phrase" (Gitea's bleve): the words of `q` must follow each other as whole words, case-insensitively,
  within one text; double quotes are ignored.
- "substring" (the database indexer): `q` is a case-insensitive substring of one text; quotes are literal.
- "words" (Forgejo's bleve from 11): any one word of `q`, or any `"quoted phrase"` as an exact phrase, suffices;
  a term marked `+` must match and one marked `-` must not (then the unmarked ones are optional). Forgejo's
  fuzziness is not modelled: a word is matched whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gitea_mcp.standin.profile import KeywordMode

_WORD = re.compile(r"\w+")
_TERM = re.compile(r'([+-]?)(?:"([^"]*)"|(\S+))')
Term = tuple[str, list[str]]  # ("+", "-" or "", the words of a phrase)


_ATOI = re.compile(r"[+-]?\d{1,18}")  # within int64, as Go's strconv.Atoi accepts it


def go_int(text: str) -> int | None:
    """The number Go's `strconv.Atoi` reads in `text`, or None (a sign is allowed, spaces are not)."""
    return int(text) if _ATOI.fullmatch(text) else None


def words(text: str) -> list[str]:
    """The tokens an analyser would index: runs of letters and digits, lower-cased."""
    return [w.lower() for w in _WORD.findall(text)]


def matches(mode: KeywordMode, keyword: str, texts: Sequence[str]) -> bool:
    if mode == "substring":
        needle = keyword.lower()
        return any(needle in text.lower() for text in texts)
    indexed = [words(text) for text in texts]
    if mode == "phrase":
        return _found(indexed, words(keyword.replace('"', "")))
    return _all_terms(indexed, _terms(keyword))


def _all_terms(indexed: list[list[str]], terms: list[Term]) -> bool:
    """Forgejo's boolean query: every `+` term, no `-` term, and one unmarked term unless a `+` term is given."""
    must = [phrase for mark, phrase in terms if mark == "+"]
    should = [phrase for mark, phrase in terms if not mark]
    if any(_found(indexed, phrase) for mark, phrase in terms if mark == "-"):
        return False
    if must:
        return all(_found(indexed, phrase) for phrase in must)
    return any(_found(indexed, phrase) for phrase in should)


def _terms(keyword: str) -> list[Term]:
    """Each quoted phrase as one term, every other word on its own; `+`/`-` in front mark it."""
    terms: list[Term] = []
    for mark, quoted, bare in _TERM.findall(keyword):
        terms += [(mark, words(quoted))] if quoted else [(mark, [w]) for w in words(bare)]
    return terms


def _found(indexed: list[list[str]], phrase: list[str]) -> bool:
    """The phrase's words in order, whole, within one text; an empty phrase matches nothing."""
    size = len(phrase)
    return size > 0 and any(tokens[i : i + size] == phrase for tokens in indexed for i in range(len(tokens) - size + 1))
