"""The parts of Gitea's JSON that gitea_mcp reads. Unknown fields are ignored; Go's nulls become defaults."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetPydanticSchema, RootModel, field_validator
from pydantic_core import core_schema


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def _list_or_empty(value: list[Any] | None) -> list[Any]:
    return [] if value is None else value


# A Go slice: Gitea serialises an empty one as null (assignees; labels on old versions), read here as an empty
# list. The null is let through by pydantic-core and turned into [] after the list is checked: a "before"
# validator would make pydantic build each issue's JSON array as Python objects first, which cost a 50-row page
# 0.27 of its 0.97 ms of parsing.
GoList = GetPydanticSchema(
    lambda source, handler: core_schema.no_info_after_validator_function(
        _list_or_empty, core_schema.nullable_schema(handler(source))
    )
)


_CANONICAL_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_OFFSET = re.compile(r"[+-]\d\d:\d\d$")


def _utc(value: Any) -> Any:
    """Gitea renders times in its own zone (`2026-01-31T10:00:00+01:00` on a server in Berlin); every tool shows
    UTC so that times from different servers and fields compare at a glance."""
    if not isinstance(value, str) or not value or (value[-1] == "Z" and _CANONICAL_UTC.fullmatch(value)):
        return value  # the common case, a server in UTC: no parsing
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    if moment.tzinfo is None:
        return value
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _day(value: Any) -> Any:
    """A due date is a day: the date as the server shows it in its own zone (as its web pages do), not the UTC
    date of the stored instant, which can be the day before or after."""
    if isinstance(value, str) and len(value) >= 10:
        return value[:10]
    return value


class User(_Model):
    id: int = 0
    login: str


class Assignee(User):
    """A user as `GET /repos/{o}/{r}/assignees` lists them: with the full name (empty when none was set)."""

    full_name: str = ""


class UserSearch(_Model):
    """`GET /users/search`: `{"data": [users], "ok": true}`."""

    data: list[User] = []


class Label(_Model):
    id: int
    name: str
    exclusive: bool = False
    is_archived: bool = False
    color: str = ""  # six hex digits without '#' (Gitea 1.25, Forgejo 12)
    description: str = ""
    url: str = ""  # an organisation's label: `…/api/v1/orgs/{org}/labels/{id}`; a repository's: `…/repos/…`

    def of_org(self, org: str) -> bool:
        """Whether this is `org`'s organisation label (the only sign of it an issue row gives)."""
        return self.url.lower().endswith(f"/api/v1/orgs/{org.lower()}/labels/{self.id}")


class Milestone(_Model):
    id: int
    title: str
    state: str = "open"


class ListedMilestone(Milestone):
    """A milestone as `GET /repos/{o}/{r}/milestones` lists it: its issue counts and its due day. Gitea sends no
    `html_url` for a milestone (its page is `/{o}/{r}/milestone/{id}`)."""

    open_issues: int = 0
    closed_issues: int = 0
    due_on: str | None = None

    _due = field_validator("due_on", mode="before")(_day)


class PullRequestMeta(_Model):
    merged: bool = False
    draft: bool = False


class RepositoryMeta(_Model):
    owner: str = ""
    name: str = ""
    full_name: str = ""


def _offset(value: Any) -> str:
    """The UTC offset a server renders its times with (`+01:00`), read off one of them; `+00:00` when unknown."""
    if not isinstance(value, str) or value.endswith("Z"):
        return "+00:00"
    found = _OFFSET.search(value)
    return found.group(0) if found and found.group(0) != "-00:00" else "+00:00"


