"""What every tool shares: its dependencies, argument checks, and the error boundary."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any

from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field, Strict

from gitea_mcp import render
from gitea_mcp.errors import ToolFailure, shown
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, call_deadline
from gitea_mcp.policy import Policy
from gitea_mcp.spec import ToolSpec

log = logging.getLogger("gitea_mcp.tools")

Owner = Annotated[str, Field(description="User or organisation; must be allowlisted.")]
RepoName = Annotated[str, Field(description="Repository name.")]
# Whole numbers only: pydantic would otherwise read `true` as 1 (and edit issue #1) and "7" as 7.
MAX_NUMBER = 2_147_483_647
MAX_PAGE = 10_000
Number = Annotated[int, Strict(), Field(description="Issue or pull request number.", ge=1, le=MAX_NUMBER)]
PageNumber = Annotated[int, Strict(), Field(ge=1, le=MAX_PAGE)]
Limit = Annotated[int, Strict(), Field(description="Rows per page, 1-50 (default 30).")]


@dataclass
class Deps:
    """Injected into every tool: tests pass their own client, the server passes the configured one."""

    client: GiteaClient
    policy: Policy
    catalog: Catalog = field(default_factory=Catalog)


def guard(call: Callable[[], CallToolResult], tool: str, deps: Deps) -> CallToolResult:
    """Turn every failure into an `isError` result: our own messages as they are, anything else generic.

    The whole call runs against one deadline (a few GITEA_TIMEOUTs): however many requests a tool makes, and
    whatever the retries, it answers in bounded time.
    """
    try:
        with call_deadline(deps.client.call_budget):
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
        raise ToolFailure(f"{field_name}={shown(value)} is not valid; use one of: {', '.join(allowed)}.")
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
            f"{field_name}={shown(value)} is not a date; use RFC 3339 like 2026-01-31T00:00:00Z or a date like "
            "2026-01-31."
        ) from None
    return moment.isoformat().replace("+00:00", "Z")


def due_instant(value: str, offset: str = "+00:00") -> str:
    """A due date as the instant sent to Gitea: a plain date becomes noon of that day in the server's zone.

    Gitea shows a due date in its own zone. Creating keeps the instant; editing moves it to 23:59:59 of its day in
    the zone it was sent in (Gitea 1.22 in Berlin turned 2026-12-31T12:00:00Z into 2027-01-01T00:59:59+01:00).
    Noon in the server's zone stays that day either way; `offset` is unknown before an issue was read, and noon
    UTC is the same day in every zone from UTC-11 to UTC+11.
    """
    text = value.strip()
    if len(text) == 10:
        rfc3339(text, "due_date")  # refuse what is not a date
        return f"{text}T12:00:00{'Z' if offset == '+00:00' else offset}"
    return rfc3339(text, "due_date")


def split_names(raw: str | list[str] | None) -> list[str]:
    """`"bug, ui"` or `["bug", "ui"]` → `["bug", "ui"]`."""
    if raw is None:
        return []
    parts = raw.split(",") if isinstance(raw, str) else raw
    return [part.strip() for part in parts if part.strip()]


def make(fn: Callable[..., CallToolResult], spec: ToolSpec) -> Tool:
    """A Tool from its function and its spec, with schemas trimmed: every agent re-reads them on every turn."""
    annotations = ToolAnnotations(
        read_only_hint=not spec.writes,
        destructive_hint=spec.destructive,
        idempotent_hint=spec.idempotent,
        open_world_hint=True,
    )
    tool = Tool.from_function(fn, name=spec.name, description=spec.description, annotations=annotations)
    tool.parameters = compact_schema(tool.parameters)
    if tool.fn_metadata.output_schema is not None:
        # Output schemas are for validating structuredContent; the model reads the text, so no prose here.
        tool.fn_metadata.output_schema = compact_schema(tool.fn_metadata.output_schema, drop=("description",))
    return tool


def compact_schema(schema: Any, drop: tuple[str, ...] = ()) -> Any:
    """Drop pydantic's generated `title`s and `default: null`, spell `anyOf [X, null]` as `type: [X, "null"]`.

    The meaning is unchanged; every agent reads these schemas on every turn, so every byte counts.
    """
    if isinstance(schema, list):
        return [compact_schema(item, drop) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if (key == "title" and isinstance(value, str)) or (key == "default" and value is None) or key in drop:
            continue
        if key in ("properties", "$defs"):  # keys here are names, not keywords
            out[key] = {name: compact_schema(sub, drop) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value, drop)
    variants = out.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        other = next(v for v in variants if v != {"type": "null"})
        if set(other) == {"type"} and isinstance(other["type"], str):
            del out["anyOf"]
            out["type"] = [other["type"], "null"]
    return out
