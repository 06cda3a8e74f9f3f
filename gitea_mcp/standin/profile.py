"""Which real server the stand-in answers as: the release, and the settings the API cannot reveal.

Real servers differ by release where gitea_mcp cares (docs/server-behaviour.md); every difference the contract
suite found is a property here, derived from the version, so the stand-in can answer as each of them.
The default is Gitea 1.25.4, the newest release the contract suite was verified against. Gitea 1.26 rules
(`Profile("1.26.1")`) are what the stand-in modelled before the suite existed, not verified on a live server.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta, timezone
from functools import cached_property
from typing import Literal

from gitea_mcp.standin import truncate

Indexer = Literal["bleve", "db"]
KeywordMode = Literal["phrase", "substring", "words"]
DEFAULT_VERSION = "1.25.4"


@dataclass(frozen=True)
class Profile:
    version: str = DEFAULT_VERSION  # as /version reports it; Forgejo: "11.0.3+gitea-1.22.0"
    indexer: Indexer = "bleve"  # [indexer] ISSUE_INDEXER_TYPE
    max_response_items: int = 50  # [api] MAX_RESPONSE_ITEMS
    utc_offset_minutes: int = 0  # the zone the server renders times in (its DEFAULT_UI_LOCATION / TZ)
    # [oauth2] INVALIDATE_REFRESH_TOKENS: off by default, so a used refresh token keeps working (measured on 1.25.4);
    # on, each refresh token works once ("token was already used", read from source).
    invalidate_refresh_tokens: bool = False

    @property
    def is_forgejo(self) -> bool:
        """Forgejo reports its own version with the Gitea API it keeps: `11.0.3+gitea-1.22.0`."""
        return "+gitea-" in self.version

    @cached_property
    def number(self) -> tuple[int, int, int]:
        """The release as (major, minor, patch), from the version this profile declares."""
        major, minor, patch = [*self.version.split("+", 1)[0].split("."), "0", "0"][:3]
        return int(major), int(minor), int(patch)

    def cut_title(self, title: str) -> str:
        """The title as this release stores it (truncate.py: the releases' own code, read for the stand-in)."""
        if self._gitea((1, 24)):
            return truncate.ellipsis_display_string(title)
        return truncate.split_at_byte_n(title)

    def _gitea(self, low: tuple[int, ...]) -> bool:
        return not self.is_forgejo and self.number[: len(low)] >= low

    def _forgejo(self, low: tuple[int, ...]) -> bool:
        return self.is_forgejo and self.number[: len(low)] >= low

    @property
    def zone(self) -> timezone:
        """The zone every time is rendered in; stored instants do not depend on it."""
        return timezone(timedelta(minutes=self.utc_offset_minutes))

    @property
    def not_found_message(self) -> str:
        """A 404's message: Gitea from 1.24 says "not found", older Gitea and Forgejo use the locale's sentence."""
        return "not found" if self._gitea((1, 24)) else "The target couldn't be found."

    @property
    def scope_error_shows_token_scope(self) -> bool:
        """A missing scope's 403 reads `…, required=[x], token scope=y` from Gitea 1.23, `…: [x]` before and on
        Forgejo (verified on 1.22, 1.25 and Forgejo 11/12; 1.23 as the boundary is inferred)."""
        return self._gitea((1, 23))

    @property
    def keyword_mode(self) -> KeywordMode:
        """How `q` matches: bleve on Gitea is one phrase of whole words; Forgejo ≥ 11 ORs fuzzy words."""
        if self.indexer == "db":
            return "substring"
        return "words" if self._forgejo((11,)) else "phrase"

    @property
    def numeric_keyword_from_db(self) -> bool:
        """A keyword that is a number (Go's strconv.Atoi: `42`, `+42`, `042`) is answered by the database indexer
        whatever the configured one, as a substring of each text, from Gitea 1.23 (verified on 1.25.4)."""
        return self._gitea((1, 23))

    @property
    def keyword_matches_number(self) -> bool:
        """A numeric `q` also finds the issue of that number: from Gitea 1.23 and Forgejo 12."""
        return self._gitea((1, 23)) or self._forgejo((12,))

    @property
    def keyword_ignores_assignee(self) -> bool:
        """Keyword + assignee finds nothing: the index stores no assignees (fixed after Gitea 1.25, Forgejo 15)."""
        return self.indexer != "db" and not (self._gitea((1, 26)) or self._forgejo((15,)))

    @property
    def redirect_status(self) -> int:
        """A renamed repository: 307 up to Gitea 1.23.6 and Forgejo 11, 301 after."""
        return 301 if self._gitea((1, 23, 7)) or self._forgejo((12,)) else 307

    @property
    def redirect_needs_access(self) -> bool:
        """A moved repository's old name redirects only a caller who can see it at the new place on Forgejo (11, 12:
        a 404 otherwise); Gitea (1.22, 1.25) redirects anyone, naming the new place."""
        return self.is_forgejo

    @property
    def permission_finds_the_user_first(self) -> bool:
        """`GET /repos/{o}/{r}/collaborators/{user}/permission` about a user that does not exist, from a token that
        may not ask: Forgejo 12.0.4 answers 404 (it looks the user up first), Gitea 1.25.4 403 (verified live)."""
        return self.is_forgejo

    @property
    def unit_team_keeps_permission(self) -> bool:
        """A team made with per-unit access (`units_map`) and `permission` read: Forgejo 12.0.4 reports `read`, Gitea
        1.25.4 `none` (verified live); either way its `units_map` says what it may do."""
        return self.is_forgejo

    @property
    def label_write_refusal_is_worded(self) -> bool:
        """A user who may only read, adding or replacing an issue's labels: Gitea (1.22, 1.25) says "write permission
        is required"; Forgejo (11, 12) answers a bare 403 (verified live)."""
        return not self.is_forgejo

    @property
    def undated_milestones_first(self) -> bool:
        """Milestones list soonest due first, then by id; one without a due day comes first on Gitea (it stores a
        deadline of 0: measured on 1.25.4), last on Forgejo (the far future: measured on 12.0.4). Gitea 1.22 is
        taken to be as Forgejo, which forked from it; 1.23 as the boundary is inferred."""
        return self._gitea((1, 23))

    @property
    def missing_issue_comments_status(self) -> int:
        """Reading or adding comments of a missing issue: Gitea answers 500, Forgejo from 11 answers 404."""
        return 404 if self._forgejo((11,)) else 500

    @property
    def org_labels_by_name(self) -> bool:
        """Label names given to an issue's label endpoints find organisation labels too (not on Gitea 1.22)."""
        return self.is_forgejo or self._gitea((1, 23))

    @property
    def search_honours_created_by(self) -> bool:
        """/repos/issues/search reads `created_by` only from Gitea 1.26; before, it is ignored."""
        return self._gitea((1, 26))

    @property
    def search_default_limit(self) -> int:
        """`limit=0` on /repos/issues/search: 20 up to Gitea 1.25 and on Forgejo, 30 after."""
        return 30 if self._gitea((1, 26)) else 20

    @property
    def search_clamps_only_keywords(self) -> bool:
        """/repos/issues/search clamps `limit` to MAX_RESPONSE_ITEMS only with a keyword from Gitea 1.26."""
        return self._gitea((1, 26))

    @property
    def oauth_scopes_narrow(self) -> bool:
        """An OAuth token granted API scopes (`read:issue`) is held to them from Gitea 1.23 (measured on 1.25.4: a
        403 naming the missing scope); Gitea 1.22 and Forgejo give every OAuth token full access (measured on 1.22.6:
        a `read:issue` token creates an issue; Forgejo as issue 24 states, not measured)."""
        return self._gitea((1, 23))

    # -- the OAuth2 provider: Gitea 1.22.6 and 1.25.4 both measured (tests/contract/test_oauth.py); which release
    # between them changed each is not known, 1.23 is assumed. Forgejo keeps what 1.25.4 does (not measured).

    @property
    def _gitea_1_22(self) -> bool:
        return not self.is_forgejo and self.number[:2] <= (1, 22)

    @property
    def oauth_issuer_has_slash(self) -> bool:
        """The issuer (OpenID document, ID tokens) is ROOT_URL with its slash on Gitea 1.22; later without."""
        return self._gitea_1_22

    @property
    def oauth_app_skips_secondary_authorization(self) -> bool:
        """An application has `skip_secondary_authorization` (in its JSON, and honoured) after Gitea 1.22."""
        return not self._gitea_1_22

    @property
    def oauth_plain_challenge_as_method(self) -> bool:
        """Gitea 1.22 keeps a `plain` challenge in the session under the method's name: a code from the consent
        page then has an unknown method and no verifier passes, nor for later consents of that browser."""
        return self._gitea_1_22

    @property
    def oauth_token_reads_only_basic(self) -> bool:
        """The token endpoint ignores an Authorization header of another scheme than Basic on Gitea 1.22; later it
        refuses it ("cannot parse basic auth header")."""
        return self._gitea_1_22

    @property
    def oauth_userinfo_realm(self) -> str:
        """The realm of userinfo's challenge: empty on Gitea 1.22, the provider's name after."""
        return "" if self._gitea_1_22 else "Gitea OAuth2"

    @property
    def oauth_userinfo_refusal(self) -> str:
        """Userinfo's 401 body for a token that does not authenticate (Go's http.Error: a newline ends it)."""
        return "Verify\n" if self._gitea_1_22 else "Failed to authenticate user\n"

    @property
    def userinfo_name_falls_back_to_login(self) -> bool:
        """Userinfo's `name` is the full name, or the login when there is none, after Gitea 1.22 (1.22: "")."""
        return not self._gitea_1_22

    def bad_credential_message(self, basic_user: str | None, basic_user_id: int) -> str:
        """The API's 401 for credentials that do not authenticate. Gitea 1.22 names the user the attempt ended on:
        Basic's user when it exists (`user's password is invalid`), else none found; later one sentence for all."""
        if not self._gitea_1_22:
            return "invalid username, password or token"
        if basic_user_id:
            return f"user's password is invalid [uid: {basic_user_id}, name: {basic_user}]"
        return f"user does not exist [uid: 0, name: {basic_user or ''}]"

    @property
    def has_lock_api(self) -> bool:
        """PUT/DELETE …/issues/{index}/lock exist from Gitea 1.24 (not on Forgejo)."""
        return self._gitea((1, 24))


PROFILES: dict[str, Profile] = {
    "gitea-1.22": Profile("1.22.6", utc_offset_minutes=60),
    "gitea-1.25": Profile("1.25.4"),
    "gitea-1.25-db": Profile("1.25.4", indexer="db", max_response_items=20),
    "forgejo-11": Profile("11.0.3+gitea-1.22.0"),
    "forgejo-12": Profile("12.0.4+gitea-1.22.0"),
}
