"""A listing's rows as the structured face holds them: the card's objects, one per issue.

`issue_list` and `issue_search` answer `{number, title, state, labels, assignees, created_at, updated_at, comments,
html_url}` per row, so a program reads `issues[0]["html_url"]` as the card promises. Only what those keys cannot
carry is added, and only where it can vary: `is_pull` where the listing may hold pull requests (a PR's `html_url`
already ends in /pulls/N, but a program should not parse URLs to tell), `repository` where a search spans
repositories. An absent key is left out, never sent as null. The text face stays one compact line per row.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit import facts


def _absent(value: object) -> bool:
    return value is None


class IssueRow(BaseModel):
    """One issue of a listing, as the card names its keys; `html_url` is the issue's (or the PR's) own web page."""

    number: int
    title: str
    state: str
    labels: list[str]
    assignees: list[str]
    created_at: str
    updated_at: str
    comments: int
    html_url: str
    # Optional in the schema, left out of a row rather than null (SkipJsonSchema: no null in the schema either).
    is_pull: Annotated[
        bool | SkipJsonSchema[None], Field(description="Where PRs may be listed.", exclude_if=_absent)
    ] = None


class SearchRow(IssueRow):
    """A search's row: an issue's, and where the search spans an owner's repositories, the issue's repository."""

    repository: Annotated[str | SkipJsonSchema[None], Field(description="owner/name.", exclude_if=_absent)] = None


_CARD = tuple(name for name in IssueRow.model_fields if name != "is_pull")


def issue_row(issue: Issue, pulls_in: bool) -> IssueRow:
    """`issue` as a listing's row; `pulls_in`: the listing may hold pull requests, so each row says if it is one."""
    return IssueRow(**facts.issue_facts(issue, _CARD), is_pull=_pull(issue) if pulls_in else None)


def search_row(issue: Issue, pulls_in: bool, repository: str | None) -> SearchRow:
    """`issue` as a search's row; `repository` only where the search spans repositories."""
    return SearchRow(
        **facts.issue_facts(issue, _CARD), is_pull=_pull(issue) if pulls_in else None, repository=repository
    )


def _pull(issue: Issue) -> bool:
    return issue.pull_request is not None
