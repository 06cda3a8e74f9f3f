"""What the protocol is told (issue 34), at each revision a client negotiates: 2025-06-18 and 2025-11-25 (the
initialize handshake) and 2026-07-28 (server/discover, a per-request envelope).

The real server process and the SDK's own ClientSession, over stdio and over streamable HTTP; the handshake is sent
at the revision under test through the session's public `send_request` and `adopt` (its `initialize()` offers the
newest alone). Each server is asked everything once; the tests below read the answers, one aspect each. The server
runs at GITEA_LOG_LEVEL=INFO, and its stderr is read for tracebacks.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit import registry
from tests.e2e.conftest import STARTED
from tests.support.processes import stop
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow  # eight server processes, some 15 s

REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
MODERN = "2026-07-28"
READ = ", ".join(spec.name for spec in registry.offered(read_only=True))
ALL = ", ".join(spec.name for spec in registry.offered(read_only=False))
HIDDEN = (
    "this server is read-only (GITEA_READ_ONLY=true or --read-only), which hides the tools that write; the operator "
    "offers them by setting GITEA_READ_ONLY=false (or serving without --read-only) and restarting the server"
)

# What each server is asked: (kind, name or uri).
ASKED = (
    ("tool", "issue_lists"),
    ("tool", "list_issues"),
    ("tool", "frobnicate"),
    ("tool", "issue_create"),
    ("tool", "issue_creat"),
    ("prompt", "triage"),
    ("resource", "gitea://acme/widgets/issues/1"),
)
# tools/call of a tool not served: -32602, its message and data, on a server offering every tool / read-only.
UNSERVED: dict[tuple[str, bool], tuple[str, dict[str, Any]]] = {
    ("issue_lists", False): (
        f"Unknown tool: 'issue_lists'; did you mean issue_list? The tools offered: {ALL}.",
        {"reason": "unknown", "nearest": "issue_list"},
    ),
    ("list_issues", False): (
        f"Unknown tool: 'list_issues'; did you mean issue_list? The tools offered: {ALL}.",
        {"reason": "unknown", "nearest": "issue_list"},
    ),
    ("frobnicate", False): (f"Unknown tool: 'frobnicate'. The tools offered: {ALL}.", {"reason": "unknown",
                                                                                     "nearest": None}),
    ("issue_creat", False): (
        f"Unknown tool: 'issue_creat'; did you mean issue_create? The tools offered: {ALL}.",
        {"reason": "unknown", "nearest": "issue_create"},
    ),
    ("issue_lists", True): (
        f"Unknown tool: 'issue_lists'; did you mean issue_list? The tools offered: {READ}.",
        {"reason": "unknown", "nearest": "issue_list"},
    ),
    ("list_issues", True): (
        f"Unknown tool: 'list_issues'; did you mean issue_list? The tools offered: {READ}.",
        {"reason": "unknown", "nearest": "issue_list"},
    ),
    ("frobnicate", True): (f"Unknown tool: 'frobnicate'. The tools offered: {READ}.", {"reason": "unknown",
                                                                                     "nearest": None}),
    ("issue_create", True): (
        f"issue_create is not offered: {HIDDEN}. The tools offered: {READ}.", {"reason": "read-only"}
    ),
    ("issue_creat", True): (
        "Unknown tool: 'issue_creat'; did you mean issue_create? It is not offered: this server is read-only "
        f"(GITEA_READ_ONLY=true or --read-only), which hides the tools that write. The tools offered: {READ}.",
        {"reason": "unknown", "nearest": "issue_create"},
    ),
}  # fmt: skip


@dataclass
class Seen:
    """A session's answers: the capabilities and instructions it was given, tools/list's cache hint, the answer to
    each of ASKED (an ErrorData, or a result), the answer to bad arguments, and the server's stderr."""

    revision: str
    capabilities: dict[str, Any]
    instructions: str | None
    discover: dict[str, Any] | None
    tools_hint: tuple[int | None, str | None]
    answers: dict[tuple[str, str], Any] = field(default_factory=dict)
    bad_arguments: types.CallToolResult | None = None
    log: str = ""


async def _connect(session: ClientSession, revision: str) -> tuple[dict[str, Any], str | None, dict[str, Any] | None]:
    """The session at `revision`: the handshake sent at that revision, or server/discover at 2026-07-28."""
    if revision == MODERN:
        found = await session.discover()
        raw = found.model_dump(mode="json", by_alias=True, exclude_none=True)
        return raw["capabilities"], found.instructions, raw
    initialize = types.InitializeRequest(
        params=types.InitializeRequestParams(
            protocol_version=revision,
            capabilities=types.ClientCapabilities(),
            client_info=types.Implementation(name="protocol-test", version="1"),
        )
    )
    result = await session.send_request(initialize, types.InitializeResult)
    assert result.protocol_version == revision, "the server agreed to the revision offered"
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())
    return result.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True), result.instructions, None


