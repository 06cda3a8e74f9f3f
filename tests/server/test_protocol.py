"""What the protocol is told (issue 34), in process: the SDK's Client on its handshake (2025-11-25) and on
server/discover (2026-07-28). Every revision, over stdio and HTTP, with the server's log read:
tests/e2e/test_protocol.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}  # the Client's mode: the revision it negotiates in process


def _session(mode: str, read_only: bool, tool: str) -> tuple[str, dict[str, Any], MCPError]:
    settings = Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}), read_only=read_only)

    async def run() -> tuple[str, dict[str, Any], MCPError]:
        async with Client(build_server(settings), mode=mode) as client:
            capabilities = client.session.server_capabilities
            assert capabilities is not None
            with pytest.raises(MCPError) as refused:
                await client.call_tool(tool, {})
            said = capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
            return client.protocol_version, said, refused.value

    return asyncio.run(run())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("read_only", "tool", "said"),
    [
        (False, "issue_lists", "did you mean issue_list?"),
        (True, "issue_comment", "issue_comment is not offered: this server is read-only (GITEA_READ_ONLY=true"),
    ],
)
def test_a_tool_not_served_and_the_capabilities(mode: str, read_only: bool, tool: str, said: str) -> None:
    version, capabilities, refused = _session(mode, read_only, tool)
    assert version == MODES[mode]
    assert capabilities == {"tools": {"listChanged": False}}
    assert refused.error.code == INVALID_PARAMS and said in refused.error.message
