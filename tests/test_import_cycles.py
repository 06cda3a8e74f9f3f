"""No import cycles in the package, and no function-level import without its reason (issue 36, item 5).

Every import counts, read from the source (ast): module-level, function-level and TYPE_CHECKING ones alike, so a
cycle cannot hide behind an import moved into a function. Importing `a.b.c` runs the packages `a` and `a.b` too,
so those count as well, except a package's own modules reaching their package (that is how a package's
`__init__` lists its parts). A module loaded by name (`importlib.import_module`: the command line's commands, the
registry's tool modules) is looked up, not imported, and is not an edge here.

A function-level import stays only for an optional dependency (redis) or for start-up time that a figure justifies
(the MCP SDK, requests); the comment on it, or on the line above its group of imports, says which.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.support.imports import PACKAGE_ROOT, module_of

MODULES: dict[str, Path] = {module_of(path): path for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def _imported(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: Mapping[str, object]
) -> set[str]:
    """The modules of ours an import statement runs: `from a import b` is `a.b` when that is a module, else `a`."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    package = module if is_package else module.rsplit(".", 1)[0]
    base = package.rsplit(".", node.level - 1)[0] if node.level else ""
    source = ".".join(part for part in (base, node.module or "") if part)
    found = {f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known}
    if source in known and len(found) < len(node.names):
        found.add(source)
    return found


