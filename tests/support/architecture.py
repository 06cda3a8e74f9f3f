"""docs/architecture.md read as data: its package block, its layer chain, the paths and code names it gives.

The layer test (tests/test_layers.py) takes its order from the chain here, and tests/test_architecture_doc.py holds
the rest of the document to the code, so the picture in the document and the rule the tests apply are one text.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "gitea_mcp"
DOC = ROOT / "docs" / "architecture.md"

# The sentence that states the order: "Each layer imports only the layers below it: cli → server → … → redaction."
CHAIN_SENTENCE = re.compile(r"Each layer imports only the layers below it: ([^.]+?)\.(?:\s|$)")
# An entry of the package block: two spaces, then `name/` or `name.py` (`server/signin/` included), then its prose.
ENTRY = re.compile(r"^  (\S+?/|\S+?\.py)\s+(.*)$")
# A module named in an entry's prose, at its top level (not inside another module's clause): `word (its clause)`.
NAMED = re.compile(r"\b([a-z_][a-z0-9_]*) \($")
# A path the document gives: `dir/file.py`, `file.py`, or a folder-qualified data file such as `toolkit/specs.json`.
PATH = re.compile(r"(?<![\w/<>.-])((?:[\w-]+/)*[\w-]+\.py|(?:[\w-]+/)+[\w.-]+\.(?:json|md|txt))(?![\w/])")
# A code span that is a dotted name, maybe called: `policy.is_name`, `registry.budgets()`, `toolkit/arguments.parse`.
# A slash-only span (`server/discover`, `tools/list`) is an MCP method's name, not one of ours.
DOTTED = re.compile(r"`((?:[a-z_]+/)*[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`")
FILE_SUFFIXES = {"py", "json", "md", "txt", "toml", "yml"}


def text() -> str:
    return DOC.read_text(encoding="utf-8")


def block(doc: str) -> list[str]:
    """The lines of the fenced block that draws the package."""
    match = re.search(r"^```\ngitea_mcp/\n(.*?)^```", doc, re.MULTILINE | re.DOTALL)
    assert match, "docs/architecture.md has no ``` block starting with gitea_mcp/"
    return match.group(1).splitlines()


def entries(doc: str) -> dict[str, str]:
    """`server/` → its prose (continuation lines joined), for each entry of the package block."""
    found: dict[str, str] = {}
    current: str | None = None
    for line in block(doc):
        head = ENTRY.match(line)
        if head:
            current = head.group(1)
            found[current] = head.group(2)
        elif line.startswith("   ") and current is not None:
            found[current] += " " + line.strip()
        else:
            current = None  # a line at the left edge (`tests/`) ends the package's entries
    return found


def named_modules(prose: str) -> set[str]:
    """The words of `prose` followed by a parenthesised clause, at the top level of the prose (depth 0)."""
    names: set[str] = set()
    depth = 0
    for index, char in enumerate(prose):
        if char == "(":
            if depth == 0:
                match = NAMED.search(prose[: index + 1])
                if match:
                    names.add(match.group(1))
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
    return names


def chain(doc: str) -> list[list[str]]:
    """The layer chain, top first; layers of one rank ("domain and gitea") share a list."""
    match = CHAIN_SENTENCE.search(" ".join(doc.split()))
    assert match, "docs/architecture.md no longer says 'Each layer imports only the layers below it: a → b → …'"
    return [[word.strip() for word in re.split(r",| and ", rank) if word.strip()] for rank in match.group(1).split("→")]


def rank_of(ranks: list[list[str]]) -> dict[str, int]:
    return {layer: index for index, rank in enumerate(ranks) for layer in rank}


def layers_below(ranks: list[list[str]]) -> dict[str, set[str]]:
    """What each layer of the chain may import: every layer of a later rank."""
    return {
        layer: {below for rank in ranks[index + 1 :] for below in rank}
        for index, rank in enumerate(ranks)
        for layer in rank
    }


def paths(doc: str) -> set[str]:
    """Every file path the document gives (placeholders such as `test_<module>.py` cannot be checked and are left)."""
    return set(PATH.findall(doc))


def path_exists(path: str) -> bool:
    """A path is written from the repository's root or from the package's (`toolkit/registry.py`)."""
    return any((base / path).exists() for base in (ROOT, PACKAGE))


def references(doc: str) -> set[str]:
    """Every backticked dotted name, `/` read as `.`, calls' arguments dropped; file names are paths, not names."""
    found = {match.group(1).replace("/", ".") for match in DOTTED.finditer(doc)}
    return {name for name in found if name.rsplit(".", 1)[1] not in FILE_SUFFIXES}


# What the package defines, read from its source with ast (nothing is imported).
Scope = dict[str, ast.AST]


def _definitions(body: list[ast.stmt]) -> Scope:
    """The names a module or class body defines itself (def, class, assignment): an import defines nothing here."""
    scope: Scope = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            scope[node.name] = node
        elif isinstance(node, ast.Assign):
            scope.update({target.id: node for target in node.targets if isinstance(target, ast.Name)})
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            scope[node.target.id] = node
    return scope


@cache
def modules() -> dict[str, Path]:
    """`gitea_mcp.toolkit.base` → its file; a package by its `__init__.py`."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found[name] = path
    return found


@cache
def module_scope(module: str) -> Scope:
    return _definitions(ast.parse(modules()[module].read_text(encoding="utf-8")).body)


@cache
def classes() -> dict[str, list[ast.ClassDef]]:
    """Every class of the package by its name (a name may be defined in more than one module)."""
    found: dict[str, list[ast.ClassDef]] = {}
    for module in modules():
        for node in ast.walk(ast.parse(modules()[module].read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


# What a reference's part may name: a module (by its dotted name), a class, or a leaf (a function or a value).
Named = str | ast.ClassDef | None
LEAF: Named = None


def _starts(first: list[str]) -> list[Named]:
    """What the leading parts of a reference may name: modules whose dotted name ends with them, or a class."""
    dotted = ".".join(first)
    named: list[Named] = [m for m in modules() if m == dotted or m.endswith("." + dotted)]
    if len(first) == 1:
        named += classes().get(first[0], [])
        # The code names a value after its class (`deps: Deps`): `deps.client` is the Deps' client.
        named += classes().get(first[0][:1].upper() + first[0][1:], []) if first[0][:1].islower() else []
    return named


def _member(owner: Named, part: str) -> list[Named]:
    """What `owner.part` names: a submodule, a definition, or (an attribute annotated with a class) that class."""
    if owner is None:  # LEAF
        return []  # nothing is looked up inside a function or a value
    if isinstance(owner, str):
        if f"{owner}.{part}" in modules():
            return [f"{owner}.{part}"]
        node = module_scope(owner).get(part)
    else:
        node = _definitions(owner.body).get(part)
    if node is None:
        return []
    if isinstance(node, ast.ClassDef):
        return [node]
    if isinstance(node, ast.AnnAssign) and isinstance(node.annotation, ast.Name):
        return [*classes().get(node.annotation.id, [])] or [LEAF]
    return [LEAF]


def resolves(reference: str) -> bool:
    """`GiteaClient.until`, `policy.is_name`, `gitea.page.page_of`: leading parts that name a module or class of
    ours, and each later part defined in the one before it (an import defines nothing)."""
    parts = reference.split(".")
    for split in range(len(parts) - 1, 0, -1):
        owners = _starts(parts[:split])
        for part in parts[split:]:
            owners = [found for owner in owners for found in _member(owner, part)]
        if owners:
            return True
    return False
