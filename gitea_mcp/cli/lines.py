"""What `check` says, shared by its parts (cli/check.py, cli/signin_check.py): one line each, its mark and its fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gitea_mcp.gitea.errors import Forbidden, GiteaError

Mark = Literal["ok", "warn", "fail", "skip"]


@dataclass(frozen=True)
class Line:
    mark: Mark
    text: str
    fix: str = ""


def lacks_scope(exc: GiteaError) -> bool:
    """Gitea's 403 for a token without the route's scope (worded `required scope(s)` in every version)."""
    return isinstance(exc, Forbidden) and exc.missing_scope is not None
