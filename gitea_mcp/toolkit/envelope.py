"""A tool's answer as MCP carries it: the text the model reads and the structured content, in one result."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from gitea_mcp.domain.invisible import hides, scrub
from gitea_mcp.toolkit.render import one_line


def result(text: str, structured: BaseModel) -> CallToolResult:
    """Both faces of one result: the compact text and the typed structured content, every string of both
    scrubbed the one way (domain/invisible.py), whichever tool and row built it: the text face's names already
    are (toolkit/render.py), and what any other path let through is dropped here."""
    data = structured.model_dump(mode="json")
    return CallToolResult(
        content=[TextContent(type="text", text=scrub(text))],
        structured_content=scrubbed(data) if _hides(structured) else data,
    )


def _hides(structured: BaseModel) -> bool:
    """Whether any string of `structured` holds what `scrub` drops, read from its JSON in one search (42 µs to write
    for 50 rows, and a few to search: walking the values costs some 150): the controls below U+0020 are escaped
    there (`\\u001b`, `\\b`, `\\f`), the rest raw. A literal backslash before `u00` only costs a needless walk."""
    try:
        text = structured.model_dump_json()
    except PydanticSerializationError:  # a lone surrogate (`"\\ud800"` in an answer), which no UTF-8 can carry
        return True
    return hides(text) or "\\u00" in text or "\\b" in text or "\\f" in text


def scrubbed(value: Any) -> Any:
    """A JSON value with every string scrubbed (keys are our field names)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: scrubbed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [scrubbed(item) for item in value]
    return value


# In an error result's _meta: the arguments were wrong in themselves (failures.BadArgument); `call` exits 2 on it.
BAD_ARGUMENT = "gitea-issues-mcp/bad-argument"


def error(message: str, bad_argument: bool = False) -> CallToolResult:
    """An isError result: one line, whatever an echoed argument held (a newline is shown as ⏎)."""
    meta = {BAD_ARGUMENT: True} if bad_argument else None
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))], is_error=True, _meta=meta)
