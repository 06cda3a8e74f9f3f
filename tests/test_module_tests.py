"""Every module of the packages below has its own test file, named for it, that reads it: gitea_mcp/<package>/<m>.py
is tested by tests/<package>/test_<m>.py, which imports gitea_mcp.<package>.<m>. Other test files may test it
too (through a tool, over HTTP); this one is where its own cases are, and where a new module's go.

PACKAGES is the list to extend. The tools' shared machinery (toolkit/) is here; a tool module (tools/) is not: it is
covered by the registry-driven suites instead, plus its own cases where it has behaviour of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["domain", "gitea", "toolkit"]


def modules(package: str) -> list[str]:
    return sorted(path.stem for path in (ROOT / "gitea_mcp" / package).glob("*.py") if path.stem != "__init__")


def reads(source: str, package: str, module: str) -> bool:
    """Whether test source imports gitea_mcp.<package>.<module> (`import …`, `from … import`, or the package's
    `from gitea_mcp.<package> import <module>`)."""
    dotted = f"gitea_mcp.{package}.{module}"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(alias.name == dotted for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            node.module == dotted
            or (node.module == f"gitea_mcp.{package}" and any(alias.name == module for alias in node.names))
        ):
            return True
    return False


CASES = [(package, module) for package in PACKAGES for module in modules(package)]


@pytest.mark.parametrize(("package", "module"), CASES, ids=[f"{p}/{m}" for p, m in CASES])
def test_each_module_has_its_own_test_file(package: str, module: str) -> None:
    test_file = ROOT / "tests" / package / f"test_{module}.py"
    assert test_file.is_file(), f"gitea_mcp/{package}/{module}.py has no tests/{package}/test_{module}.py"
    assert reads(test_file.read_text(), package, module), (
        f"tests/{package}/test_{module}.py does not import gitea_mcp.{package}.{module}"
    )


def test_the_packages_have_modules() -> None:
    """A package renamed or emptied would leave the test above with nothing to check."""
    assert all(modules(package) for package in PACKAGES), PACKAGES


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from gitea_mcp.domain.dates import bound\n", True),
        ("from gitea_mcp.domain import dates\n", True),
        ("import gitea_mcp.domain.dates\n", True),
        ("from gitea_mcp.domain import query\n", False),
        ("from gitea_mcp.domain.dates_extra import x\n", False),
        ("# from gitea_mcp.domain.dates import bound\n", False),
    ],
)
def test_reading_a_module_is_told_from_its_source(source: str, found: bool) -> None:
    assert reads(source, "domain", "dates") is found
