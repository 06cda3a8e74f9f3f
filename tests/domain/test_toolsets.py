"""The toolsets declared: the names GITEA_TOOLSETS takes and each tool's SPEC names (tests/toolkit/test_spec.py)."""

from __future__ import annotations

from gitea_mcp.domain.toolsets import TOOLSETS


def test_the_toolsets_are_the_declared_four_in_order() -> None:
    """GITEA_TOOLSETS names these, and check, config and the docs say them in this order."""
    assert TOOLSETS == ("issues", "labels", "milestones", "people")
