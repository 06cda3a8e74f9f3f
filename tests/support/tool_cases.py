"""The tools the safety suites cover, from the registry: no test keeps a list of them.

`tools()` is every module in gitea_mcp/tools/, imported (a module just added too, before specs.json knows it);
`served()` is what a server offers (specs.json), for the suites that go through the MCP server. `sample(tool)` is a
plain call of a tool, built from its argument declaration: every argument the vocabulary below names is given, so
a new tool whose arguments share these names needs no edit here.
"""

from __future__ import annotations

from typing import Any

from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.arguments import argument_schemas
from gitea_mcp.toolkit.base import ToolDefinition
from gitea_mcp.toolkit.spec import ToolSpec

ALLOWED_OWNER = "acme"
# An argument by its name, as a plain call gives it: an issue of the stand-in's acme/widgets (tests/support and
# gitea_mcp/standin seed it) that is open, titled, and not a pull request.
VOCABULARY: dict[str, Any] = {
    "owner": ALLOWED_OWNER,
    "name": "widgets",
    "number": 3,
    "query": "export",
    "title": "Export fails on empty input",
    "body": "Seen on the nightly build.",
}


# Tools whose route answers read:repository alone, beyond the documented token (write:issue, read:user); each
# declares it as a scope note, so that neither `check` nor the sign-in asks every user for it. A suite that wants
# their answer rather than the refusal calls them with a token that has it.
NEEDS_READ_REPOSITORY = frozenset({"assignee_list"})
# Reads Gitea answers only to a token, public repository or not (401; docs/server-behaviour.md).
TOKEN_ONLY_READS = frozenset({"assignee_list"})


def tools() -> tuple[ToolDefinition, ...]:
    """Every tool module in gitea_mcp/tools/, in listing order."""
    return registry.discovered()


def served() -> tuple[ToolSpec, ...]:
    """Every tool a server offers when not read-only, in listing order."""
    return registry.every()


def name_of(tool: ToolDefinition | ToolSpec) -> str:
    """A test id: the tool's name."""
    return tool.spec.name if isinstance(tool, ToolDefinition) else tool.name


def sample(tool: ToolDefinition, values: dict[str, Any] | None = None, **changed: Any) -> dict[str, Any]:
    """A plain call of `tool`: each argument the vocabulary (with `values` over it) names and the tool takes;
    `changed` replaces or adds some."""
    vocabulary = {**VOCABULARY, **(values or {})}
    schema = argument_schemas(tool.args)
    required = set(schema.get("required", []))
    unknown = required - set(vocabulary)
    assert not unknown, f"{tool.spec.name} requires {sorted(unknown)}: give them a value in tests/support/tool_cases.py"
    return {**{key: value for key, value in vocabulary.items() if key in schema["properties"]}, **changed}


def arguments_of(tool: ToolDefinition) -> dict[str, dict[str, Any]]:
    """Each argument's schema, by name."""
    properties: dict[str, dict[str, Any]] = argument_schemas(tool.args)["properties"]
    return properties
