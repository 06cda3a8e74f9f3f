"""The safety rules every tool keeps, checked on every tool the registry has (tests/support/tool_cases.py): a tool
module added to gitea_mcp/tools/ is covered here with no edit to any test.

An owner outside the allowlist is refused before any request; without a token a write says to set one and a read
of a public repository works; a token lacking a scope is told every scope the tool needs; a read-only server lists
the read tools and refuses the write tools with the reason; a server not serving a tool's toolset neither lists nor
runs it, and says how to serve it. Whatever an agent sends: tests/test_hostile_input.py.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest
import responses
from mcp.shared.exceptions import MCPError

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.standin import PROFILES, StandIn
from gitea_mcp.standin.data import DEMO_USER_TOKEN
from gitea_mcp.toolkit import registry, scopes
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.toolkit.spec import TOOLSETS, ToolSpec
from tests.support import TOKEN, tool_cases
from tests.support.gitea_json import ROOT
from tests.support.results import answered, failed, text_of

TOOLS = tool_cases.tools()
SERVED = tool_cases.served()


def deps(url: str, token: str | None) -> Deps:
    client = GiteaClient(url, token, timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({tool_cases.ALLOWED_OWNER})), catalog=Catalog())


@pytest.fixture(scope="module")
def forge() -> Iterator[StandIn]:
    """Gitea 1.25, which names the token's own scopes in a 403."""
    with StandIn(profile=PROFILES["gitea-1.25"]) as standin:
        yield standin


@pytest.mark.parametrize("tool", TOOLS, ids=tool_cases.name_of)
def test_an_owner_outside_the_allowlist_is_refused_before_any_request(tool: ToolDefinition) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as sent:
        sent.add_callback("GET", re.compile(re.escape(ROOT) + ".*"), callback=lambda _: (500, {}, "{}"))
        said = failed(tool.call(deps(ROOT, TOKEN), tool_cases.sample(tool, owner="elsewhere")))
        assert len(sent.calls) == 0, f"{tool.spec.name} asked Gitea about an owner it may not touch"
    assert "elsewhere" in said and "allow" in said.lower(), said


@pytest.mark.parametrize("tool", TOOLS, ids=tool_cases.name_of)
def test_without_a_token_a_write_says_to_set_one_and_a_read_works(tool: ToolDefinition, forge: StandIn) -> None:
    result = tool.call(deps(forge.url, None), tool_cases.sample(tool))
    if tool.spec.writes or tool.spec.name in tool_cases.TOKEN_ONLY_READS:
        assert "set GITEA_TOKEN" in failed(result)
    else:
        assert not result.is_error, text_of(result)


@pytest.mark.parametrize("tool", TOOLS, ids=tool_cases.name_of)
def test_a_token_lacking_a_scope_is_told_every_scope_the_tool_needs(tool: ToolDefinition, forge: StandIn) -> None:
    said = failed(tool.call(deps(forge.url, DEMO_USER_TOKEN), tool_cases.sample(tool)))  # read:user alone
    assert f"which {tool.spec.name} needs" in said, said
    assert [scope for scope in scopes.folded(tool.spec.scopes) if scope not in said] == [], said


@pytest.mark.parametrize("spec", SERVED, ids=tool_cases.name_of)
def test_a_read_only_server_lists_the_read_tools_and_refuses_the_writes(spec: ToolSpec) -> None:
    settings = Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}), read_only=True)
    server = build_server(settings)
    listed = [tool.name for tool in asyncio.run(server.list_tools())]
    assert (spec.name in listed) is (not spec.writes)
    if not spec.writes:
        return
    with pytest.raises(MCPError) as refused:
        asyncio.run(server.call_tool(spec.name, {"owner": "acme", "name": "widgets"}))
    assert refused.value.error.data == {"reason": "read-only"}
    assert "GITEA_READ_ONLY" in refused.value.error.message


@pytest.mark.parametrize("spec", SERVED, ids=tool_cases.name_of)
def test_a_server_without_its_toolset_neither_lists_nor_runs_it(spec: ToolSpec) -> None:
    """Every toolset but the tool's own served: while every tool is in one toolset no server can leave it out (one
    serving no tool does not start), and the test says so; tests/test_adding_a_tool.py runs it on a second one."""
    others = tuple(toolset for toolset in TOOLSETS if toolset != spec.toolset)
    if not registry.offered(False, others):
        pytest.skip(f"no tool outside the {spec.toolset} toolset to serve instead")
    settings = Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}), toolsets=others)
    server = build_server(settings)
    listed = [tool.name for tool in asyncio.run(server.list_tools())]
    assert spec.name not in listed and listed == [served.name for served in registry.offered(False, others)]
    with pytest.raises(MCPError) as refused:
        asyncio.run(server.call_tool(spec.name, {"owner": "acme", "name": "widgets"}))
    assert refused.value.error.data == {"reason": "toolset"}
    assert f"adding {spec.toolset} to GITEA_TOOLSETS" in refused.value.error.message


@pytest.mark.parametrize("spec", SERVED, ids=tool_cases.name_of)
def test_a_served_tool_refuses_an_owner_outside_the_allowlist_through_the_server(spec: ToolSpec) -> None:
    """The same refusal as above, through the MCP server's call path (its module imported on this first call)."""
    server = build_server(Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"})))
    arguments = tool_cases.sample(registry.definition(spec.name), owner="elsewhere")
    said = failed(answered(asyncio.run(server.call_tool(spec.name, arguments))))
    assert "elsewhere" in said and "allow" in said.lower() and "failed inside" not in said, said
