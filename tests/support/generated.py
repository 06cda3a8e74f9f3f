"""Every file made from the tool modules, and the one command that makes them all again:

    python -m tests.support.generated

specs.json and listing.json (what serving reads instead of importing a tool), each tool's example screen (its
plain call against the stand-in: tests/golden/screens/example_<tool>.txt), the README's tools reference and its
scope table.
tests/test_generated.py fails, naming the files, while any of them is not what the modules make: a tool module
added to gitea_mcp/tools/ fails there alone until this is run (and its diff reviewed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from gitea_mcp.standin import StandIn
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.base import ToolDefinition
from tests.support import tool_cases
from tests.support.readme import readme_table

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SCREENS = ROOT / "tests" / "golden" / "screens"
COMMAND = "python -m tests.support.generated"
_REFERENCE = re.compile(r"(<!-- tools:start -->\n)(.*?)(<!-- tools:end -->)", re.DOTALL)
_SCOPES = re.compile(r"(<!-- scopes:start -->\n)(.*?)(\n<!-- scopes:end -->)", re.DOTALL)


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


def readme() -> str:
    """README.md with its tools reference (the tools and their screens) and its scope table (each tool's scopes,
    as `check` verifies them) as the tools make them."""
    from tests.test_readme import tools_reference

    text = README.read_text(encoding="utf-8")
    for pattern, part in ((_REFERENCE, tools_reference()), (_SCOPES, readme_table(t.spec for t in tool_cases.tools()))):
        found = pattern.search(text)
        assert found, f"README.md lacks the markers {pattern.pattern}"
        text = text[: found.start(2)] + part + text[found.end(2) :]
    return text


def files() -> list[Generated]:
    """In the order they are made: the README shows the example screens."""
    tools = tool_cases.tools()
    return [
        Generated(registry.SPECS, registry.generated_specs),
        Generated(registry.LISTING, registry.generated_listing),
        *(Generated(example_path(tool), partial(example_screen, tool)) for tool in tools),
        Generated(README, readme),
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
