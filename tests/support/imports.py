"""What a module of ours imports, read from its source (no import runs): for the tests that keep the layers apart."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "gitea_mcp"


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


def module_of(path: Path) -> str:
    """`gitea_mcp/toolkit/base.py` → `gitea_mcp.toolkit.base`; a package's `__init__.py` is the package."""
    return ".".join(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts).removesuffix(".__init__")


def imports_of(path: Path) -> list[str]:
    return imported(path.read_text(encoding="utf-8"), module_of(path), path.name == "__init__.py")
