"""The Python SDK's OAuth client provider (mcp.client.auth.OAuthClientProvider) against an MCP server (issue 24).

Dynamic registration (RFC 7591), not a client metadata document: the SDK demands an https URL for that one. The
tokens and the registration stay in memory. `redirect_handler` hands the authorization URL to `authorize` (the
browser user, run in a worker thread: Playwright's sync API refuses a thread with an event loop);
`callback_handler` returns the code, state and iss of the redirect the browser arrived at. Every HTTP exchange
is recorded in `Run.exchanges` (`<method> <url> <status>`), to show what the SDK read and in which order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.to_thread
import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

# The URL the user is sent to -> the URL the browser was redirected back to.
Authorize = Callable[[str], str]


class MemoryStorage:
    """TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@dataclass
class Run:
    exchanges: list[str] = field(default_factory=list)
    authorize_urls: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    issue_list: dict[str, Any] | None = None
    storage: MemoryStorage = field(default_factory=MemoryStorage)


def redirect_result(url: str) -> AuthorizationCodeResult:
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    if "code" not in query:
        raise AssertionError(f"the redirect carried no code: {url}")
    return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def provider(server_url: str, redirect_uri: str, authorize: Authorize, run: Run) -> OAuthClientProvider:
    arrived: list[str] = []

    async def redirect_handler(url: str) -> None:
        run.authorize_urls.append(url)
        arrived.append(await anyio.to_thread.run_sync(authorize, url))

    async def callback_handler() -> AuthorizationCodeResult:
        return redirect_result(arrived.pop())

    metadata = OAuthClientMetadata(
        client_name="gitea-mcp signin-e2e (Python SDK)",
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(server_url, metadata, run.storage, redirect_handler, callback_handler)


async def session_run(
    server_url: str, redirect_uri: str, authorize: Authorize, arguments: dict[str, Any], run: Run
) -> None:
    """Connect (signing in on the way), list the tools, call issue_list; all of it recorded in `run`."""

    async def trace(response: httpx2.Response) -> None:
        run.exchanges.append(f"{response.request.method} {response.request.url} {response.status_code}")

    auth = provider(server_url, redirect_uri, authorize, run)
    async with (
        httpx2.AsyncClient(auth=auth, event_hooks={"response": [trace]}, timeout=30, trust_env=False) as http,
        streamable_http_client(server_url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        run.tools = [tool.name for tool in (await session.list_tools()).tools]
        result = await session.call_tool("issue_list", arguments)
        run.issue_list = json.loads(result.model_dump_json(exclude_none=True, by_alias=True))


def run_client(
    server_url: str, redirect_uri: str, authorize: Authorize, arguments: dict[str, Any], run: Run,
    seconds: float = 60.0,
) -> None:  # fmt: skip
    """The whole run, bounded; `run` keeps what happened even when it raises."""

    async def bounded() -> None:
        with anyio.fail_after(seconds):
            await session_run(server_url, redirect_uri, authorize, arguments, run)

    anyio.run(bounded)
