"""The checks every tool passes through before anything is sent to Gitea."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.redaction import shown

MAX_LIMIT = 50
# The largest issue number an argument or a pasted link may name.
MAX_NUMBER = 2_147_483_647
DEFAULT_LIMIT = 30

# Label names one call may give, in all its arguments (issue_update's labels, add_labels and remove_labels
# together): well above the labels one issue carries, or a filter needs. Whatever their number they are resolved
# from one listing of the repository's labels (and of the organisation's, or one search where the token cannot
# list those: toolkit/labels.py): the cap bounds that work and the one search's URL, not a request per name.
MAX_LABEL_NAMES = 50


def too_many_labels(count: int) -> str:
    """The refusal past MAX_LABEL_NAMES: the arguments' check and the label lookup say it alike."""
    return (
        f"{count} label names in one call are more than the {MAX_LABEL_NAMES} gitea_mcp takes; name at most "
        f"{MAX_LABEL_NAMES} labels per call."
    )


def cap_limit(limit: int) -> int:
    """Rows per page, at most MAX_LIMIT: a larger limit is served at the cap (and the answer says so) rather than
    refused, which would cost the agent a round trip. A server with a smaller MAX_RESPONSE_ITEMS serves fewer still;
    the page notices that (gitea/page.py). Below 1 is refused by the argument's type (toolkit/arguments.py)."""
    return min(limit, MAX_LIMIT)


# Gitea's own rule for user, organisation and repository names (letters, digits, - _ .; never . or ..).
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


# Gitea's rule for a user or organisation name (modules/validation/helpers.go IsValidUsername in Gitea's source):
# ASCII letters and digits, with '-', '_', '.' between them, never two in a row nor at the end. An allowlist entry
# that breaks it can never match an owner, so it is refused at start (config.parse_owner_list).
_USER_NAME = re.compile(r"[A-Za-z0-9][-._A-Za-z0-9]{0,99}")  # explicit ASCII: Python's \w is Unicode
_USER_NAME_BAD = re.compile(r"[-._]{2,}|[-._]$")
USER_NAME_RULE = (
    "ASCII letters and digits, with '-', '_' or '.' between them (not two in a row, not at the end), as Gitea "
    "requires of user and organisation names"
)


def is_user_name(value: str) -> bool:
    return _USER_NAME.fullmatch(value) is not None and not _USER_NAME_BAD.search(value)


def is_name(value: str) -> bool:
    """Whether Gitea could have this user, organisation or repository name (the rule `validate_name` applies)."""
    return bool(_NAME.fullmatch(value)) and value not in {".", ".."}


def validate_name(value: str, field: str) -> str:
    """Refuse anything that could change the URL path: only letters, digits, '-', '_', '.', never '.' or '..'."""
    if not is_name(value):
        raise ToolFailure(
            f"{field} {shown(value)} is not a valid Gitea name: use letters, digits, '-', '_' and '.' only "
            "(not '.' or '..', no slashes or spaces)."
        )
    return value


@dataclass(frozen=True)
class Policy:
    """Which owners this server may touch. Owner names compare case-insensitively, as Gitea's do."""

    allowed_owners: frozenset[str]

    def check_owner(self, owner: str) -> str:
        validate_name(owner, "owner")
        if not self.allows(owner):
            allowed = ",".join(sorted(self.allowed_owners))
            raise ToolFailure(
                f"owner {shown(owner)} is not allowed (GITEA_ALLOWED_OWNERS={allowed}); "
                "use one of those owners or ask the operator to add it."
            )
        return owner

    def allows(self, owner: str) -> bool:
        return "*" in self.allowed_owners or owner.lower() in self.allowed_owners

    def check_rows(self, full_names: list[str], owner: str, name: str | None = None) -> None:
        """Defence in depth: every row Gitea answered must belong to where we asked and to an allowed owner.

        A proxy or server that drops `owner` from the cross-repository search would otherwise put other owners'
        issues in front of the agent; the list as a whole (and its total) is then wrong, so nothing is shown.
        """
        wanted = f"{owner}/{name}".lower() if name else None
        for full_name in full_names:
            row_owner = full_name.partition("/")[0]
            if (
                not self.allows(row_owner)
                or row_owner.lower() != owner.lower()
                or (wanted and full_name.lower() != wanted)
            ):
                raise ToolFailure(
                    f"Gitea answered with issues of {shown(full_name)}, which is not where this call asked "
                    f"({owner}/{name or '*'}); nothing is shown. A proxy in front of Gitea may be dropping parameters."
                )

    def check_repo(self, owner: str, name: str) -> tuple[str, str]:
        """Validate an owner/name pair before it can become part of a URL."""
        return self.check_owner(owner), validate_name(name, "name")
