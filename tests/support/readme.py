"""The README's generated parts, from the same declarations the agents read and `config` prints, so the docs
cannot drift from them: the tools reference (tests/test_readme.py), the scope table and the client sections
(tests/cli/test_client_entries.py). Test code: none of it ships in the package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitea_mcp.cli.client_entries import CLIENTS, PLACEHOLDER_REMOTE, Setup, Snippet, snippets
from gitea_mcp.toolkit.arguments import argument_schemas
from gitea_mcp.toolkit.base import ToolDefinition
from gitea_mcp.toolkit.spec import ToolSpec


def argument_table(tool: ToolDefinition) -> str:
    schema = argument_schemas(tool.args)
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
_OWN_MEANINGS = {
    ("issue_update", "state"): "The new state.",
    ("issue_update", "title"): "The new one-line title.",
    ("milestone_list", "state"): "Which milestones, by state.",
}


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


def readme_table(tools: Iterable[ToolSpec]) -> str:
    """The README's scope table, with each tool's toolset (GITEA_TOOLSETS), generated so the docs cannot drift from
    the declarations."""
    rows = ["| tool | toolset | scopes |", "|---|---|---|"]
    for tool in tools:
        listed = ", ".join(f"`{scope}`" for scope in tool.scopes)
        note = f" {tool.scope_note}" if tool.scope_note else ""
        rows.append(f"| `{tool.name}` | `{tool.toolset}` | {listed}{note} |")
    return "\n".join(rows)


SIGNIN_SETUP = Setup(remote_url=PLACEHOLDER_REMOTE, signin=True)


def readme_sections() -> str:
    """The README's per-client setup, from the same builders as `config` so the two cannot drift."""
    parts = [
        "`gitea-issues-mcp config CLIENT` prints these with your `GITEA_URL` and `GITEA_ALLOWED_OWNERS` filled in "
        "and the launch command of the copy you installed (its full path, so a client with a short PATH finds it); "
        "`--launcher python` launches by your Python's full path, `--launcher uvx` by uvx's full path, `--http URL` "
        "connects to a remote server with your token, `--remote URL` to the team's server that signs you in with "
        "Gitea (no token in any file). Every other setting you give it, as a flag or in the environment, and not at "
        "its default (`--read-only`, `--timeout`, `--ca-bundle` as an absolute path, `--insecure`, `--log-level`) "
        "goes into the server's environment too; for a remote server those are its own settings, and stderr says "
        "they were not written. Without `GITEA_URL` or `GITEA_ALLOWED_OWNERS` it writes the placeholders below and "
        "says so on stderr. Its stdout is the file's content alone: `gitea-issues-mcp config vscode > "
        ".vscode/mcp.json` writes a valid file; the notes go to stderr. Below, the launch command is "
        "`uvx gitea-issues-mcp`, as it will be once the package is published.",
    ]
    for name, spec in CLIENTS.items():
        parts.append(f"### {spec.title}\n\n{spec.note} With your settings filled in: `gitea-issues-mcp config {name}`.")
        parts += [_markdown(snippet) for snippet in snippets(name, Setup())]
        parts.append("Remote server (streamable HTTP):")
        parts += [_markdown(snippet) for snippet in snippets(name, Setup(remote_url=PLACEHOLDER_REMOTE))]
        parts.append(f"The team server, signing you in with Gitea (`--remote URL`): {spec.signin_note}")
        parts += [_markdown(snippet) for snippet in snippets(name, SIGNIN_SETUP)]
    return "\n\n".join(parts) + "\n"


def _markdown(snippet: Snippet) -> str:
    return f"In {snippet.where}:\n\n```{snippet.language}\n{snippet.text}\n```"
