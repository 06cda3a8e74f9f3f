"""A listing's rows: the card's keys, `is_pull` only where pull requests may be listed, `repository` only where a
search spans repositories; an absent key is left out, never null."""

from __future__ import annotations

import pytest

from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit.rows import issue_row, search_row
from tests.support.gitea_json import issue

CARD = {"number", "title", "state", "labels", "assignees", "created_at", "updated_at", "comments", "html_url"}


@pytest.mark.parametrize(("pulls_in", "extra"), [(False, set()), (True, {"is_pull"})])
def test_an_issue_row_holds_the_card_and_is_pull_where_pulls_may_be_listed(pulls_in: bool, extra: set[str]) -> None:
    row = issue_row(Issue.model_validate(issue(5, pull=True)), pulls_in=pulls_in)
    dumped = row.model_dump()
    assert set(dumped) == CARD | extra
    assert dumped["html_url"].endswith("/pulls/5")


@pytest.mark.parametrize(("repository", "extra"), [(None, set()), ("acme/widgets", {"repository"})])
def test_a_search_row_names_its_repository_only_across_repositories(repository: str | None, extra: set[str]) -> None:
    row = search_row(Issue.model_validate(issue(6)), pulls_in=False, repository=repository)
    assert set(row.model_dump()) == CARD | extra