async def _ask(session: ClientSession, kind: str, name: str) -> Any:
    try:
        if kind == "tool":
            return await session.call_tool(name, {})
        if kind == "prompt":
            return await session.get_prompt(name)
        return await session.read_resource(name)
    except MCPError as refused:
        return refused.error


async def _exchange(session: ClientSession, revision: str) -> Seen:
    capabilities, instructions, discover = await _connect(session, revision)
    listed = await session.list_tools()
    seen = Seen(revision, capabilities, instructions, discover, (listed.ttl_ms, listed.cache_scope))
    if revision == MODERN:  # what 2026-07-28 carries on the wire; older revisions never see a hint
        raw = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
        seen.tools_hint = (raw.get("ttlMs"), raw.get("cacheScope"))
    for kind, name in ASKED:
        seen.answers[kind, name] = await _ask(session, kind, name)
    seen.bad_arguments = await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "state": "x"})
    return seen


Opener = Callable[[], AbstractAsyncContextManager[ClientSession]]


def _run(open_session: Opener, revision: str) -> Seen:
    async def main() -> Seen:
        async with open_session() as session:
            return await _exchange(session, revision)

    return anyio.run(main)


@asynccontextmanager
async def _over_stdio(env: dict[str, str], log: TextIO) -> AsyncIterator[ClientSession]:
    argv = [sys.executable, "-m", "gitea_mcp", "serve"]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env={**os.environ, **env})
    async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
        yield session


@asynccontextmanager
async def _over_http(url: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, trust_env=False) as http,
        streamable_http_client(f"{url}/mcp", http_client=http, terminate_on_close=False) as (read, write),
        ClientSession(read, write) as session,
    ):
        yield session


CASES = [(transport, read_only, revision) for transport in ("stdio", "http") for read_only in (False, True)
         for revision in REVISIONS]  # fmt: skip
IDS = [f"{t}-{'read-only' if ro else 'read-write'}-{r}" for t, ro, r in CASES]


@contextmanager
def _http_server(env: dict[str, str], log: TextIO) -> Iterator[str]:
    """`serve --transport http --port 0` with its stderr in `log` (read whole, nothing lost to a reader thread);
    its URL, from the start-up line there."""
    command = [sys.executable, "-m", "gitea_mcp", "serve", "--transport", "http", "--port", "0"]
    process = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=log)

    def started() -> re.Match[str] | None:
        assert process.poll() is None, Path(log.name).read_text()
        return STARTED.search(Path(log.name).read_text())

    try:
        yield f"http://127.0.0.1:{wait_until(started, 20, 'the HTTP server starting').group(1)}"
    finally:
        stop(process)


def _logged(log: TextIO, since: int) -> str:
    """What the server wrote to `log` from byte `since`: a record is written (and flushed) before its answer."""
    return Path(log.name).read_bytes()[since:].decode()


@pytest.fixture(scope="module")
def everything() -> Iterator[dict[tuple[str, bool, str], Seen]]:
    """Every case's answers: a stdio server per revision, an HTTP server for the three; read-write and read-only."""
    seen: dict[tuple[str, bool, str], Seen] = {}
    with StandIn() as forge, tempfile.TemporaryDirectory() as folder:
        base = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_LOG_LEVEL": "INFO"}
        for read_only in (False, True):
            env = {**base, "GITEA_READ_ONLY": "true" if read_only else "false"}
            with open(Path(folder, f"stdio-{read_only}.log"), "w+") as log:
                for revision in REVISIONS:
                    since = Path(log.name).stat().st_size
                    answers = _run(functools.partial(_over_stdio, {**env, "GITEA_TOKEN": DEMO_TOKEN}, log), revision)
                    answers.log = _logged(log, since)
                    seen["stdio", read_only, revision] = answers
            with open(Path(folder, f"http-{read_only}.log"), "w+") as log, _http_server(env, log) as url:
                for revision in REVISIONS:
                    since = Path(log.name).stat().st_size
                    answers = _run(functools.partial(_over_http, url), revision)
                    answers.log = _logged(log, since)
                    seen["http", read_only, revision] = answers
    yield seen


