"""docs/architecture.md is true: every module named, every name a module or a definition, the layers as imported.

- Each package of gitea_mcp has an entry in the document's package block, and that entry names each of its modules
  as `module (what it is)`; no entry names a module that is not there. The tool modules (tools/) are the registry's
  to list; the stand-in's entry names its top-level modules and sub-packages.
- Every file path the document gives exists, and every backticked dotted name (`GiteaClient.until`) is defined.
- The chain "cli → server → … → redaction" names exactly the package's layers, and no module imports a layer
  above its own in it (tests/test_layers.py takes its order from the same sentence and narrows it).
Each check is run once more on a planted falsehood, to show that it can fail.
"""

from __future__ import annotations

import pytest

from tests.support import architecture as doc
from tests.support.imports import imports_of

DOC = doc.text()
ENTRIES = doc.entries(DOC)
# The top-level names of the package that are no layer: the version string and the entry point.
NOT_LAYERS = {"__init__", "__main__"}
# Kept apart from the chain: the stand-in imports nothing of the product (tests/standin/test_independent.py).
APART = {"standin"}


def package_entries() -> dict[str, set[str]]:
    """What the block must say: each package (`server/`, `server/signin/`) → its modules and sub-packages."""
    wanted: dict[str, set[str]] = {}
    for folder in sorted(p.parent for p in doc.PACKAGE.rglob("__init__.py")):
        key = folder.relative_to(doc.PACKAGE).as_posix() + "/"
        if key == "./" or key.startswith("tools/"):
            continue  # the package is the block itself; the tool modules are the registry's to list
        if key.startswith("standin/") and key != "standin/":
            continue  # the stand-in's sub-packages are named in its entry, their modules in their own docstrings
        modules = {p.stem for p in folder.glob("*.py") if p.stem not in NOT_LAYERS}
        packages = {p.parent.name for p in folder.glob("*/__init__.py")}
        wanted[key] = modules | (packages if key == "standin/" else set())
    return wanted


def top_level() -> set[str]:
    """The block's entries for the package's own top level: `cli/`, …, `settings.py`, `redaction.py`."""
    folders = {p.parent.name + "/" for p in doc.PACKAGE.glob("*/__init__.py")}
    files = {p.name for p in doc.PACKAGE.glob("*.py") if p.stem not in NOT_LAYERS}
    return folders | files


def entry_gaps(entries: dict[str, str], wanted: dict[str, set[str]]) -> list[str]:
    """Each way the block and the package differ, as a sentence."""
    gaps = []
    for key, modules in wanted.items():
        if key not in entries:
            gaps.append(f"{key} has no entry")
            continue
        named = doc.named_modules(entries[key])
        gaps += [f"{key} does not name {m} as `{m} (what it is)`" for m in sorted(modules - named)]
        gaps += [f"{key} names {m}, which is not one of its modules" for m in sorted(named - modules)]
    return gaps


def test_every_package_has_an_entry_naming_each_of_its_modules() -> None:
    assert entry_gaps(ENTRIES, package_entries()) == []


def test_every_entry_is_a_folder_or_module_of_the_package() -> None:
    assert sorted(set(ENTRIES) - top_level() - set(package_entries())) == []
    assert sorted(top_level() - set(ENTRIES)) == []


def test_every_path_given_exists() -> None:
    paths = doc.paths(DOC)
    assert "toolkit/registry.py" in paths, "the document's paths are not read"
    assert sorted(p for p in paths if not doc.path_exists(p)) == []


def test_every_dotted_name_is_defined() -> None:
    names = doc.references(DOC)
    assert "GiteaClient.until" in names, "the document's names are not read"
    assert sorted(n for n in names if not doc.resolves(n)) == []


def test_the_chain_names_exactly_the_layers() -> None:
    layers = {name for rank in doc.chain(DOC) for name in rank}
    package = {entry.removesuffix("/").removesuffix(".py") for entry in top_level()}
    assert layers == package - APART


