"""Which real server the stand-in answers as: the release, and the settings the API cannot reveal.

Real servers differ by release where gitea_mcp cares (docs/server-behaviour.md); every difference the contract
suite found is a property here, derived from the version, so the stand-in can answer as each of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta, timezone
from typing import Literal

Indexer = Literal["bleve", "db"]
_NUMBER = re.compile(r"(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class Profile:
    version: str = "1.25.4"  # as /version reports it; Forgejo: "11.0.3+gitea-1.22.0"
    indexer: Indexer = "bleve"  # [indexer] ISSUE_INDEXER_TYPE
    max_response_items: int = 50  # [api] MAX_RESPONSE_ITEMS
    utc_offset_minutes: int = 0  # the zone the server renders times in (its DEFAULT_UI_LOCATION / TZ)

    @property
    def is_forgejo(self) -> bool:
        return "+gitea-" in self.version

    @property
    def number(self) -> tuple[int, int, int]:
        match = _NUMBER.match(self.version)
        assert match, self.version
        return int(match[1]), int(match[2]), int(match[3])

    def _gitea(self, low: tuple[int, ...]) -> bool:
        return not self.is_forgejo and self.number[: len(low)] >= low

    def _forgejo(self, low: tuple[int, ...]) -> bool:
        return self.is_forgejo and self.number[: len(low)] >= low

    @property
    def zone(self) -> timezone:
        return timezone(timedelta(minutes=self.utc_offset_minutes))

    @property
    def keyword_mode(self) -> Literal["phrase", "substring", "words"]:
        """How `q` matches: bleve on Gitea is one phrase of whole words; Forgejo ≥ 11 ORs fuzzy words."""
        if self.indexer == "db":
            return "substring"
        return "words" if self._forgejo((11,)) else "phrase"

    @property
    def keyword_ignores_assignee(self) -> bool:
        """Keyword + assignee finds nothing: the index stores no assignees (fixed after Gitea 1.25, Forgejo 15)."""
        return self.indexer != "db" and not (self._gitea((1, 26)) or self._forgejo((15,)))

    @property
    def redirect_status(self) -> int:
        """A renamed repository: 307 up to Gitea 1.23.6 and Forgejo 11, 301 after."""
        return 301 if self._gitea((1, 23, 7)) or self._forgejo((12,)) else 307

    @property
    def missing_issue_comments_status(self) -> int:
        """The comments of a missing issue: Gitea answers 500, Forgejo from 11 answers 404."""
        return 404 if self._forgejo((11,)) else 500

    @property
    def search_honours_created_by(self) -> bool:
        return self._gitea((1, 26))

    @property
    def search_default_limit(self) -> int:
        """`limit=0` on /repos/issues/search: 20 up to Gitea 1.25 and on Forgejo, 30 after."""
        return 30 if self._gitea((1, 26)) else 20

    @property
    def has_lock_api(self) -> bool:
        return self._gitea((1, 24))


PROFILES: dict[str, Profile] = {
    "gitea-1.22": Profile("1.22.6", utc_offset_minutes=60),
    "gitea-1.25": Profile("1.25.4"),
    "gitea-1.25-db": Profile("1.25.4", indexer="db", max_response_items=20),
    "forgejo-11": Profile("11.0.3+gitea-1.22.0"),
    "forgejo-15": Profile("15.0.3+gitea-1.22.0"),
}
