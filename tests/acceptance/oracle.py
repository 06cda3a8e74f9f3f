"""What the server holds, read by the administrator straight from the API (and, on a live server, its web pages).

Nothing here knows what a tool answers or what the seeding meant to do: every expectation of the acceptance tasks
comes from these reads, made after the tool ran.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import requests

from tests.acceptance.world import World
from tests.contract.target import Http, Target

Row = dict[str, Any]
WEB_ROW = re.compile(r'class="tw-no-underline issue-title" href="[^"]*/(\d+)"')


@dataclass
class Listing:
    rows: list[Row]
    totals: list[int]  # X-Total-Count of every page read (all equal on a quiet server)


class Oracle:
    def __init__(self, target: Target, world: World) -> None:
        self.http = Http(target.url)
        self.token = target.admin_token
        self.url = target.url.rstrip("/")
        self.world = world
        self.live = target.live

    # -- lists ------------------------------------------------------------------------------------------------

    def pages(self, path: str, **params: object) -> Listing:
        """Every page of a list, 50 at a time, until a short page; with the server's count."""
        rows: list[Row] = []
        totals: list[int] = []
        for page in range(1, 200):
            answer = self.http.get(path, self.token, page=page, limit=50, **params)
            assert answer.status == 200, f"GET {path} {params}: {answer.status} {answer.text[:300]}"
            if answer.total is not None:
                totals.append(answer.total)
            rows += answer.body
            if not answer.body:
                return Listing(rows, totals)
        raise AssertionError("more than 200 pages")

    def issues(self, repo: str | None = None, **params: object) -> Listing:
        """The repository's issues list, as the admin's own API call with these parameters returns it."""
        return self.pages(self.world.path("issues", repo=repo), **params)

    def every(self, kind: str = "issues") -> list[Row]:
        """Every issue (or pull request) of the tracker in every state: what filters here are checked against."""
        return self.issues(state="all", type=kind).rows

    def numbers(self, keep: Callable[[Row], bool], kind: str = "issues") -> set[int]:
        return {row["number"] for row in self.every(kind) if keep(row)}

    def search(self, **params: object) -> Listing:
        return self.pages("/repos/issues/search", **params)

    # -- one issue --------------------------------------------------------------------------------------------

    def issue(self, number: int, repo: str | None = None) -> Row:
        return dict(self.http.ok("GET", self.world.path("issues", number, repo=repo), self.token))

    def comments(self, number: int, repo: str | None = None) -> list[Row]:
        return list(self.http.ok("GET", self.world.path("issues", number, "comments", repo=repo), self.token))

    def reviews(self, number: int) -> list[Row]:
        return list(self.http.ok("GET", self.world.path("pulls", number, "reviews"), self.token))

    def review_comments(self, number: int, review: int) -> list[Row]:
        return list(self.http.ok("GET", self.world.path("pulls", number, "reviews", review, "comments"), self.token))

    def titled(self, title: str) -> list[Row]:
        """Every issue of the tracker with exactly this title, any state."""
        return [row for row in self.every() if row["title"] == title]

    # -- web pages ---------------------------------------------------------------------------------------------

    def web_rows(self, link: str) -> list[int]:
        """The issue numbers of a web list page and the pages after it, read anonymously as the link's reader."""
        numbers: list[int] = []
        for page in range(1, 50):
            glue = "&" if "?" in link else "?"
            answer = requests.get(f"{self.url}/{link}{glue}page={page}", timeout=60)
            assert answer.status_code == 200, (link, answer.status_code)
            found = [int(n) for n in WEB_ROW.findall(answer.text)]
            if not found or set(found) <= set(numbers):
                return numbers
            numbers += found
        raise AssertionError("more than 50 web pages")


def link_means(world: World, every: Callable[[str], list[Row]], path: str) -> list[int]:
    """Which issues a web list link shows, read from the link's own parameters (for the stand-in, which renders no
    web pages; on a live server the pages themselves are read): labels (ids, all of them), milestone (an id),
    state (open by default; every state when none is given and no open issue matches), issues or pulls."""
    page, _, query = path.rpartition("/")[2].partition("?")
    params = dict(parse_qsl(query))
    label_of = {v: k for k, v in world.labels.items()}
    labels = {label_of[int(x)] for x in params.get("labels", "").split(",") if x}
    milestone = {v: k for k, v in world.milestones.items()}.get(int(params.get("milestone", "0")))

    def keep(row: Row, state: str) -> bool:
        return (
            labels <= label_names(row)
            and (milestone is None or (row.get("milestone") or {}).get("title") == milestone)
            and state in ("all", row["state"])
        )

    rows = every("pulls" if page == "pulls" else "issues")
    state = params.get("state", "open")
    shown = [row["number"] for row in rows if keep(row, state)]
    if not shown and "state" not in params:
        shown = [row["number"] for row in rows if keep(row, "all")]
    return shown


def label_names(row: Row) -> set[str]:
    return {label["name"] for label in row.get("labels") or []}


def logins(row: Row, key: str = "assignees") -> list[str]:
    return [user["login"] for user in row.get(key) or []]
