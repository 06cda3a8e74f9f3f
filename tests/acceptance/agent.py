"""An agent's side of a task: call a tool by name with raw arguments, read both faces, follow the tool's own hints.

Tools are called the way the MCP server calls them (`ToolDefinition.call`: raw arguments checked against the
schema, the error boundary, the deadline), with a token of exactly write:issue + read:user for the role.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult, TextContent

from gitea_mcp.cli.call import parse_arguments
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.arguments import input_schema
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from tests.acceptance.world import World
from tests.contract.target import Target
from tests.support.results import rows_of

TOOLS: dict[str, ToolDefinition] = {tool.spec.name: tool for tool in registry.definitions()}
# The first line of a list's text face: `… 63 matches, showing 1–5`, `0 matches`, `63 matches, none on page 9 …`.
COUNT = re.compile(r"(\d+) match(?:es)?(?:, showing (\d+)–(\d+))?")


@dataclass
class Answer:
    """One tool call as the agent saw it."""

    tool: str
    args: dict[str, Any]
    result: CallToolResult

    @property
    def text(self) -> str:
        block = self.result.content[0]
        assert isinstance(block, TextContent)
        return block.text

    @property
    def error(self) -> bool:
        return bool(self.result.is_error)

    @property
    def data(self) -> dict[str, Any]:
        assert not self.error, f"{self.tool} {self.args}: {self.text}"
        data = self.result.structured_content  # typed Any by the SDK: an object, as our output models say
        assert isinstance(data, dict)
        return data

    @property
    def rows(self) -> list[dict[str, Any]]:
        return rows_of(self.data)

    def header(self) -> tuple[int, int, int] | None:
        """(total, first, last) as the text's first line says it; None when the text states no count."""
        match = COUNT.search(self.text.splitlines()[0])
        if match is None:
            return None
        total = int(match[1])
        return total, int(match[2] or 0), int(match[3] or 0)

    def hint(self, kind: str) -> tuple[str, dict[str, Any]] | None:
        """The call a `help: KIND: TOOL k=v …` line names, typed by that tool's schema."""
        line = next((x for x in self.text.splitlines() if x.startswith(f"help: {kind}: ")), None)
        if line is None:
            return None
        tool, *pairs = shlex.split(line.removeprefix(f"help: {kind}: "))
        return tool, parse_arguments(pairs, input_schema(TOOLS[tool].args))

    def __str__(self) -> str:
        return f"{self.tool} {self.args}\n{self.text}"


class Agent:
    """One role's MCP session: its own client and catalogue cache, as a configured server would hold them."""

    def __init__(self, target: Target, world: World, role: str, url: str | None = None) -> None:
        # `url`: another way to the same server (a proxy in front of it, tests/support/proxy.py).
        client = GiteaClient(url or target.url, world.tokens[role], timeout=30, retry=RetryPolicy(attempts=1))
        self.deps = Deps(client=client, policy=Policy(frozenset({world.org.lower()})), catalog=Catalog())
        self.login = world.login(role)

    def call(self, tool: str, **args: Any) -> Answer:
        return Answer(tool, args, TOOLS[tool].call(self.deps, args))

    def follow(self, tool: str, **args: Any) -> list[Answer]:
        """The first page and every page its `next page` hints lead to."""
        answers = [self.call(tool, **args)]
        while (step := answers[-1].hint("next page")) is not None:
            answers.append(self.call(step[0], **step[1]))
            assert len(answers) < 60, "the next-page hints never end"
        return answers
