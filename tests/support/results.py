"""Reading a tool's result as an agent would: its text, its structured content, or its error."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, InputRequiredResult, TextContent

from gitea_mcp.tools.table import WebUrls, address
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
    """A listing's table (tools/table.py: `columns`, then each row's values in that order) as the rows an agent
    reads, each with the web address filled in from `urls` as `html_url`."""
    key = "issues" if "issues" in data else "results"
    urls = WebUrls.model_validate(data["urls"]) if data.get("urls") else None
    named = [dict(zip(data["columns"], values, strict=True)) for values in data[key]]
    for row in named:
        if urls is not None:
            row["html_url"] = address(urls, row.get("repository", ""), row["number"], row["is_pull"])
    return named
