"""A registry of known shape for the tests of GITEA_TOOLSETS: the real `issues` tools, and in place of the other
toolsets' real tools a read tool of `labels` and a write tool of `people`; `milestones` holds none. The filtering
is then tested the same whatever tools the other toolsets come to have."""

from __future__ import annotations

import dataclasses

import pytest

from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.spec import ToolSpec

LABEL_READ = ToolSpec.reading(
    "label_peek", "Reads labels.", "read:issue", toolset="labels", order=90, budget=1, listed_budget=1
)
PEOPLE_WRITE = dataclasses.replace(LABEL_READ, name="people_poke", toolset="people", writes=True, order=91)


def with_other_toolsets(monkeypatch: pytest.MonkeyPatch) -> tuple[ToolSpec, ...]:
    """The `issues` tools and these two (in listing order): what `registry.every()` then answers."""
    issues_alone(monkeypatch)
    monkeypatch.setattr(
        registry, "_SPECS", {**registry._SPECS, LABEL_READ.name: LABEL_READ, PEOPLE_WRITE.name: PEOPLE_WRITE}
    )
    return registry.every()


def issues_alone(monkeypatch: pytest.MonkeyPatch, writes_only: bool = False) -> None:
    """The registry holding the `issues` tools alone (`writes_only`: its write tools alone), as it does before any
    other toolset has a tool."""
    specs = {
        name: spec
        for name, spec in registry._SPECS.items()
        if spec.toolset == "issues" and (spec.writes or not writes_only)
    }
    monkeypatch.setattr(registry, "_SPECS", specs)
