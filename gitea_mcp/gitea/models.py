"""The parts of Gitea's JSON that gitea_mcp reads. Unknown fields are ignored; Go's nulls become defaults."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def _list_or_empty(value: Any) -> Any:
    # Gitea serialises an empty Go slice as null (assignees, labels on old versions).
    return [] if value is None else value


class User(_Model):
    id: int = 0
    login: str


class Label(_Model):
    id: int
    name: str
    exclusive: bool = False
    is_archived: bool = False


class Milestone(_Model):
    id: int
    title: str
    state: str = "open"


class PullRequestMeta(_Model):
    merged: bool = False
    draft: bool = False


class RepositoryMeta(_Model):
    owner: str = ""
    name: str = ""
    full_name: str = ""


class Issue(_Model):
    number: int
    title: str
    body: str | None = None
    state: str
    user: User | None = None
    original_author: str | None = None
    labels: list[Label] = []
    assignees: list[User] = []
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

    _nulls = field_validator("labels", "assignees", mode="before")(_list_or_empty)

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

    @property
    def author(self) -> str:
        if self.user and self.user.login and self.user.id > 0:
            return self.user.login
        return self.original_author or (self.user.login if self.user else "")