@pytest.mark.parametrize(("transport", "read_only", "revision"), CASES, ids=IDS)
@pytest.mark.parametrize("name", sorted({name for kind, name in ASKED if kind == "tool"}))
def test_a_tool_not_served_is_invalid_params_naming_the_tool_meant(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool, revision: str, name: str
) -> None:
    answer = everything[transport, read_only, revision].answers["tool", name]
    if (name, read_only) not in UNSERVED:  # issue_create on a server that offers it: served, so a tool result
        assert isinstance(answer, types.CallToolResult), answer
        return
    message, data = UNSERVED[name, read_only]
    assert isinstance(answer, types.ErrorData), answer
    assert (answer.code, answer.message, answer.data) == (types.INVALID_PARAMS, message, data)


@pytest.mark.parametrize(("transport", "read_only", "revision"), CASES, ids=IDS)
@pytest.mark.parametrize(
    ("kind", "name", "message"),
    [
        ("prompt", "triage", "Unknown prompt: 'triage'; this server serves no prompts, only tools: {tools}."),
        ("resource", "gitea://acme/widgets/issues/1",
         "Unknown resource: 'gitea://acme/widgets/issues/1'; this server serves no resources, only tools: {tools}."),
    ],
)  # fmt: skip
def test_an_unknown_prompt_or_resource_is_invalid_params(
    everything: dict[tuple[str, bool, str], Seen],
    transport: str,
    read_only: bool,
    revision: str,
    kind: str,
    name: str,
    message: str,
) -> None:
    answer = everything[transport, read_only, revision].answers[kind, name]
    assert isinstance(answer, types.ErrorData), answer
    assert (answer.code, answer.message) == (types.INVALID_PARAMS, message.format(tools=READ if read_only else ALL))


@pytest.mark.parametrize(("transport", "read_only", "revision"), CASES, ids=IDS)
def test_no_answer_logs_a_traceback(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool, revision: str
) -> None:
    """Every mistake above is the caller's: none is logged as the server's failure (at GITEA_LOG_LEVEL=INFO)."""
    log = everything[transport, read_only, revision].log
    assert "Traceback" not in log and "ERROR" not in log, log


@pytest.mark.parametrize(("transport", "read_only", "revision"), CASES, ids=IDS)
def test_bad_arguments_to_a_served_tool_stay_a_tool_error(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool, revision: str
) -> None:
    result = everything[transport, read_only, revision].bad_arguments
    assert result is not None and result.is_error
    assert result.content == [types.TextContent(type="text", text="state='x' is not valid; use one of: open, "
                                                                  "closed, all.")]  # fmt: skip


@pytest.mark.parametrize(("transport", "read_only", "revision"), CASES, ids=IDS)
def test_the_capabilities_advertise_only_what_is_served(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool, revision: str
) -> None:
    """Tools alone: no prompts, no resources (both lists are empty), no subscriptions, and a tool list that changes
    only with a restart (listChanged false)."""
    assert everything[transport, read_only, revision].capabilities == {"tools": {"listChanged": False}}


@pytest.mark.parametrize(("transport", "read_only"), [(t, ro) for t in ("stdio", "http") for ro in (False, True)])
def test_server_discover_lists_what_is_served(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool
) -> None:
    from gitea_mcp import __version__
    from gitea_mcp.server.app import INSTRUCTIONS, READ_ONLY_INSTRUCTIONS

    assert everything[transport, read_only, MODERN].discover == {
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "gitea-issues-mcp", "version": __version__}},
        "ttlMs": 3_600_000,
        "cacheScope": "public",
        "supportedVersions": [MODERN],
        "capabilities": {"tools": {"listChanged": False}},
        "instructions": READ_ONLY_INSTRUCTIONS if read_only else INSTRUCTIONS,
        "resultType": "complete",
    }


@pytest.mark.parametrize(("transport", "read_only", "revision"), CASES, ids=IDS)
def test_the_instructions_name_only_tools_served(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool, revision: str
) -> None:
    instructions = everything[transport, read_only, revision].instructions or ""
    assert "issue_list" in instructions and ("issue_create" in instructions) is not read_only


@pytest.mark.parametrize(("transport", "read_only"), [(t, ro) for t in ("stdio", "http") for ro in (False, True)])
def test_the_tool_list_may_be_kept_an_hour_where_the_revision_carries_it(
    everything: dict[tuple[str, bool, str], Seen], transport: str, read_only: bool
) -> None:
    ttl_ms, scope = everything[transport, read_only, MODERN].tools_hint
    assert ttl_ms is not None and ttl_ms >= 3_600_000 and scope == "public"
