"""What a tool is, declared once in its own module: name, description, its toolset, whether it writes, the scopes it
needs, its place in the listing and its size budget.

The server builds the MCP tool and its annotations from it, `check` verifies its scopes, the README's tool
reference and scope table are generated from it. The registry stores every tool's spec in `specs.json` so that
serving reads them without importing a tool module. Nothing here imports the MCP SDK, so `check` and `--help` stay
light.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

# A tool names its toolset, one of these (declared in domain/, where the settings read them too).
from gitea_mcp.domain.toolsets import TOOLSETS, Toolset

__all__ = ["TOOLSETS", "ToolSpec", "Toolset"]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    # What it is about, for GITEA_TOOLSETS; `writes` is what read-only mode filters on, apart from it.
    toolset: Toolset
    writes: bool
    scopes: tuple[str, ...]
    # Its place in tools/list: an agent reads the list in this order (reads first, the most used first).
    order: int
    # Bytes of its definition as tools/list sends it (compact JSON): what the model reads (name, description, input
    # schema), and the whole (with the output schema and hints). The list's budgets are the sums of these.
    budget: int
    listed_budget: int
    scope_note: str = ""  # what else it may use, e.g. read:user for @me
    destructive: bool = False  # may overwrite what is there (issue_update replaces a title, a body)
    idempotent: bool = True  # the same call twice leaves the same state; a write that files again is not

    @classmethod
    def reading(
        cls,
        name: str,
        description: str,
        *scopes: str,
        toolset: Toolset,
        order: int,
        budget: int,
        listed_budget: int,
        scope_note: str = "",
    ) -> ToolSpec:
        """A tool that only reads: read-only, idempotent."""
        return cls(name, description, toolset, False, scopes, order, budget, listed_budget, scope_note=scope_note)

    @classmethod
    def written_once(
        cls, name: str, description: str, *scopes: str, toolset: Toolset, order: int, budget: int, listed_budget: int
    ) -> ToolSpec:
        """A tool that files something new (an issue, a comment) at most once: not idempotent (a second call with
        allow_duplicate files again; docs/decisions/0003-writes-once.md), and it reads the token's own login
        (read:user) to find what it filed itself."""
        return cls(name, description, toolset, True, scopes, order, budget, listed_budget, idempotent=False)

    def stored(self) -> dict[str, Any]:
        """As `specs.json` keeps it."""
        return {**dataclasses.asdict(self), "scopes": list(self.scopes)}

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> ToolSpec:
        return cls(**{**stored, "scopes": tuple(stored["scopes"])})
