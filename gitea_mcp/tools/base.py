"""What every tool shares: its dependencies, argument checks, and the error boundary."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from gitea_mcp import render
from gitea_mcp.errors import ToolFailure
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.policy import Policy

log = logging.getLogger("gitea_mcp.tools")

Owner = Annotated[str, Field(description="Repository owner (user or organisation); must be allowlisted.")]
RepoName = Annotated[str, Field(description="Repository name.")]
Number = Annotated[int, Field(description="Issue or pull request number (the #N in Gitea).", ge=1)]


@dataclass
class Deps:
    """Injected into every tool: tests pass their own client, the server passes the configured one."""

    client: GiteaClient
    policy: Policy
    catalog: Catalog = field(default_factory=Catalog)


def guard(call: Callable[[], CallToolResult], tool: str) -> CallToolResult:
    """Turn every failure into an `isError` result: our own messages as they are, anything else generic."""
    try:
        return call()
    except ToolFailure as exc:
        return render.error(str(exc))
    except Exception as exc:
        # Unexpected: keep the details in the server's log (stderr), give the model a usable sentence.
        log.exception("%s failed unexpectedly", tool)
        return render.error(f"{tool} failed inside gitea_mcp ({type(exc).__name__}); the server log has details.")


def choice(value: str, allowed: tuple[str, ...], field_name: str) -> str:
    """Check an enumerated argument ourselves: Gitea quietly treats unknown values as the default."""
    if value not in allowed:
        raise ToolFailure(f"{field_name}={value!r} is not valid; use one of: {', '.join(allowed)}.")
    return value


def enum(values: tuple[str, ...]) -> dict[str, object]:
    """Advertise the allowed values in the schema while `choice` gives the error a model can act on."""
    return {"enum": list(values)}


def rfc3339(value: str, field_name: str) -> str:
    """Accept RFC 3339 or a plain date (midnight UTC); Gitea answers 422 to anything else."""
    text = value.strip()
    try:
        if len(text) == 10:
            moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
    except ValueError:
        raise ToolFailure(
            f"{field_name}={value!r} is not a date; use RFC 3339 like 2026-01-31T00:00:00Z or a date like 2026-01-31."
        ) from None
    return moment.isoformat().replace("+00:00", "Z")


def split_names(raw: str | list[str] | None) -> list[str]:
    """`"bug, ui"` or `["bug", "ui"]` → `["bug", "ui"]`."""
    if raw is None:
        return []
    parts = raw.split(",") if isinstance(raw, str) else raw
    return [part.strip() for part in parts if part.strip()]
