"""What kind of server answers: Gitea or Forgejo, which release, and what that means for the tools.

Read once from `GET /version` (no scope needed). Forgejo reports `11.0.3+gitea-1.22.0`. Each property is a
behaviour the contract suite verified on real releases (docs/server-behaviour.md); an unreadable version
counts as the newest Gitea we verified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_NUMBER = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")
_GITEA_API = re.compile(r"\+gitea-(\d+)\.(\d+)(?:\.(\d+))?")

KeywordMode = Literal["phrase", "words"]


@dataclass(frozen=True)
class ServerInfo:
    flavor: Literal["Gitea", "Forgejo"]
    number: tuple[int, int, int]
    raw: str

    understood: bool = True  # False: the version could not be read, and a current Gitea is assumed

    @classmethod
    def parse(cls, raw: str) -> ServerInfo:
        match = _NUMBER.match(raw.strip())
        if match is None:
            return cls("Gitea", (1, 25, 0), raw, understood=False)
        number = (int(match[1]), int(match[2]), int(match[3] or 0))
        return cls("Forgejo" if "+gitea-" in raw or number[0] >= 7 else "Gitea", number, raw)

    @property
    def gitea_api(self) -> tuple[int, int, int] | None:
        """The Gitea API this server speaks: Gitea's own release, or the one Forgejo names (`11.0.1+gitea-1.22.0`
        speaks Gitea 1.22.0's); None for a Forgejo that names none."""
        if self.flavor == "Gitea":
            return self.number
        named = _GITEA_API.search(self.raw)
        return (int(named[1]), int(named[2]), int(named[3] or 0)) if named else None

    def __str__(self) -> str:
        return f"{self.flavor} {'.'.join(map(str, self.number))}"

    def _gitea_before(self, version: tuple[int, ...]) -> bool:
        return self.flavor == "Gitea" and self.number < version

    def _forgejo_before(self, version: tuple[int, ...]) -> bool:
        return self.flavor == "Forgejo" and self.number < version

    @property
    def keyword_mode(self) -> KeywordMode:
        """How `q` matches with the default (bleve) indexer: Gitea wants the words adjacent, as one phrase;
        Forgejo from 11 matches any of the words (fuzzily), and reads "quoted phrases" (`+`/`-` too)."""
        return "phrase" if self.flavor == "Gitea" or self.number < (11,) else "words"

    @property
    def numeric_keyword_from_db(self) -> bool:
        """A keyword that is a number is matched by the database whatever the indexer: issue #N, and N as a part of
        any title, body or comment (Gitea 1.23+: indexer.SearchIssues; verified on 1.25.4 with bleve)."""
        return self.flavor == "Gitea" and self.number >= (1, 23)

    @property
    def keyword_finds_number(self) -> bool:
        """A numeric keyword also finds the issue of that number (Gitea 1.23+, Forgejo 12+)."""
        return not (self._gitea_before((1, 23)) or self._forgejo_before((12,)))

    @property
    def keyword_drops_assignee(self) -> bool:
        """Keyword + assignee finds nothing: the index stores no assignees (Gitea ≤ 1.25, Forgejo ≤ 14)."""
        return self._gitea_before((1, 26)) or self._forgejo_before((15,))

    @property
    def search_filters_author(self) -> bool:
        """`created_by` on /repos/issues/search: ignored by every release verified (Gitea ≤ 1.25, Forgejo ≤ 12);
        Gitea's source has it from 1.26 on."""
        return self.flavor == "Gitea" and self.number >= (1, 26)

    @property
    def org_labels_by_name(self) -> bool:
        """`POST …/issues/{n}/labels` resolves organisation label names too (Gitea 1.23+, Forgejo)."""
        return not self._gitea_before((1, 23))

    @property
    def cuts_titles_by_width(self) -> bool:
        """A title over 255 bytes is cut by display width from Gitea 1.24 (verified on 1.25.4), at 252 bytes
        before and on Forgejo (verified on Forgejo 12): gitea/titles.py."""
        return not self._gitea_before((1, 24)) and self.flavor == "Gitea"

    @property
    def narrows_oauth_scopes(self) -> bool:
        """An OAuth token asked for some scopes gets only those (Gitea 1.23+; verified on 1.25.4). Gitea 1.22 and
        every Forgejo give OAuth tokens full access whatever was asked (docs/server-behaviour.md, issue 24)."""
        return self.flavor == "Gitea" and self.number >= (1, 23)
