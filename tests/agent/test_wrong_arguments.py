"""Property test: whatever arguments an agent sends — wrong types, missing, extra, null — every tool answers over MCP
with a result or one plain sentence; no validation library's text ever reaches the agent."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import TextContent

from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import registry
from tests.support.results import answered

CLOSED = "http://127.0.0.1:9"  # nothing listens: a call that passes the checks fails at once, without a Gitea
SERVER = build_server(
    Settings(url=CLOSED, allowed_owners=frozenset({"acme"})),
    GiteaClient(CLOSED, None, timeout=2, retry=RetryPolicy(attempts=1)),
)
TOOLS = {tool.spec.name: list(tool.args.model_fields) for tool in registry.definitions()}
LIBRARY_TEXT = re.compile(r"validation error|pydantic|\[type=|input_value|Traceback|Field required", re.IGNORECASE)

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.lists(st.one_of(st.text(max_size=8), st.integers()), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from(sorted(TOOLS)))
    names = st.one_of(
        st.sampled_from(TOOLS[tool]), st.sampled_from(["status", "repo", "label", "q"]), st.text(max_size=12)
    )
    return tool, draw(st.dictionaries(names, values, max_size=6))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=calls())
def test_every_answer_is_a_result_or_one_plain_sentence(call: tuple[str, dict[str, Any]]) -> None:
    tool, arguments = call
    result = answered(asyncio.run(SERVER.call_tool(tool, arguments)))
    block = result.content[0]
    assert isinstance(block, TextContent)
    assert not LIBRARY_TEXT.search(block.text), block.text
    if result.is_error:
        assert "\n" not in block.text and block.text.endswith((".", "?", ")")), block.text
