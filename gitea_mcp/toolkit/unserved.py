"""What a call to a tool this server does not serve is told (issue 34).

Not a tool result: the protocol's own error, -32602 (invalid params), which the server raises (server/app.py). Its
message is one plain sentence, as a tool's error is: a name gitea_mcp has no tool of names the nearest tool; a tool
gitea_mcp has but this server withholds says why, and how the operator offers it. Bad *arguments* to a served tool
stay tool errors (toolkit/arguments.py): the tool exists, the call was wrong.

A tool is withheld when its toolset is not served (GITEA_TOOLSETS), or when it writes and the server is read-only;
either is a `Withholding`, chosen in `withheld` (both: one sentence saying both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gitea_mcp.redaction import shown
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.spec import TOOLSETS, Toolset, ToolSpec

# MCP tool names are at most 128 characters: nothing longer is a tool name mistyped, and difflib is not run on it.
LONGEST_NAME = 128


@dataclass(frozen=True)
class Withholding:
    """Why this server does not offer a tool gitea_mcp has, and how its operator offers it."""

    reason: str  # for a client to act on, in the error's data: "toolset", "read-only"
    why: str  # what the operator set
    remedy: str  # what the operator changes, in a sentence
    change: str  # the same, as a step (for two at once)

    def also(self, other: Withholding) -> Withholding:
        """Both at once: the remedy of one alone would not offer the tool."""
        remedy = f"the operator offers it by {self.change}, {other.change}, and restarting the server"
        return Withholding(self.reason, f"{self.why}, and {other.why}", remedy, f"{self.change}, {other.change}")


READ_ONLY = Withholding(
    "read-only",
    "this server is read-only (GITEA_READ_ONLY=true or --read-only), which hides the tools that write",
    "the operator offers them by setting GITEA_READ_ONLY=false (or serving without --read-only) and restarting the "
    "server",
    "setting GITEA_READ_ONLY=false (or serving without --read-only)",
)


def left_out(spec: ToolSpec, toolsets: Sequence[Toolset]) -> Withholding:
    """`spec`'s toolset is not among the `toolsets` served."""
    change = f"adding {spec.toolset} to GITEA_TOOLSETS (or --toolsets)"
    return Withholding(
        "toolset",
        f"this server serves only {_toolsets(toolsets)} (GITEA_TOOLSETS or --toolsets), and {spec.name} is in the "
        f"{spec.toolset} toolset",
        f"the operator offers it by {change} and restarting the server",
        change,
    )


def _toolsets(names: Sequence[str]) -> str:
    """`the issues toolset`, `the issues and people toolsets`, `the issues, labels and people toolsets`."""
    if len(names) == 1:
        return f"the {names[0]} toolset"
    return f"the {', '.join(names[:-1])} and {names[-1]} toolsets"


def withheld(spec: ToolSpec, read_only: bool, toolsets: Sequence[Toolset] = TOOLSETS) -> Withholding | None:
    """Why `spec` is not offered, or None when it is: its toolset first, as the larger choice the operator made."""
    held = [
        *([left_out(spec, toolsets)] if spec.toolset not in toolsets else []),
        *([READ_ONLY] if read_only and spec.writes else []),
    ]
    if not held:
        return None
    return held[0] if len(held) == 1 else held[0].also(held[1])


@dataclass(frozen=True)
class Unserved:
    """The JSON-RPC error's message and data for a call to a tool not served."""

    message: str
    data: dict[str, Any]


def unserved(name: str, read_only: bool, toolsets: Sequence[Toolset] = TOOLSETS) -> Unserved:
    """What a tools/call of `name` is told when this server (read-only or not, serving `toolsets`) does not serve
    it."""
    offered = [spec.name for spec in registry.offered(read_only, toolsets)]
    tools = f"The tools offered: {', '.join(offered)}."
    spec = registry.declared(name)
    held = withheld(spec, read_only, toolsets) if spec is not None else None
    if held is not None:
        return Unserved(f"{name} is not offered: {held.why}; {held.remedy}. {tools}", {"reason": held.reason})
    guess = nearest(name)
    if guess is None:
        return Unserved(f"Unknown tool: {shown(name)}. {tools}", {"reason": "unknown", "nearest": None})
    guessed = registry.declared(guess)
    held = withheld(guessed, read_only, toolsets) if guessed is not None else None
    meant = f"did you mean {guess}?" if held is None else f"did you mean {guess}? It is not offered: {held.why}."
    return Unserved(f"Unknown tool: {shown(name)}; {meant} {tools}", {"reason": "unknown", "nearest": guess})


def nearest(name: str) -> str | None:
    """The tool a mistyped `name` most likely meant, among every tool gitea_mcp has (a withheld one too: then the
    caller learns why it is missing): the same words in another order or number (`list_issues`, `create-issue`),
    else the closest spelling, if any is close."""
    from difflib import get_close_matches  # only after a mistake: not at start-up

    if len(name) > LONGEST_NAME:
        return None
    names = [spec.name for spec in registry.every()]
    word = name.strip().lower().replace("-", "_")
    same = [known for known in names if _words(known) == _words(word)]
    if same:
        return same[0]
    close = get_close_matches(word, names, n=1, cutoff=0.6)
    return close[0] if close else None


def _words(name: str) -> tuple[str, ...]:
    """A name's words in order, each singular: issue_list, list_issues and issues-list all read (issue, list)."""
    return tuple(sorted(part.removesuffix("s") for part in name.split("_") if part))
