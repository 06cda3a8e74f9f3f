"""An MCP client session with a server over stdio — by default `python -m gitea_mcp serve` as a subprocess.

One helper for everything that talks to the server as a client would: the demo, the end-to-end tests, the bench.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any


@asynccontextmanager
async def stdio_session(
    env: dict[str, str], args: Sequence[str] = (), command: Sequence[str] | None = None, cwd: str | None = None
) -> AsyncIterator[Any]:
    """An initialised ClientSession; the server's stderr is discarded (the protocol lives on stdout)."""
    # why: the SDK's client, 0.43 s: only when a session is opened
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    argv = list(command) if command is not None else [sys.executable, "-m", "gitea_mcp", "serve", *args]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