class Issue(_Model):
    # The zone the server renders in, read off the raw created_at (a field validator, not a model validator:
    # those make pydantic build a Python dict of every issue before validating it, which costs a list its speed).
    server_offset: str = Field("+00:00", validation_alias="created_at")
    number: int
    title: str
    body: str | None = None
    state: str
    user: User | None = None
    original_author: str | None = None
    labels: Annotated[list[Label], GoList] = []
    assignees: Annotated[list[User], GoList] = []
    milestone: Milestone | None = None
    comments: int = 0
    created_at: str
    updated_at: str
    closed_at: str | None = None
    due_date: str | None = None
    html_url: str = ""
    is_locked: bool = False
    pull_request: PullRequestMeta | None = None
    repository: RepositoryMeta | None = None

    _times = field_validator("created_at", "updated_at", "closed_at", mode="before")(_utc)

    _zone = field_validator("server_offset", mode="before")(_offset)

    _due = field_validator("due_date", mode="before")(_day)

    @property
    def author(self) -> str:
        """The login, or the original author of an issue migrated from another forge."""
        if self.user and self.user.login and self.user.id > 0:
            return self.user.login
        return self.original_author or (self.user.login if self.user else "")


class Comment(_Model):
    id: int
    html_url: str = ""
    user: User | None = None
    original_author: str | None = None
    body: str = ""
    created_at: str
    updated_at: str = ""

    _times = field_validator("created_at", "updated_at", mode="before")(_utc)

    @property
    def author(self) -> str:
        if self.user and self.user.login and self.user.id > 0:
            return self.user.login
        return self.original_author or (self.user.login if self.user else "")


class Team(_Model):
    """A team as a review request names it, or as `GET /repos/{o}/{r}/teams` lists it: `units_map` gives each
    unit's access (`repo.issues`: none, read, write, admin, owner); `permission` is `none` for a team made with
    per-unit access, as the web UI makes them (Gitea 1.25.4, Forgejo 12.0.4)."""

    id: int = 0
    name: str = ""
    permission: str = ""
    units_map: dict[str, str] = {}


class RepoPermission(_Model):
    """`GET /repos/{o}/{r}/collaborators/{user}/permission`: owner, admin, write, read or none."""

    permission: str = ""


class PullReview(_Model):
    """`GET /repos/{o}/{r}/pulls/{n}/reviews` (read:repository): state APPROVED, REQUEST_CHANGES, COMMENT, PENDING
    (a draft, shown to its reviewer) or REQUEST_REVIEW (a review asked of a user or a team, not given yet)."""

    id: int
    user: User | None = None
    team: Team | None = None
    state: str = ""
    body: str = ""
    stale: bool = False
    dismissed: bool = False
    comments_count: int = 0
    submitted_at: str = ""
    html_url: str = ""

    _times = field_validator("submitted_at", mode="before")(_utc)


class PullReviewComment(_Model):
    """An inline comment of a review: `position` is its line in the new file, `original_position` in the old one
    (a removed line); the other is 0."""

    id: int
    user: User | None = None
    resolver: User | None = None
    body: str = ""
    path: str = ""
    position: int = 0
    original_position: int = 0
    created_at: str = ""
    html_url: str = ""

    _times = field_validator("created_at", mode="before")(_utc)


class TimelineEntry(_Model):
    """One entry of `GET /repos/{o}/{r}/issues/{n}/timeline` (an issue route: read:issue). `type` names the event:
    `comment`, `review` (a submitted review: its body, `review_id`, no state), `dismiss_review` (its message, the
    dismissed review's `review_id`), `review_request`, `label`, `close`, … Inline comments of reviews (`code`) are
    never listed (docs/server-behaviour.md)."""

    id: int = 0
    type: str = ""
    user: User | None = None
    body: str = ""
    review_id: int = 0
    created_at: str = ""
    html_url: str = ""

    _times = field_validator("created_at", mode="before")(_utc)


class Timeline(RootModel[Annotated[list[TimelineEntry | None], GoList]]):
    """The timeline as Gitea sends it: `null` when it has no entry (a Go nil slice), and a `null` in place of an
    entry Gitea failed to convert (it logs the error and goes on: a reference to an issue since deleted)."""

    @property
    def entries(self) -> list[TimelineEntry]:
        return [entry for entry in self.root if entry is not None]
