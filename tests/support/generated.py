"""Every file made from the tool modules, and the one command that makes them all again:

    python -m tests.support.generated

specs.json and listing.json (what serving reads instead of importing a tool), each tool's example screen (its
plain call against the stand-in: tests/golden/screens/example_<tool>.txt), docs/tools.md's tools reference, the
scope table (in docs/tools.md and the README), the README's install links (from the clients' declarations) and
docs/settings.md's tables (from the settings' declarations).
tests/test_generated.py fails, naming the files, while any of them is not what the modules make: a tool module
added to gitea_mcp/tools/ fails there alone until this is run (and its diff reviewed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from gitea_mcp.standin import StandIn
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.base import ToolDefinition
from tests import figures
from tests.support import tool_cases
from tests.support.readme import install_links, readme_table, settings_tables

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TOOLS_DOC = ROOT / "docs" / "tools.md"
SETTINGS_DOC = ROOT / "docs" / "settings.md"
SCREENS = ROOT / "tests" / "golden" / "screens"
COMMAND = "python -m tests.support.generated"


def _marked(name: str) -> re.Pattern[str]:
    """The part of a page between `<!-- name:start -->` and `<!-- name:end -->`, each on a line of its own."""
    return re.compile(rf"(<!-- {name}:start -->\n)(.*?)(<!-- {name}:end -->)", re.DOTALL)


@dataclass(frozen=True)
class Generated:
    path: Path
    make: Callable[[], str]

    def current(self) -> bool:
        try:
            return self.path.read_text(encoding="utf-8") == self.make()
        except FileNotFoundError:  # the file itself, or one it is made from (the README shows the example screens)
            return False

    def write(self) -> None:
        self.path.write_text(self.make(), encoding="utf-8")


def example_path(tool: ToolDefinition) -> Path:
    return SCREENS / f"example_{tool.spec.name}.txt"


def example_screen(tool: ToolDefinition) -> str:
    """The tool's plain call (tool_cases.sample) on a fresh stand-in, as the agent reads it."""
    from tests.golden.test_screens import deps_for, text_of  # the screens' own way of showing a result

    with StandIn() as forge:
        return text_of(tool.call(deps_for(forge), tool_cases.sample(tool)), forge)


def _filled(path: Path, parts: list[tuple[str, Callable[[], str]]]) -> str:
    """The page with each marked part as the declarations make it."""
    text = path.read_text(encoding="utf-8")
    for name, make in parts:
        found = _marked(name).search(text)
        assert found, f"{_shown(path)} lacks the markers <!-- {name}:start --> and <!-- {name}:end -->"
        text = text[: found.start(2)] + make() + text[found.end(2) :]
    return text


def _scopes() -> str:
    return readme_table(t.spec for t in tool_cases.tools()) + "\n"


def readme() -> str:
    """README.md with its scope table (each tool's scopes, as `check` verifies them), the editors' install links
    (the entries `config` writes) and the suite's figures as tests/figures.json records them."""
    measured = json.loads(figures.FIGURES.read_text(encoding="utf-8"))  # the suite's figures, never typed by hand
    text = _filled(README, [("scopes", _scopes), ("install-links", install_links)])
    return figures.quote(text, measured)


def tools_doc() -> str:
    """docs/tools.md with the tools reference (the tools and their screens) and the scope table."""
    from tests.test_readme import tools_reference

    return _filled(TOOLS_DOC, [("tools-contents", _contents), ("scopes", _scopes), ("tools", tools_reference)])


def _contents() -> str:
    linked = ", ".join(f"[`{t.spec.name}`](#{t.spec.name})" for t in tool_cases.tools())
    return f"- [Reference](#reference): {linked}\n"


def settings_doc() -> str:
    """docs/settings.md with a table per group of settings, as the command line declares them."""
    return _filled(SETTINGS_DOC, [("settings", settings_tables)])


def files() -> list[Generated]:
    """In the order they are made: docs/tools.md shows the example screens."""
    tools = tool_cases.tools()
    return [
        Generated(registry.SPECS, registry.generated_specs),
        Generated(registry.LISTING, registry.generated_listing),
        *(Generated(example_path(tool), partial(example_screen, tool)) for tool in tools),
        Generated(TOOLS_DOC, tools_doc),  # after the screens it shows
        Generated(README, readme),
        Generated(SETTINGS_DOC, settings_doc),
    ]


def stale() -> list[str]:
    """The generated files that are missing or not what the tool modules make, relative to the repository."""
    return [str(_shown(file.path)) for file in files() if not file.current()]


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def write_all() -> None:
    for file in files():
        file.write()


if __name__ == "__main__":
    write_all()
