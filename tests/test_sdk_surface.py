"""We use the MCP SDK only through its public face, so a minor release cannot break us unseen.

Two halves: no module of ours reaches into the SDK's internals (an AST scan), and our tools, registered through
MCPServer's public `list_tools` and `call_tool`, are what a real client session lists and gets (the SDK's own
tools/list and tools/call handlers in between): were those handlers to stop answering through them, the tools would
vanish from the list and these tests would fail.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import inspect
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult

from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import registry
from tests.support.imports import imported, module_of
from tests.support.results import failed

ROOT = Path(__file__).parent.parent
OURS = sorted(path for folder in ("gitea_mcp", "tests", "bench") for path in (ROOT / folder).rglob("*.py"))
SNAPSHOT = registry.LISTING  # tools/list as stored with the package
SDK = ("mcp", "mcp_types")
# Public by their names, yet the SDK's own machinery: how it turns a Python function into a tool.
INTERNAL = ("mcp.server.mcpserver.utilities", "mcp.server.mcpserver.tools")


def reaches_inside(source: str, module: str, hidden: frozenset[str]) -> list[str]:
    """What `source` uses of the SDK that is not its public face: a private module or name, a module the SDK keeps
    for itself, a name its module does not export (`__all__`), or an attribute in `hidden`: the private ones of the
    SDK's classes (an AST cannot tell whose object `x` is in `x._name`; ours spell none of those names)."""
    tree = ast.parse(source)
    inherited = _inside_sdk_subclasses(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in hidden and (id(node) in inherited or not _own(node)):
            found.append(f".{node.attr}")
        elif isinstance(node, ast.ImportFrom) and not node.level and _is_sdk(node.module or ""):
            found += _outside_face(node.module or "", [alias.name for alias in node.names])
    found += [name for name in imported(source, module) if _is_sdk(name) and _internal_module(name)]
    return sorted(set(found))


def _own(node: ast.Attribute) -> bool:
    """`self._x` or `cls._x`: our own class's attribute (unless the class is the SDK's, subclassed)."""
    return isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


def _inside_sdk_subclasses(tree: ast.AST) -> set[int]:
    """The attribute nodes inside our subclasses of an SDK class: there `self._x` is the SDK's own `_x`."""
    sdk_names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and not node.level and _is_sdk(node.module or "")
        for alias in node.names
    }
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id in sdk_names for b in node.bases)
        for inner in ast.walk(node)
        if isinstance(inner, ast.Attribute)
    }


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_sdk(module: str) -> bool:
    return module.split(".")[0] in SDK


def _internal_module(module: str) -> bool:
    return any(_private(part) for part in module.split(".")) or module.startswith(INTERNAL)


def _outside_face(module: str, names: list[str]) -> list[str]:
    if _internal_module(module):
        return []  # said once, by the module
    exported = getattr(importlib.import_module(module), "__all__", None)
    return [f"{module}.{name}" for name in names if _private(name) or (exported is not None and name not in exported)]


def hidden_attributes(sources: list[str]) -> frozenset[str]:
    """The private attributes and methods of every SDK class `sources` import, their SDK base classes included."""
    hidden: set[str] = set()
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and not node.level and _is_sdk(node.module or ""):
                sdk = importlib.import_module(node.module or "")
                for alias in node.names:
                    value = getattr(sdk, alias.name, None)
                    if isinstance(value, type):
                        hidden |= _privates_of(value)
    return frozenset(hidden)


def _privates_of(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        if not _is_sdk(klass.__module__):
            continue
        names |= {name for name in vars(klass) if _private(name)}
        with contextlib.suppress(OSError, TypeError):  # set in methods: self._x = ...
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
            names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and _private(n.attr)}
    return names


SOURCES = {path: path.read_text(encoding="utf-8") for path in OURS}
HIDDEN = hidden_attributes(list(SOURCES.values()))


def test_we_use_only_the_sdks_public_face() -> None:
    """One test for every module (the package, the tests, the benchmarks): each that reaches inside is named."""
    inside = {
        str(path.relative_to(ROOT)): found
        for path, source in SOURCES.items()
        if (found := reaches_inside(source, module_of(path), HIDDEN))
    }
    assert inside == {}, f"these use the SDK's internals: {inside}; use its public API instead"


def test_the_scan_sees_every_way_into_the_sdks_internals() -> None:
    """The scan itself can fail: each spelling of a reach inside is found, the public face passes."""
    source = (
        "from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata\n"
        "from mcp.server.mcpserver.tools import Tool\n"
        "import mcp.server.mcpserver.tools.base\n"
        "from mcp.shared._httpx_utils import create_mcp_http_client\n"
        "from mcp.server.mcpserver import Settings\n"
        "from mcp_types import _private_name\n"
        "from mcp.server.mcpserver import Context, MCPServer\n"
        "from mcp_types import CallToolResult\n"
        "low = build_server(settings)._lowlevel_server\n"
        "mine = self._cache\n"
        "class Mine(MCPServer):\n"
        "    def tools(self) -> None:\n"
        "        self._tool_manager = None\n"
        "        self._mine = None\n"
    )
    hidden = hidden_attributes([source])
    assert {"_lowlevel_server", "_tool_manager"} <= hidden and "_cache" not in hidden
    assert reaches_inside(source, "gitea_mcp.example", hidden) == [
        "._lowlevel_server",
        "._tool_manager",
        "mcp.server.mcpserver.Settings",
        "mcp.server.mcpserver.tools",
        "mcp.server.mcpserver.tools.base",
        "mcp.server.mcpserver.utilities.func_metadata",
        "mcp.shared._httpx_utils",
        "mcp_types._private_name",
    ]


def _session(*calls: tuple[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], list[CallToolResult]]:
    """tools/list and the calls, as a client sends them: through the SDK's handlers, not our methods directly."""
    server = build_server(Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"})))

    async def run() -> tuple[list[dict[str, Any]], list[CallToolResult]]:
        async with Client(server) as client:
            listed = (await client.list_tools()).tools
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed], results

    return asyncio.run(run())


def test_a_client_session_lists_the_snapshot() -> None:
    listed, _ = _session()
    assert listed == json.loads(SNAPSHOT.read_text("utf-8"))


def test_a_client_session_gets_our_sentences_and_the_protocols_error_for_an_unknown_tool() -> None:
    """Bad arguments to a served tool are its result (isError); a tool not served is JSON-RPC -32602, raised by our
    `call_tool` through the SDK's handler (tests/server/test_protocol.py has every revision and wording)."""
    _, (wrong,) = _session(("issue_list", {"owner": "acme", "name": "widgets", "state": "opened"}))
    assert failed(wrong) == "state='opened' is not valid; use one of: open, closed, all."
    assert (wrong.meta or {}).get("gitea-issues-mcp/bad-argument") is True

    async def unknown() -> MCPError:
        async with Client(build_server(Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"})))) as c:
            with pytest.raises(MCPError) as raised:
                await c.call_tool("issue_lists", {})
        return raised.value

    error = asyncio.run(unknown()).error
    assert error.code == INVALID_PARAMS and "did you mean issue_list?" in error.message
