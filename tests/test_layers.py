"""The folders are the layers, and each layer imports only the layers below it (docs/architecture.md).

The order is the document's own sentence, "Each layer imports only the layers below it: cli → server → settings →
tools → toolkit → gitea → domain → redaction", read from it (tests/support/architecture.py), so the picture and the
rule are one text. A tool may use the Gitea client and the rules; the rules never reach up into a tool or an MCP
type; the Gitea client knows nothing of MCP, tools or the command line. The stand-in is kept apart by
tests/standin/test_independent.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.architecture import chain, layers_below, text
from tests.support.imports import PACKAGE_ROOT, imports_of, module_of

# Narrower than the chain, on purpose: a tool is handed what it needs, never the settings, and the settings read
# only the rules (so settings sits under the server in the chain, but imports nothing between).
NARROWER: dict[str, set[str]] = {"settings": {"domain", "redaction"}}
# Beside the chain: `gitea_mcp` alone is the version string; the stand-in imports nothing of the product and only
# the command line starts it (the demo); `python -m gitea_mcp` is the command line.
BESIDE: dict[str, set[str]] = {
    "cli": {"standin", "gitea_mcp"},
    "server": {"gitea_mcp"},
    "gitea": {"gitea_mcp"},
    "standin": set(),
    "__main__": {"cli"},
    "gitea_mcp": set(),
}
# What each layer may import of the product, besides itself.
MAY_IMPORT: dict[str, set[str]] = {
    layer: NARROWER.get(layer, below) for layer, below in layers_below(chain(text())).items()
}
for _layer, _beside in BESIDE.items():
    MAY_IMPORT[_layer] = MAY_IMPORT.get(_layer, set()) | _beside
# Beyond the product: the MCP SDK and its types belong to the layers that speak MCP.
MCP_LAYERS = {"cli", "server", "tools", "toolkit"}

MODULES = sorted(PACKAGE_ROOT.rglob("*.py"))


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def allowed(own: str, name: str) -> bool:
    top = name.split(".")[0]
    if top == "gitea_mcp":
        return layer(name) == own or layer(name) in MAY_IMPORT[own]
    return top not in {"mcp", "mcp_types"} or own in MCP_LAYERS


def violations(module: str, names: list[str]) -> list[str]:
    """The imports of `module` that go sideways or up."""
    return [name for name in names if not allowed(layer(module), name)]


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE_ROOT)) for p in MODULES])
def test_each_module_imports_only_layers_below_its_own(path: Path) -> None:
    module = module_of(path)
    assert layer(module) in MAY_IMPORT, f"{module} is in no layer: add its folder to the chain in docs/architecture.md"
    wrong = violations(module, imports_of(path))
    assert wrong == [], f"{module} ({layer(module)}) imports {wrong}: move the shared piece down a layer"


@pytest.mark.parametrize(
    ("module", "imports", "wrong"),
    [
        ("gitea_mcp.domain.links", ["gitea_mcp.toolkit.arguments"], ["gitea_mcp.toolkit.arguments"]),
        ("gitea_mcp.gitea.client", ["gitea_mcp.server.http"], ["gitea_mcp.server.http"]),
        ("gitea_mcp.domain.query", ["mcp_types"], ["mcp_types"]),
        ("gitea_mcp.toolkit.base", ["gitea_mcp.cli.main", "gitea_mcp.gitea.client"], ["gitea_mcp.cli.main"]),
        ("gitea_mcp.cli.main", ["gitea_mcp.server.app", "mcp.server"], []),
        ("gitea_mcp.tools.issue_list", ["gitea_mcp.settings"], ["gitea_mcp.settings"]),  # narrower than the chain
        ("gitea_mcp.settings", ["gitea_mcp.gitea.client"], ["gitea_mcp.gitea.client"]),
        ("gitea_mcp.domain.policy", ["gitea_mcp.gitea.errors"], ["gitea_mcp.gitea.errors"]),
        ("gitea_mcp.gitea.errors", ["gitea_mcp.domain.policy", "gitea_mcp"], []),
    ],
)
def test_the_rule_itself_can_fail(module: str, imports: list[str], wrong: list[str]) -> None:
    assert violations(module, imports) == wrong
