"""The checks every tool passes through before anything is sent to Gitea."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitea_mcp.errors import ToolFailure, shown

MAX_LIMIT = 50
DEFAULT_LIMIT = 30

# Gitea's own rule for user, organisation and repository names (letters, digits, - _ .; never . or ..).
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


@dataclass(frozen=True)
class Clamp:
    """An effective page size and whether the caller's value was changed to get it."""

    limit: int
    requested: int
    clamped: bool


def validate_name(value: str, field: str) -> str:
    """Refuse anything that could change the URL path: only letters, digits, '-', '_', '.', never '.' or '..'."""
    if not _NAME.fullmatch(value) or value in {".", ".."}:
        raise ToolFailure(
            f"{field} {shown(value)} is not a valid Gitea name: use letters, digits, '-', '_' and '.' only "
            "(not '.' or '..', no slashes or spaces)."
        )
    return value


def cap_limit(limit: int) -> Clamp:
    """Clamp a page size to 1..50, Gitea's default MAX_RESPONSE_ITEMS, and say whether it was changed."""
    effective = min(max(limit, 1), MAX_LIMIT)
    return Clamp(limit=effective, requested=limit, clamped=effective != limit)


@dataclass(frozen=True)
class Policy:
    """Which owners this server may touch. Owner names compare case-insensitively, as Gitea's do."""

    allowed_owners: frozenset[str]

    def check_owner(self, owner: str) -> str:
        validate_name(owner, "owner")
        if "*" not in self.allowed_owners and owner.lower() not in self.allowed_owners:
            allowed = ",".join(sorted(self.allowed_owners))
            raise ToolFailure(
                f"owner {shown(owner)} is not allowed (GITEA_ALLOWED_OWNERS={allowed}); "
                "use one of those owners or ask the operator to add it."
            )
        return owner

    def check_repo(self, owner: str, name: str) -> tuple[str, str]:
        """Validate an owner/name pair before it can become part of a URL."""
        return self.check_owner(owner), validate_name(name, "name")
