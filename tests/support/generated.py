"""Every file made from the tool modules, and the one command that makes them all again:

    python -m tests.support.generated

specs.json and listing.json (what serving reads instead of importing a tool), each tool's example screen (its
plain call against the stand-in: tests/golden/screens/example_<tool>.txt) and the README's tools reference.
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

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SCREENS = ROOT / "tests" / "golden" / "screens"
COMMAND = "python -m tests.support.generated"
_REFERENCE = re.compile(r"(<!-- tools:start -->\n)(.*?)(<!-- tools:end -->)", re.DOTALL)


@dataclass(frozen=True)
class Generated:
    path: Path
    make: Callable[[], str]

    def current(self) -> bool:
        return self.path.exists() and self.path.read_text(encoding="utf-8") == self.make()

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
    """README.md with its tools reference as the tools and their screens make it."""
    from tests.test_readme import tools_reference

    text = README.read_text(encoding="utf-8")
    found = _REFERENCE.search(text)
    assert found, "README.md lacks the <!-- tools:start --> ... <!-- tools:end --> markers"
    return text[: found.start(2)] + tools_reference() + text[found.end(2) :]


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
    return [str(file.path.relative_to(ROOT)) for file in files() if not file.current()]


def write_all() -> None:
    for file in files():
        file.write()


if __name__ == "__main__":
    write_all()
