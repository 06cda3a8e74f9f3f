"""The tools: every module in `gitea_mcp/tools/`, found by listing that folder; no list of them is kept anywhere.

Each tool module declares itself whole: `SPEC` (a ToolSpec: name, description, scopes, annotations, toolset, order,
budgets) and `TOOL` (a ToolDefinition: the spec, the arguments, the output model, the handler).

A tool module is mostly the class creation of its pydantic models (arguments, result, Gitea's JSON): about 60 ms
of a server's start-up for the six (issue 25). So serving reads two files generated from the modules and stored
with the package: `specs.json` (every tool's spec, for `offered()`, read-only filtering, scopes, `check`) and
`listing.json` (tools/list as the models generate it); a tool module is imported only when it is first called.
What a server offers is filtered from both by its settings: the toolsets it serves (GITEA_TOOLSETS), and no
write tool when it is read-only.
tests/test_generated.py checks both files against the modules (REGENERATE makes them again). The
generation, `check --help`, `call --help` and the tests import the modules (`discovered()`, `definitions()`).

Nothing here imports a tool module, the MCP SDK or the Gitea client at import time.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitea_mcp.toolkit.spec import TOOLSETS, Toolset, ToolSpec

if TYPE_CHECKING:
    from gitea_mcp.toolkit.base import ToolDefinition

TOOLS = "gitea_mcp.tools"  # the package whose every module is a tool
# tools/list as the models generate it (`ToolDefinition.listing()`), every tool, in order; package data.
LISTING = Path(__file__).with_name("listing.json")
# Every tool's spec as its module declares it, in order; package data.
SPECS = Path(__file__).with_name("specs.json")
# How both are made again after a tool changes or is added, with the tools' example screens and the README's
# reference (then reviewed: they are the contract with every agent).
REGENERATE = "python -m tests.support.generated"


def _stored_specs() -> dict[str, ToolSpec]:
    stored: list[dict[str, Any]] = json.loads(SPECS.read_text(encoding="utf-8"))
    return {spec.name: spec for spec in sorted(map(ToolSpec.from_stored, stored), key=lambda s: s.order)}


_SPECS = _stored_specs()
# Each tool's module, holding its ToolDefinition as TOOL: gitea_mcp.tools.<name>.
_MODULE = {name: f"{TOOLS}.{name}" for name in _SPECS}


def declared(name: str) -> ToolSpec | None:
    """The tool `name` as gitea_mcp declares it, offered by this server or not; None for a name it has no tool of."""
    return _SPECS.get(name)


def every() -> tuple[ToolSpec, ...]:
    """Every tool gitea_mcp has, offered here or not, in listing order."""
    return tuple(_SPECS.values())


def offered(read_only: bool, toolsets: Collection[Toolset] = TOOLSETS) -> tuple[ToolSpec, ...]:
    """The tools a server offers, in the order it lists them: those of the `toolsets` it serves, and of those no
    write tool when it is read-only."""
    return tuple(spec for spec in _SPECS.values() if spec.toolset in toolsets and not (read_only and spec.writes))


def serves_nothing(read_only: bool, toolsets: Sequence[Toolset]) -> str | None:
    """The sentence refusing a server that would offer no tool (its toolsets hold none, or, read-only, only write
    tools), or None when it offers some: said at start by the command line, never found out by an agent."""
    if offered(read_only, toolsets):
        return None
    holding = [toolset for toolset in TOOLSETS if offered(read_only, (toolset,))]
    with_read_only = " with GITEA_READ_ONLY=true" if read_only else ""
    return (
        f"GITEA_TOOLSETS={','.join(toolsets)}{with_read_only} serves no tool; the toolsets with tools"
        f"{' to read' if read_only else ''}: {', '.join(holding) or 'none'}"
    )


def budgets(read_only: bool = False, toolsets: Collection[Toolset] = TOOLSETS) -> tuple[int, int]:
    """tools/list's byte budgets, the sums of the tools' own: what the model reads, and the whole list."""
    tools = offered(read_only, toolsets)
    return sum(spec.budget for spec in tools), sum(spec.listed_budget for spec in tools)


_lock = threading.Lock()
_loaded: dict[str, ToolDefinition] = {}


def definition(name: str) -> ToolDefinition:
    """The tool `name`, its module imported on the first ask. Two first calls at once on two threads import it
    once: the second waits for the first. A failed import is not kept (the next call tries again) and raises."""
    loaded = _loaded.get(name)
    if loaded is not None:
        return loaded
    with _lock:
        if name not in _loaded:
            tool: ToolDefinition = importlib.import_module(_MODULE[name]).TOOL
            if tool.spec != _SPECS[name]:  # the module's TOOL must be the tool stored in specs.json
                raise RuntimeError(f"{_MODULE[name]}.TOOL is not {name}'s spec (specs.json: {REGENERATE})")
            _loaded[name] = tool
        return _loaded[name]


def definitions(read_only: bool = False) -> tuple[ToolDefinition, ...]:
    """Every offered tool, each module imported: for `check`, `call --help`, the tests; never the serve path."""
    return tuple(definition(spec.name) for spec in offered(read_only))


def module_names() -> list[str]:
    """The tool modules, found by listing the tools package's folders: a new module there is a new tool."""
    package = importlib.import_module(TOOLS)
    found = {path.stem for folder in package.__path__ for path in Path(folder).glob("*.py")}
    return sorted(found - {"__init__"})


def discovered() -> tuple[ToolDefinition, ...]:
    """Every tool module in the folder, imported, in listing order: what the generated files are made from, and
    what the tests cover (a module not yet in specs.json too)."""
    tools: list[ToolDefinition] = []
    for stem in module_names():
        module = importlib.import_module(f"{TOOLS}.{stem}")
        tool: ToolDefinition = module.TOOL
        if tool.spec is not module.SPEC or tool.spec.name != stem:
            raise RuntimeError(f"{TOOLS}.{stem}: TOOL must hold SPEC, named {stem!r} as its module")
        tools.append(tool)
    return tuple(sorted(tools, key=lambda tool: (tool.spec.order, tool.spec.name)))


def stored_listing(read_only: bool, toolsets: Collection[Toolset] = TOOLSETS) -> list[dict[str, Any]]:
    """tools/list as stored with the package (JSON, in the order and the shape the SDK sends it), for the tools
    offered."""
    names = {spec.name for spec in offered(read_only, toolsets)}
    stored: list[dict[str, Any]] = json.loads(LISTING.read_text(encoding="utf-8"))
    return [tool for tool in stored if tool["name"] in names]


def generated_listing() -> str:
    """`listing.json` as the models generate it, every tool: what tests/test_generated.py compares it with."""
    listed = [tool.listing().model_dump(mode="json", by_alias=True, exclude_none=True) for tool in discovered()]
    return json.dumps(listed, indent=1, ensure_ascii=False) + "\n"


def generated_specs() -> str:
    """`specs.json` as the tool modules declare it: compared and written like the listing."""
    return json.dumps([tool.spec.stored() for tool in discovered()], indent=1, ensure_ascii=False) + "\n"
