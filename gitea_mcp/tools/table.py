"""Rows of a listing as the structured face holds them: a table, and the issues' web addresses as one template.

A client may hand structuredContent to the model as it is, so a 50-row page must not cost three times its text
(issue 25): the column names are said once (`columns`), each row is an array of values in that order (typed per
position in the output schema: `prefixItems`), and the web address of an issue, which Gitea spells the same way
for every row, is one template (`urls`) instead of a URL per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

NUMBER = "{number}"
REPOSITORY = "{repository}"


class WebUrls(BaseModel):
    """`https://host/acme/widgets/issues/{number}`: an issue's web page, and a pull request's (Gitea serves a PR
    under /pulls/). `{repository}` stands for a row's owner/name where rows come from several repositories."""

    issue: str
    pull: str


@dataclass(frozen=True)
class Place:
    """What a row's web address is made of, as Gitea sent it."""

    repository: str  # owner/name
    number: int
    is_pull: bool
    html_url: str


def web_urls(places: Sequence[Place], one_repository: bool) -> WebUrls | None:
    """The template every row's address fits; None when there are no rows or one address does not fit it (never
    seen: Gitea builds each from the server's root URL, the repository and the number, services/convert)."""
    if not places:
        return None
    first = places[0]
    root = first.html_url.removesuffix(_path(first.repository, first.is_pull, first.number))
    if root == first.html_url:
        return None
    repository = first.repository if one_repository else REPOSITORY
    urls = WebUrls(issue=f"{root}/{repository}/issues/{NUMBER}", pull=f"{root}/{repository}/pulls/{NUMBER}")
    if any(address(urls, p.repository, p.number, p.is_pull) != p.html_url for p in places):
        return None
    return urls


def address(urls: WebUrls, repository: str, number: int, is_pull: bool) -> str:
    """One row's web address, filled in from the template (as an agent would)."""
    template = urls.pull if is_pull else urls.issue
    return template.replace(REPOSITORY, repository).replace(NUMBER, str(number))


def _path(repository: str, is_pull: bool, number: int) -> str:
    return f"/{repository}/{'pulls' if is_pull else 'issues'}/{number}"
