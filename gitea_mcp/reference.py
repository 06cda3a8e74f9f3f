"""The tools reference in the README, from the same declarations the agents read (tests/test_readme.py keeps the
README equal to it): every argument with its type, default, range or values, and what it means."""

from __future__ import annotations

from typing import Any

from gitea_mcp.tools.arguments import input_schema
from gitea_mcp.tools.base import ToolDefinition


def argument_table(tool: ToolDefinition) -> str:
    schema = input_schema(tool.args)
    required = set(schema.get("required", []))
    rows = ["| argument | type | default | values | meaning |", "|---|---|---|---|---|"]
    for name, prop in schema["properties"].items():
        default = "required" if name in required else _default(prop)
        said = _OWN_MEANINGS.get((tool.spec.name, name), _MEANINGS.get(name))
        meaning = " ".join(part for part in (said, prop.get("description")) if part)
        rows.append(f"| `{name}` | {_type(prop)} | {default} | {_values(prop)} | {meaning} |")
    return "\n".join(rows)


# Where the schema leaves the words to its enum, default and bounds (or to the argument's name or the tool's
# description), the reader of the README still gets a meaning.
_MEANINGS = {
    "state": "Which issues, by state.",
    "type": "Issues, pull requests, or both.",
    "page": "Page number.",
    "limit": "Rows per page.",
    "comments_page": "Page of 20 comments, oldest first.",
    "since": "Updated at or after (a date: from its start).",
    "before": "Updated strictly before (a date: before it starts).",
    "created_by": "Author.",
    "title": "One-line title.",
    "add_labels": "Labels to add.",
    "remove_labels": "Labels to remove.",
    "allow_duplicate": "Write even if the same was just written (see above).",
}


# An argument a write tool shares by name with the filters, where it means something else.
_OWN_MEANINGS = {("issue_update", "state"): "The new state.", ("issue_update", "title"): "The new one-line title."}


def _type(prop: dict[str, Any]) -> str:
    if prop.get("type") == "array":
        return "list of strings (or one comma-separated string)"
    return {"integer": "integer", "boolean": "boolean"}.get(prop.get("type", ""), "string")


def _default(prop: dict[str, Any]) -> str:
    if "default" not in prop:
        return "—"
    value = prop["default"]
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value!r}`" if value == "" else f"`{value}`"


def _values(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return ", ".join(f"`{value}`" for value in prop["enum"])
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        return f"{low}–{high:,}".replace(",", " ")
    if low is not None:
        return f"{low} or more"
    return ""