def test_no_module_imports_a_layer_above_its_own() -> None:
    wrong = [
        f"{module} imports {name}"
        for module, path in doc.modules().items()
        for name in imports_of(path)
        if upward(module, name, doc.rank_of(doc.chain(DOC)))
    ]
    assert wrong == []


def upward(module: str, name: str, ranks: dict[str, int]) -> bool:
    """Whether `module` importing `name` goes up the chain or sideways within one rank."""
    own, other = layer(module), layer(name)
    if not name.startswith("gitea_mcp") or own == other or own not in ranks or other not in ranks:
        return False  # beyond the product, or within one layer, or the version / entry point / the stand-in
    return ranks[other] <= ranks[own]


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


# Each check, proven able to fail on a planted falsehood.


@pytest.mark.parametrize(
    ("entries", "wanted", "gaps"),
    [
        (
            {"server/": "app (x), http (y)"},
            {"server/": {"app", "http", "stdio"}},
            ["server/ does not name stdio as `stdio (what it is)`"],
        ),
        (
            {"server/": "app (x), ghost (y)"},
            {"server/": {"app"}},
            ["server/ names ghost, which is not one of its modules"],
        ),
        (
            {"server/": "app (x, stdio (no))"},
            {"server/": {"app", "stdio"}},
            ["server/ does not name stdio as `stdio (what it is)`"],
        ),
        ({}, {"server/signin/": {"seal"}}, ["server/signin/ has no entry"]),
        ({"gitea/": "client (a), errors (b)"}, {"gitea/": {"client", "errors"}}, []),
    ],
)
def test_entry_check_can_fail(entries: dict[str, str], wanted: dict[str, set[str]], gaps: list[str]) -> None:
    assert entry_gaps(entries, wanted) == gaps


@pytest.mark.parametrize(
    ("path", "exists"),
    [
        ("toolkit/registry.py", True),
        ("tests/test_layers.py", True),
        ("toolkit/ghost.py", False),
        ("tests/ghost.py", False),
    ],
)
def test_path_check_can_fail(path: str, exists: bool) -> None:
    assert doc.path_exists(path) is exists


@pytest.mark.parametrize(
    ("reference", "defined"),
    [
        ("GiteaClient.until", True),
        ("policy.is_name", True),
        ("gitea.page.page_of", True),
        ("Deps.policy.check_repo", True),  # through the attribute's class
        ("deps.client", True),  # a value named after its class
        ("toolkit/arguments.parse", False),  # `/` is read as `.` by references(), not here
        ("server.admission", True),
        ("errors.BadArgument", False),  # imported there, defined elsewhere: the finding
        ("policy.is_nam", False),
        ("Ghost.until", False),
        ("GiteaClient.until.deadline", False),
    ],
)
def test_reference_check_can_fail(reference: str, defined: bool) -> None:
    assert doc.resolves(reference) is defined


@pytest.mark.parametrize(
    ("module", "name", "wrong"),
    [
        ("gitea_mcp.domain.links", "gitea_mcp.gitea.client", True),  # up
        ("gitea_mcp.tools.issue_list", "gitea_mcp.server.app", True),  # up
        ("gitea_mcp.gitea.client", "gitea_mcp.domain.policy", False),  # down
        ("gitea_mcp.cli.demo", "gitea_mcp.standin.http", False),  # apart
    ],
)
def test_import_check_can_fail(module: str, name: str, wrong: bool) -> None:
    planted = doc.chain("Each layer imports only the layers below it: cli → server → tools → gitea → domain.")
    assert upward(module, name, doc.rank_of(planted)) is wrong


def test_chain_parse_can_fail() -> None:
    ranks = doc.chain("Each layer imports only the layers below it: a → b and c → d. Next.")
    assert ranks == [["a"], ["b", "c"], ["d"]]
    assert upward("gitea_mcp.b.x", "gitea_mcp.c.y", doc.rank_of(ranks)), "one rank's layers may not import each other"
    with pytest.raises(AssertionError):
        doc.chain("The layers: a → b.")
