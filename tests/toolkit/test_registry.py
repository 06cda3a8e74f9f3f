"""The registry: the tools found in gitea_mcp/tools/ (no list kept), served from the generated specs.json without
importing a module (tests/cli/test_serve_imports.py), each module's TOOL holding its SPEC, filtered by the toolsets
served and read-only mode. Adding one: tests/test_adding_a_tool.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import gitea_mcp.tools
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.spec import TOOLSETS, Toolset
from tests.support.toolsets import LABEL_READ, PEOPLE_WRITE, issues_alone, with_other_toolsets


def test_every_module_of_the_tools_folder_is_a_tool_and_nothing_else_is() -> None:
    folder = Path(gitea_mcp.tools.__file__).parent
    modules = sorted(path.stem for path in folder.glob("*.py") if path.stem != "__init__")
    assert registry.module_names() == modules  # (specs.json knowing them all: tests/test_generated.py)


@pytest.mark.parametrize("read_only", [False, True])
def test_offered_keeps_the_listing_order_and_drops_the_writes_when_read_only(read_only: bool) -> None:
    offered = registry.offered(read_only)
    assert [spec.order for spec in offered] == sorted(spec.order for spec in offered)
    assert [spec for spec in registry.every() if not (read_only and spec.writes)] == list(offered)


def test_the_lists_budgets_are_the_sums_of_the_tools_own() -> None:
    specs = registry.every()
    assert registry.budgets() == (sum(s.budget for s in specs), sum(s.listed_budget for s in specs))
    reads = [s for s in specs if not s.writes]
    assert registry.budgets(read_only=True) == (sum(s.budget for s in reads), sum(s.listed_budget for s in reads))


def test_a_module_whose_tool_is_not_its_spec_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SPEC named after its module, and TOOL holding that very SPEC: else the discovery stops, naming the module."""
    source = (Path(gitea_mcp.tools.__file__).parent / "issue_list.py").read_text(encoding="utf-8")
    (tmp_path / "issue_other.py").write_text(source, encoding="utf-8")  # still named issue_list inside
    monkeypatch.setattr(gitea_mcp.tools, "__path__", [*gitea_mcp.tools.__path__, str(tmp_path)])
    try:
        with pytest.raises(RuntimeError, match=r"gitea_mcp\.tools\.issue_other: TOOL must hold SPEC"):
            registry.discovered()
    finally:
        sys.modules.pop("gitea_mcp.tools.issue_other", None)


ISSUES = [spec.name for spec in registry.every() if spec.toolset == "issues"]
ISSUE_READS = [spec.name for spec in registry.every() if spec.toolset == "issues" and not spec.writes]


@pytest.mark.parametrize(
    ("toolsets", "read_only", "names"),
    [
        (TOOLSETS, False, [*ISSUES, LABEL_READ.name, PEOPLE_WRITE.name]),
        (TOOLSETS, True, [*ISSUE_READS, LABEL_READ.name]),
        (("issues",), False, ISSUES),
        (("issues",), True, ISSUE_READS),
        (("labels",), False, [LABEL_READ.name]),
        (("labels", "people"), True, [LABEL_READ.name]),  # read-only drops the writes within the toolsets served
        (("people",), False, [PEOPLE_WRITE.name]),
        (("people",), True, []),
        (("milestones",), False, []),
    ],
)
def test_offered_keeps_the_toolsets_served_and_within_them_drops_the_writes_when_read_only(
    toolsets: tuple[Toolset, ...], read_only: bool, names: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_other_toolsets(monkeypatch)
    assert [spec.name for spec in registry.offered(read_only, toolsets)] == names
    assert registry.budgets(read_only, toolsets) == (
        sum(spec.budget for spec in registry.offered(read_only, toolsets)),
        sum(spec.listed_budget for spec in registry.offered(read_only, toolsets)),
    )


@pytest.mark.parametrize("read_only", [False, True])
def test_the_stored_listing_is_filtered_by_toolset_as_the_specs_are(
    read_only: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    issues_alone(monkeypatch)
    issues: tuple[Toolset, ...] = ("issues",)
    listed = registry.stored_listing(read_only, issues)
    assert [tool["name"] for tool in listed] == [spec.name for spec in registry.offered(read_only)]
    assert registry.stored_listing(read_only, ("labels", "milestones", "people")) == []
