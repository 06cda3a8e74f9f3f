"""A tool's answer as MCP carries it: the text the model reads and the structured content, in one result."""

from __future__ import annotations

from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from gitea_mcp.tools.render import one_line


def result(text: str, structured: BaseModel) -> CallToolResult:
    """Both faces of one result: the compact text and the typed structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )


# In an error result's _meta: the arguments were wrong in themselves (failures.BadArgument); `call` exits 2 on it.
BAD_ARGUMENT = "gitea-issues-mcp/bad-argument"


def error(message: str, bad_argument: bool = False) -> CallToolResult:
    """An isError result: one line, whatever an echoed argument held (a newline is shown as ⏎)."""
    meta = {BAD_ARGUMENT: True} if bad_argument else None
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))], is_error=True, _meta=meta)
