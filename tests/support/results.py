"""Reading a tool's result as an agent would: its text, its structured content, or its error."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, InputRequiredResult, TextContent

from tests.support import TOKEN


def answered(result: CallToolResult | InputRequiredResult) -> CallToolResult:
    """What MCPServer.call_tool returns, as a tool's answer: our tools never ask the client for more input."""
    assert isinstance(result, CallToolResult), result
    return result


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    assert TOKEN not in block.text
    return block.text


def ok(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    text = text_of(result)
    assert not result.is_error, text
    assert result.structured_content is not None
    return text, result.structured_content


def failed(result: CallToolResult) -> str:
    text = text_of(result)
    assert result.is_error, text
    assert result.structured_content is None
    assert "Traceback" not in text
    return text


def rows_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A listing's rows as an agent reads them: `issues` of issue_list, `results` of issue_search."""
    rows: list[dict[str, Any]] = data["issues"] if "issues" in data else data["results"]
    return rows
