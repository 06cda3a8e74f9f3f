"""What a tool is, declared once: name, description, whether it writes, the scopes it needs.

The server builds the MCP tool and its annotations from it, `check` verifies its scopes, the README's scope table is
generated from it. Nothing here imports the MCP SDK, so `check` and `--help` stay light.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    writes: bool
    scopes: tuple[str, ...]
    scope_note: str = ""  # what else it may use, e.g. read:user for @me
    destructive: bool = False  # may overwrite what is there (issue_update replaces a title, a body)
    idempotent: bool = True  # the same call twice leaves the same state; a write that files again is not

    @classmethod
    def reading(cls, name: str, description: str, *scopes: str, scope_note: str = "") -> ToolSpec:
        """A tool that only reads: read-only, idempotent."""
        return cls(name=name, description=description, writes=False, scopes=scopes, scope_note=scope_note)

    @classmethod
    def written_once(cls, name: str, description: str, *scopes: str) -> ToolSpec:
        """A tool that files something new (an issue, a comment) at most once: not idempotent (a second call with
        allow_duplicate files again; docs/decisions/0003-writes-once.md), and it reads the token's own login
        (read:user) to find what it filed itself."""
        return cls(name=name, description=description, writes=True, scopes=scopes, idempotent=False)
