"""The stand-in stands apart from the product: it imports nothing of gitea_mcp outside gitea_mcp.standin.

A stand-in that read versions or cut titles with the product's own code would agree with the product by
construction, and the contract suite could not tell a wrong belief from a right one. The demo hands it nothing but
its start; everything it knows of the real servers is its own reading (profile.py, truncate.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gitea_mcp.standin

PACKAGE = Path(gitea_mcp.standin.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def imported(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every module `source` (the text of `module`) imports, relative imports made absolute."""
    package = module if is_package else module.rsplit(".", 1)[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            names.append(".".join(part for part in (base, node.module or "") if part))
    return names


def product_imports(names: list[str]) -> list[str]:
    return [name for name in names if name.split(".")[0] == "gitea_mcp" and not name.startswith("gitea_mcp.standin")]


def module_of(path: Path) -> str:
    return ".".join(("gitea_mcp", *path.relative_to(PACKAGE.parent).with_suffix("").parts)).removesuffix(".__init__")


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_the_standin_imports_nothing_of_the_product(path: Path) -> None:
    names = imported(path.read_text(encoding="utf-8"), module_of(path), path.name == "__init__.py")
    outside = product_imports(names)
    assert outside == [], f"{path.name} imports the product's {outside}: the stand-in must keep its own reading"


def test_the_check_sees_every_spelling_of_an_import_of_the_product() -> None:
    """The walk itself can fail: absolute, plain and relative imports of the product are all found."""
    source = (
        "from gitea_mcp.gitea import titles\nimport gitea_mcp.policy\nfrom ...tools import writes\nfrom . import core\n"
    )
    names = imported(source, "gitea_mcp.standin.endpoints.issues")
    assert product_imports(names) == ["gitea_mcp.gitea", "gitea_mcp.policy", "gitea_mcp.tools"]
