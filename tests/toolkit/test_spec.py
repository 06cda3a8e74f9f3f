"""A tool's spec: what its constructors declare, its toolset, and the form specs.json stores it in, read back the
same."""

from __future__ import annotations

import json

import pytest

from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.spec import TOOLSETS, ToolSpec

READ = ToolSpec.reading(
    "t_read", "Reads.", "read:issue", toolset="labels", order=1, budget=10, listed_budget=20, scope_note="(x)"
)
ONCE = ToolSpec.written_once(
    "t_once", "Files.", "write:issue", "read:user", toolset="issues", order=2, budget=10, listed_budget=20
)


@pytest.mark.parametrize(
    ("spec", "toolset", "writes", "idempotent", "destructive"),
    [(READ, "labels", False, True, False), (ONCE, "issues", True, False, False)],
    ids=["reading", "written_once"],
)
def test_the_constructors_say_what_a_tool_does(
    spec: ToolSpec, toolset: str, writes: bool, idempotent: bool, destructive: bool
) -> None:
    assert (spec.toolset, spec.writes, spec.idempotent, spec.destructive) == (toolset, writes, idempotent, destructive)


@pytest.mark.parametrize("spec", registry.every(), ids=lambda s: s.name)
def test_every_tool_belongs_to_a_declared_toolset(spec: ToolSpec) -> None:
    assert spec.toolset in TOOLSETS


@pytest.mark.parametrize("spec", [READ, ONCE, *registry.every()], ids=lambda s: s.name)
def test_a_stored_spec_reads_back_the_same(spec: ToolSpec) -> None:
    stored = json.loads(json.dumps(spec.stored()))
    assert ToolSpec.from_stored(stored) == spec
    assert isinstance(stored["scopes"], list)