def edges(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Each module's imports of other modules of `sources` ({module: (source, is_package)}), with the packages
    importing them runs."""
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sources.items():
        direct: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                direct |= _imported(node, module, is_package, sources)
        withparents = set(direct)
        for name in direct:
            parts = name.split(".")
            withparents |= {".".join(parts[:end]) for end in range(1, len(parts)) if ".".join(parts[:end]) in sources}
        # A module's own packages are run before it; it reaching them is no edge back.
        graph[module] = {name for name in withparents if name != module and not module.startswith(name + ".")}
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm, iteratively), as a path
    that ends where it starts."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(group)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return [_path(graph, group) for group in groups]


def _path(graph: Mapping[str, set[str]], group: set[str]) -> list[str]:
    """A cycle within `group`, found by walking it from its first module (breadth first: a shortest one)."""
    start = min(group)
    came: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node] & group):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if child not in came:
                    came[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"{sorted(group)} holds no cycle")  # pragma: no cover


def _comment_lines(source: str) -> tuple[set[int], set[int]]:
    """The lines holding a comment, and those holding nothing else."""
    tokens = [token for token in tokenize.generate_tokens(io.StringIO(source).readline)]
    comments = {token.start[0]: token for token in tokens if token.type == tokenize.COMMENT}
    alone = {line for line, token in comments.items() if not token.line[: token.start[1]].strip()}
    return set(comments), alone


def unexplained(source: str) -> list[int]:
    """The lines of function-level imports that carry no reason: a comment on one of the lines of its group of
    adjacent imports (blank lines between them allowed), or a comment line just above the group."""
    commented, alone = _comment_lines(source)
    found: list[int] = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for body in _bodies(function):
            group: list[ast.stmt] = []
            for statement in [*body, None]:
                if isinstance(statement, ast.Import | ast.ImportFrom):
                    group.append(statement)
                    continue
                if group:
                    lines = range(group[0].lineno, (group[-1].end_lineno or group[-1].lineno) + 1)
                    if not commented.intersection(lines) and group[0].lineno - 1 not in alone:
                        found += [node.lineno for node in group]
                    group = []
    return sorted(set(found))


def _bodies(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[list[ast.stmt]]:
    """Every statement list inside the function (its body, an if's, a with's, a try's …), nested functions aside
    (ast.walk reaches those on their own)."""
    pending: list[ast.AST] = [function]
    while pending:
        node = pending.pop()
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body
                pending += [child for child in body if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)]
        pending += getattr(node, "handlers", [])
        pending += getattr(node, "cases", [])


def _package() -> dict[str, tuple[str, bool]]:
    return {module: (path.read_text(encoding="utf-8"), path.name == "__init__.py") for module, path in MODULES.items()}


def test_the_package_has_no_import_cycle() -> None:
    found = cycles(edges(_package()))
    assert found == [], "import cycles: " + "; ".join(" → ".join(cycle) for cycle in found)


def _reached(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen, pending = {start}, [start]
    while pending:
        for child in graph[pending.pop()] - seen:
            seen.add(child)
            pending.append(child)
    return seen


def test_the_sign_in_stands_on_its_own_beside_the_mcp_app() -> None:
    """Nothing of the sign-in imports the MCP app or the HTTP gate, even by the way: they use it, not it them."""
    graph = edges(_package())
    parts = [module for module in MODULES if module.startswith("gitea_mcp.server.signin")]
    assert len(parts) > 5, "the sign-in moved: point this test at it"
    above = {"gitea_mcp.server.app", "gitea_mcp.server.http"}
    reaching = {part: sorted(_reached(graph, part) & above) for part in parts}
    assert {part: found for part, found in reaching.items() if found} == {}


def test_each_function_level_import_says_why() -> None:
    found = {module: lines for module, path in MODULES.items() if (lines := unexplained(path.read_text("utf-8")))}
    assert found == {}, (
        f"function-level imports that say no reason, by module and line: {found}. Import at module level, or say why "
        "not in a comment (an optional dependency; start-up time, with the figure measured)"
    )


# -- the rules themselves can fail ------------------------------------------------------------------------------


def _modules(**sources: str) -> dict[str, tuple[str, bool]]:
    return {name.replace("_", "."): (source, False) for name, source in sources.items()}


@pytest.mark.parametrize(
    ("sources", "found"),
    [
        ({"p.a": "import p.b", "p.b": "import p.a"}, [["p.a", "p.b", "p.a"]]),
        ({"p.a": "def f():\n    from p import b", "p.b": "from p.a import x"}, [["p.a", "p.b", "p.a"]]),
        (
            {"p.a": "if TYPE_CHECKING:\n    from p.b import B", "p.b": "from . import c", "p.c": "import p.a"},
            [["p.a", "p.b", "p.c", "p.a"]],
        ),
        ({"p.a": "import p.b", "p.b": "import p.c", "p.c": "import os"}, []),
        ({"p.a": "from p.b import name", "p.b": "from p.c import other"}, []),
    ],
)
def test_a_cycle_is_found_however_it_is_imported(sources: dict[str, str], found: list[list[str]]) -> None:
    assert cycles(edges({module: (source, False) for module, source in sources.items()})) == found


def test_a_package_listing_its_own_modules_is_no_cycle_but_a_module_reaching_back_into_it_is() -> None:
    package = {"p.s": ("from p.s.a import x", True), "p.s.a": ("from p.s import b", False), "p.s.b": ("", False)}
    assert cycles(edges(package)) == []
    back = {**package, "p.s.b": ("from p.s.a import x", False), "p.s.a": ("import p.s.b", False)}
    assert cycles(edges(back)) == [["p.s.a", "p.s.b", "p.s.a"]]


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("def f():\n    import redis\n", [2]),
        ("def f():\n    import redis  # optional: the redis extra\n", []),
        ("def f():\n    # the SDK: 0.4 s\n    from mcp import Client\n    from mcp_types import X\n", []),
        ("def f():\n    import a  # why\n\n    import b\n", []),  # one group, isort's sections apart
        ("def f():\n    import a  # why\n    x = 1\n    import b\n", [4]),
        ("def f():\n    if x:\n        import ssl\n", [3]),
        ("def f():\n    def g():\n        import ssl\n    return g\n", [3]),
        ("import ssl\n\ndef f():\n    return ssl\n", []),  # module level: no reason needed
        ("def f():\n    x = 1  # a comment elsewhere\n    import ssl\n", [3]),
    ],
)
def test_a_function_level_import_without_a_reason_is_found(source: str, lines: list[int]) -> None:
    assert unexplained(source) == lines
