"""A milestone named on a write (issue_create, issue_update), found as Gitea's list finds it."""

from __future__ import annotations

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea.catalog import fresh, milestone_named
from gitea_mcp.gitea.models import Milestone
from gitea_mcp.toolkit.base import Deps


def resolve_milestone(deps: Deps, owner: str, name: str, wanted: str) -> Milestone:
    """A milestone by exact title, else by id; the cached list is read afresh before a name is refused."""
    milestones = fresh(
        lambda at: deps.catalog.milestones(deps.client, owner, name, at),
        lambda got: milestone_named(got, wanted) is None,
    )
    found = milestone_named(milestones, wanted)
    if found is None:
        titles = ", ".join(repr(m.title) for m in milestones) or "(none)"
        raise ToolFailure(f"milestone {wanted!r} does not exist in {owner}/{name}. Milestones there: {titles}.")
    return found
