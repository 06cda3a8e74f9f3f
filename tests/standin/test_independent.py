"""The stand-in stands apart from the product: it imports nothing of gitea_mcp outside gitea_mcp.standin.

A stand-in that read versions or cut titles with the product's own code would agree with the product by
construction, and the contract suite could not tell a wrong belief from a right one. The demo hands it nothing but
its start; everything it knows of the real servers is its own reading (profile.py, truncate.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gitea_mcp.standin
from tests.support.imports import imported, imports_of

PACKAGE = Path(gitea_mcp.standin.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def product_imports(names: list[str]) -> list[str]:
    return [name for name in names if name.split(".")[0] == "gitea_mcp" and not name.startswith("gitea_mcp.standin")]


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_the_standin_imports_nothing_of_the_product(path: Path) -> None:
    names = imports_of(path)
    outside = product_imports(names)
    assert outside == [], f"{path.name} imports the product's {outside}: the stand-in must keep its own reading"


def test_the_check_sees_every_spelling_of_an_import_of_the_product() -> None:
    """The walk itself can fail: absolute, plain and relative imports of the product are all found."""
    source = (
        "from gitea_mcp.gitea import titles\nimport gitea_mcp.domain.policy\n"
        "from ...tools import writes\nfrom . import core\n"
    )
    names = imported(source, "gitea_mcp.standin.endpoints.issues")
    assert product_imports(names) == ["gitea_mcp.gitea", "gitea_mcp.domain.policy", "gitea_mcp.tools"]
