"""The demo's `→` lines are what `gitea-issues-mcp call` takes: pasted after `call`, each runs the call shown."""

from __future__ import annotations

import asyncio
import shlex
from typing import Any

import pytest

from gitea_mcp.cli import demo
from gitea_mcp.cli.call import parse_arguments
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings

SCHEMAS = {
    tool.name: tool.input_schema
    for tool in asyncio.run(
        build_server(Settings(url="https://gitea.example.com", allowed_owners=frozenset({"acme"}))).list_tools()
    )
}


def read_back(line: str) -> tuple[str, dict[str, Any]]:
    """A printed call line as the shell and then `call` read it."""
    tool, *pairs = shlex.split(line)
    return tool, parse_arguments(pairs, SCHEMAS[tool])


@pytest.mark.parametrize(("tool", "arguments", "why"), demo.SCRIPT, ids=[why for _, _, why in demo.SCRIPT])
def test_every_scripted_call_line_is_accepted_by_call(tool: str, arguments: dict[str, Any], why: str) -> None:
    assert read_back(demo.call_line(tool, arguments)) == (tool, arguments)


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param(
            {"owner": "acme", "name": "widgets", "labels": ["bug", "good first issue"]}, id="list-with-spaces"
        ),
        pytest.param({"owner": "acme", "name": "widgets", "title": '[ui] it\'s "broken" $HOME `x`'}, id="shell-chars"),
        pytest.param({"owner": "acme", "name": "widgets", "title": "42"}, id="number-like-title"),
        pytest.param({"owner": "acme", "name": "widgets", "title": "true"}, id="boolean-like-title"),
        pytest.param({"owner": "acme", "name": "widgets", "number": 3, "state": "closed"}, id="integer"),
        pytest.param({"query": "crash label:bug is:open", "owner": "acme"}, id="query-with-spaces"),
    ],
)
def test_odd_values_round_trip(arguments: dict[str, Any]) -> None:
    tool = "issue_update" if "number" in arguments else "issue_create" if "title" in arguments else "issue_list"
    tool = "issue_search" if "query" in arguments else tool
    assert read_back(demo.call_line(tool, arguments)) == (tool, arguments)


def test_a_list_call_cannot_express_is_refused() -> None:
    # A label holding a comma cannot be written for `call` (it splits comma lists): say so rather than print a lie.
    with pytest.raises(ValueError, match="comma"):
        demo.call_line("issue_list", {"owner": "acme", "name": "widgets", "labels": ["a,b"]})
