"""A milestone named on a write: by exact title, else by id; an unknown one refused, naming those there."""

from __future__ import annotations

import pytest
import responses

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.milestones import resolve_milestone
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT, milestone

MILESTONES = f"{API}/repos/acme/widgets/milestones"


def deps() -> Deps:
    client = GiteaClient(ROOT, TOKEN, timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())


@responses.activate
@pytest.mark.parametrize(("wanted", "found"), [("v1.0", 4), ("12", 12), ("4", 30)], ids=["title", "id", "title-first"])
def test_a_milestone_by_title_else_by_id(wanted: str, found: int) -> None:
    listed = [milestone("v1.0", 4), milestone("Later", 12), milestone("4", 30)]
    responses.get(MILESTONES, json=listed, headers={"X-Total-Count": "3"})
    assert resolve_milestone(deps(), "acme", "widgets", wanted).id == found


@responses.activate
def test_an_unknown_milestone_names_those_there_after_reading_afresh() -> None:
    responses.get(MILESTONES, json=[milestone("v1.0", 4)], headers={"X-Total-Count": "1"})
    with pytest.raises(
        ToolFailure, match=r"milestone 'v2' does not exist in acme/widgets\. Milestones there: 'v1\.0'\."
    ):
        resolve_milestone(deps(), "acme", "widgets", "v2")
