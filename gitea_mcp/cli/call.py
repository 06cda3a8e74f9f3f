"""call: run one tool once and print what an agent would read — for humans checking, and for scripts.

The tool runs in this process behind a real MCP client session (tools/list, then tools/call), so the SDK's
argument validation and error results are exactly those an agent gets over stdio or HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gitea_mcp.cli.main import FAILED, OK, USAGE
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit.registry import declared, offered
from gitea_mcp.toolkit.unserved import withheld

if TYPE_CHECKING:  # the SDK import is most of start-up: at run time only when a tool runs
    from mcp.server.mcpserver import MCPServer
    from mcp_types import CallToolResult

HELP = "run one tool once and print the text an agent would read (--json: its structured content)"
_INTEGER = re.compile(r"-?\d+")


class UsageError(Exception):
    """The command line itself is wrong (exit 2); nothing was sent to Gitea."""


class UnknownTool(UsageError):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tool", metavar="TOOL", help="the tool to run, e.g. issue_list")
    parser.add_argument(
        "arguments",
        nargs="*",
        metavar="KEY=VALUE",
        help="its arguments, e.g. owner=acme name=widgets limit=5 labels=bug,ui; values become numbers, "
        "booleans or comma lists where the tool's schema says so, and JSON when they start with [ or {",
    )
    parser.add_argument("--json", action="store_true", help="print the structured content as JSON instead")


def list_tools_in(parser: argparse.ArgumentParser) -> None:
    """`call --help` ends with the tools and what each does (from their specs: no tool module, no SDK import)."""
    tools = offered(read_only=False)
    width = max(len(spec.name) for spec in tools)
    lines = ["tools (GITEA_READ_ONLY hides the writing ones):"]
    for spec in tools:
        lines.append(f"  {spec.name:<{width}}  {_first_sentence(spec.description)}")
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "\n".join(lines)


def _hint(tool: str, settings: Settings) -> str:
    """Why a tool gitea_mcp has is not served here: its toolset left out (GITEA_TOOLSETS), or read-only."""
    spec = declared(tool)
    held = withheld(spec, settings.read_only, settings.toolsets) if spec is not None else None
    if held is not None and held.reason == "toolset":
        return f" ({held.why})"
    return " (GITEA_READ_ONLY hides the write tools)" if settings.read_only else ""


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]


def run(ns: argparse.Namespace, settings: Settings) -> int:
    # why: the MCP SDK, 0.45 s: every command module is imported for `--help`
    from gitea_mcp.server.app import build_server

    try:
        result = asyncio.run(call(build_server(settings), ns.tool, ns.arguments))
    except UsageError as exc:
        hint = _hint(ns.tool, settings) if isinstance(exc, UnknownTool) else ""
        if ns.json:  # a script reading --json gets its error where it reads, in the same shape as a tool's
            print(error_json(f"{exc}{hint}", ns.tool))
        else:
            print(f"gitea-issues-mcp call: {exc}{hint}", file=sys.stderr)
        return USAGE
    return emit(result, ns.json, ns.tool)


async def call(server: MCPServer, tool: str, pairs: Sequence[str]) -> CallToolResult:
    """Convert the arguments by the tool's listed input schema, then call it as an MCP client would."""
    from mcp import Client  # why: the MCP SDK, 0.45 s: every command module is imported for `--help`

    # Checked before the session opens: inside it, anyio would wrap our errors in an ExceptionGroup.
    tools = {listed.name: listed for listed in await server.list_tools()}
    if tool not in tools:
        raise UnknownTool(f"no tool {tool!r}; the tools are: {', '.join(tools)}")
    arguments = parse_arguments(pairs, tools[tool].input_schema)
    async with Client(server) as client:
        return await client.call_tool(tool, arguments)


def emit(result: CallToolResult, as_json: bool, tool: str) -> int:
    """Text mode: the result on stdout, an error result on stderr. `--json`: stdout holds JSON either way."""
    from mcp_types import TextContent  # why: the SDK's types, 85 ms: every command module is imported for `--help`

    from gitea_mcp.toolkit.envelope import BAD_ARGUMENT

    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    if result.is_error:
        # Arguments wrong in themselves are a command-line mistake (exit 2), in the sentence an agent reads.
        usage = bool((result.meta or {}).get(BAD_ARGUMENT))
        shown = f"gitea-issues-mcp call: {text}" if usage and not as_json else text
        print(error_json(text, tool) if as_json else shown, file=sys.stdout if as_json else sys.stderr)
        return USAGE if usage else FAILED
    # ASCII-escaped JSON reads the same anywhere, whatever the console's code page.
    print(json.dumps(result.structured_content, indent=2) if as_json else text)
    return OK


def error_json(sentence: str, tool: str) -> str:
    return json.dumps({"error": sentence, "tool": tool}, indent=2)


def parse_arguments(pairs: Sequence[str], schema: Mapping[str, Any]) -> dict[str, Any]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{pair!r} is not KEY=VALUE")
        if key in arguments:
            raise UsageError(f"{key} is given twice")
        # A name the tool does not take stays as typed: the tool's own check names it (check_arguments).
        arguments[key] = convert(raw, properties[key]) if key in properties else raw
    return arguments


def schema_types(schema: Mapping[str, Any]) -> set[str]:
    """Every JSON type a property admits: `type` as a string or list, and the types inside `anyOf`."""
    declared = schema.get("type", [])
    types = {declared} if isinstance(declared, str) else set(declared)
    for variant in schema.get("anyOf", []):
        types |= schema_types(variant)
    return types


def convert(raw: str, schema: Mapping[str, Any]) -> Any:
    """Typed as the schema says; anything that does not fit stays a string for the SDK's validation to judge."""
    types = schema_types(schema)
    # A title may well start with "[": JSON only where a string is not what the tool takes.
    if raw.startswith(("[", "{")) and "string" not in types:
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{raw!r} is not valid JSON ({exc.msg})") from None
    if "integer" in types and _INTEGER.fullmatch(raw):
        return int(raw)
    if "boolean" in types and raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    if "array" in types:
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw
