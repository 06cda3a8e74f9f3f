"""Adding a tool is one module (docs/architecture.md, "Adding a tool"), proven by doing it: a copy of issue_list
under a new name, put where the registry looks for tools, is served, listed, documented and covered by the safety
suites once the generated files are made again, with no other edit. Before that, one test says what to make.

The copy lives in a temporary folder added to the tools package's path, and every generated file is written to
temporary copies: nothing in the repository changes.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

import gitea_mcp.tools
from gitea_mcp.server.app import build_server, listing
from gitea_mcp.settings import Settings
from gitea_mcp.standin import DEMO_TOKEN, PROFILES, StandIn
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.base import ToolDefinition
from tests import test_every_tool, test_hostile_input, test_readme
from tests.support import generated, tool_cases
from tests.support.results import answered, text_of

NEW = "issue_peek"  # a read tool: issue_list under another name, listed after the others, in another toolset
MODULE = f"{registry.TOOLS}.{NEW}"


def _copy_of_issue_list() -> str:
    source = (Path(gitea_mcp.tools.__file__).parent / "issue_list.py").read_text(encoding="utf-8")
    # its name, toolset and place in SPEC
    assert [source.count(part) for part in ('    "issue_list",\n', 'toolset="issues",', "order=1,")] == [1, 1, 1]
    renamed = source.replace('    "issue_list",\n', f'    "{NEW}",\n').replace("order=1,", "order=99,")
    return renamed.replace('toolset="issues",', 'toolset="labels",')


@pytest.fixture
def added(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The new module in a folder of the tools package, and every generated file as a temporary copy."""
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / f"{NEW}.py").write_text(_copy_of_issue_list(), encoding="utf-8")
    monkeypatch.setattr(gitea_mcp.tools, "__path__", [*gitea_mcp.tools.__path__, str(folder)])
    screens = tmp_path / "screens"
    shutil.copytree(generated.SCREENS, screens)
    for module, name, original in (
        (registry, "SPECS", registry.SPECS),
        (registry, "LISTING", registry.LISTING),
        (generated, "README", generated.README),
        (generated, "TOOLS_DOC", generated.TOOLS_DOC),
        (generated, "SETTINGS_DOC", generated.SETTINGS_DOC),
    ):
        copy = tmp_path / original.name
        shutil.copy(original, copy)
        monkeypatch.setattr(module, name, copy)
    monkeypatch.setattr(generated, "SCREENS", screens)
    monkeypatch.setattr(test_readme, "SCREENS", screens)
    monkeypatch.setattr(registry, "_loaded", {})
    listing.cache_clear()  # tools/list as read from listing.json once per process
    yield tmp_path
    listing.cache_clear()
    sys.modules.pop(MODULE, None)


def _regenerate(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m tests.support.generated`, then the registry reading specs.json again as a server starting does."""
    generated.write_all()
    monkeypatch.setattr(registry, "_SPECS", registry._stored_specs())
    monkeypatch.setattr(registry, "_MODULE", {name: f"{registry.TOOLS}.{name}" for name in registry._SPECS})


def _new_tool() -> ToolDefinition:
    return next(tool for tool in tool_cases.tools() if tool.spec.name == NEW)


def test_before_regenerating_one_test_names_the_files_to_make(added: Path) -> None:
    assert NEW in [tool.spec.name for tool in tool_cases.tools()]  # the safety suites already cover it
    assert registry.declared(NEW) is None  # not served yet: specs.json does not know it
    stale = generated.stale()
    assert stale == [
        str(added / "specs.json"),
        str(added / "listing.json"),
        str(added / "screens" / f"example_{NEW}.txt"),
        str(added / "tools.md"),
        str(added / "README.md"),
    ]
    with pytest.raises(AssertionError, match=r"python -m tests\.support\.generated"):
        from tests.test_generated import test_every_file_made_from_the_tool_modules_is_current

        test_every_file_made_from_the_tool_modules_is_current()


def test_once_regenerated_it_is_served_listed_and_documented(added: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    visible, whole = registry.budgets()
    _regenerate(monkeypatch)
    assert generated.stale() == []
    spec = registry.declared(NEW)
    assert spec is not None and registry.offered(read_only=True)[-1] == spec
    with StandIn() as forge:
        settings = Settings(url=forge.url, token=SecretStr(DEMO_TOKEN), allowed_owners=frozenset({"acme"}))
        server = build_server(settings)
        listed = {tool.name: tool for tool in asyncio.run(server.list_tools())}
        result = answered(asyncio.run(server.call_tool(NEW, {"owner": "acme", "name": "widgets", "limit": 2})))
    assert NEW in listed and (listed[NEW].description or "").startswith(spec.description)
    assert not result.is_error and text_of(result).startswith("acme/widgets issues"), text_of(result)
    readme, tools = ((added / name).read_text(encoding="utf-8") for name in ("README.md", "tools.md"))
    assert f"### `{NEW}`" in tools and f"| `{NEW}` | `labels` | `read:issue` |" in readme
    assert (added / "screens" / f"example_{NEW}.txt").read_text(encoding="utf-8").startswith("acme/widgets issues")
    assert registry.budgets() == (visible + spec.budget, whole + spec.listed_budget)  # it brought its own budgets


def test_once_regenerated_the_safety_suites_cover_it(added: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _regenerate(monkeypatch)
    tool = _new_tool()
    assert NEW in [spec.name for spec in tool_cases.served()]
    test_every_tool.test_an_owner_outside_the_allowlist_is_refused_before_any_request(tool)
    test_every_tool.test_a_served_tool_refuses_an_owner_outside_the_allowlist_through_the_server(registry.every()[-1])
    test_every_tool.test_a_read_only_server_lists_the_read_tools_and_refuses_the_writes(registry.every()[-1])
    # In a toolset of its own: a server of the others leaves it out, and one of its own leaves the others out.
    test_every_tool.test_a_server_without_its_toolset_neither_lists_nor_runs_it(registry.every()[-1])
    test_every_tool.test_a_server_without_its_toolset_neither_lists_nor_runs_it(registry.every()[0])
    with StandIn(profile=PROFILES["gitea-1.25"]) as forge:
        test_every_tool.test_without_a_token_a_write_says_to_set_one_and_a_read_works(tool, forge)
        test_every_tool.test_a_token_lacking_a_scope_is_told_every_scope_the_tool_needs(tool, forge)
    test_hostile_input.test_every_tool(tool)
