"""Tool calls a minute per forge user (server/quota.py): the tool's isError sentence, the HTTP gate's 429 with
Retry-After for a tools/call, one count per call, two tokens of one user sharing one allowance, and the settings
behind it (the real processes: tests/e2e/test_limits.py; the limiter itself: tests/gitea/test_rates.py)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import anyio
import pytest
from mcp_types import CallToolResult
from pydantic import SecretStr
from starlette.testclient import TestClient

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.rates import Local, Shared
from gitea_mcp.server import http
from gitea_mcp.server.app import ToolServer, build_server
from gitea_mcp.server.quota import Quota, budget, calls_per_minute, refused, store
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import envelope
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_get
from tests.server.test_callers import ALICE_1, ALICE_2, BOB, checked_by_the_gate

ARGUMENTS = {"owner": "acme", "name": "widgets", "number": 1}
# What an agent reads when its user is over the limit (the golden sentence: changing it changes what agents read).
OVER = (
    "This user has made its 2 tool calls a minute (GITEA_MCP_CALLS_PER_MINUTE, all its tokens and this server's "
    "replicas together), so this call was not started and nothing was sent; try again in 30 s."
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def limited_server(per_minute: int, clock: Clock) -> ToolServer:
    client = checked_by_the_gate(ALICE_1, ALICE_2, BOB)
    tool = dataclasses.replace(issue_get.TOOL, run=lambda deps, args: envelope.error("ran"))
    return ToolServer(
        [tool.spec],
        [tool.listing()],
        lambda token: Deps(client=client.with_token(str(token), bearer=True), policy=Policy(frozenset({"acme"}))),
        version="test",
        load=lambda _: tool,
        per_user=Quota(Local(clock), per_minute),
    )


def said(server: ToolServer, token: str) -> str:
    result = anyio.run(server.call_tool, "issue_get", ARGUMENTS, token)  # type: ignore[arg-type]
    assert isinstance(result, CallToolResult) and result.is_error
    return str(result.content[0].text)  # type: ignore[union-attr]


def test_over_the_limit_the_tool_answers_at_once_with_when_to_retry() -> None:
    clock = Clock()
    server = limited_server(2, clock)
    assert [said(server, ALICE_1) for _ in range(2)] == ["ran", "ran"]
    assert said(server, ALICE_1) == OVER
    clock.now += 29.5
    assert said(server, ALICE_1) == OVER.replace("30 s", "1 s"), "the seconds left, rounded up"
    clock.now += 0.5
    assert said(server, ALICE_1) == "ran", "one interval (30 s) later one more call passes"


def test_two_tokens_of_one_user_share_one_allowance_and_another_user_has_his_own() -> None:
    server = limited_server(2, Clock())
    assert [said(server, token) for token in (ALICE_1, ALICE_2)] == ["ran", "ran"]
    assert said(server, ALICE_2) == OVER and said(server, ALICE_1) == OVER
    assert said(server, BOB) == "ran"


def test_the_sentence_says_the_setting_and_the_seconds() -> None:
    assert refused(60, 7).endswith("try again in 7 s.") and "GITEA_MCP_CALLS_PER_MINUTE" in refused(60, 7)


# -- the HTTP gate ---------------------------------------------------------------------------------------------

SETTINGS = Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), transport="http")
LOCAL = "http://127.0.0.1:8000"
AUTH = {"Authorization": "Bearer good-token", "Accept": "application/json, text/event-stream"}


async def _state(scope: Any, receive: Any, send: Any) -> None:
    """The app behind the gate: says whether the gate counted the request."""
    from starlette.responses import JSONResponse

    await JSONResponse({"counted": scope.get("state", {}).get("gitea_mcp_counted", False)})(scope, receive, send)


def rpc(method: str, id_: int = 7) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": {"name": "issue_get", "arguments": ARGUMENTS}}


def gate(per_minute: int, clock: Clock) -> TestClient:
    quota = Quota(Local(clock), per_minute)
    return TestClient(http.RequireToken(_state, SETTINGS, quota=quota), base_url=LOCAL)


def test_the_gate_answers_a_tools_call_over_the_limit_429_with_retry_after_and_the_json_rpc_error() -> None:
    client = gate(1, Clock())
    first = client.post("/mcp", json=rpc("tools/call"), headers=AUTH)
    assert first.status_code == 200 and first.json() == {"counted": True}
    over = client.post("/mcp", json=rpc("tools/call", 9), headers=AUTH)
    assert over.status_code == 429 and over.headers["Retry-After"] == "60"
    assert over.headers["Content-Type"] == "application/json"
    assert over.json() == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": http.OVER_LIMIT, "message": refused(1, 60)},
    }


@pytest.mark.parametrize(
    "body",
    [
        json.dumps(rpc("tools/list")).encode(),  # not a tool call: never counted, never refused
        json.dumps(rpc("initialize")).encode(),
        json.dumps([rpc("tools/call")]).encode(),  # a batch: the tool counts it
        b'{"jsonrpc": "2.0", "method": "tools/call", "params": ' + b'"' + b"x" * http.PEEK_BYTES + b'"}',  # large
        b"not json at all",
    ],
)
def test_what_the_gate_does_not_count_passes_it_unmarked(body: bytes) -> None:
    client = gate(1, Clock())
    client.post("/mcp", json=rpc("tools/call"), headers=AUTH)  # the allowance is spent
    answer = client.post("/mcp", content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert answer.status_code == 200 and answer.json() == {"counted": False}


def test_over_http_a_call_is_counted_once_gate_and_tool_together() -> None:
    """Two calls a minute: both pass (the gate counted each, the tool did not count it again), the third is 429."""
    settings = SETTINGS.model_copy(update={"url": "http://127.0.0.1:9", "calls_per_minute": 2})
    with TestClient(http.app(build_server(settings), settings), base_url=LOCAL) as client:
        answers = [client.post("/mcp", json=rpc("tools/call", n), headers=AUTH) for n in range(3)]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert answers[0].json()["result"]["isError"] is True, "the tool ran (Gitea is unreachable here)"
    assert answers[2].json()["error"]["message"].startswith("This user has made its 2 tool calls a minute")


# -- settings ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("update", "per_minute"),
    [
        ({}, 600),  # stdio: the one user is the whole deployment
        ({"transport": "http"}, 60),  # GitLab's per-user default
        ({"transport": "http", "calls_per_minute": 5}, 5),
        ({"calls_per_minute": 0}, 0),  # no limit
    ],
)
def test_calls_per_minute_default_by_transport(update: dict[str, Any], per_minute: int) -> None:
    settings = Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), **update)
    assert calls_per_minute(settings) == per_minute
    server = build_server(settings)
    assert isinstance(server, ToolServer)
    assert (server.quota.rate.per_minute if server.quota else 0) == per_minute


@pytest.mark.parametrize(
    ("update", "per_minute"),
    [
        ({}, 600),
        ({"forge_requests_per_minute": 120}, 120),
        ({"forge_requests_per_minute": 0}, None),
        # Kept in process, each worker keeps its part: together they keep to the budget.
        ({"transport": "http", "workers": 4, "read_only": True}, 150),
    ],
)
def test_the_forge_budget_from_the_settings(update: dict[str, Any], per_minute: int | None) -> None:
    settings = Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), **update)
    made = budget(settings, store(settings))
    assert (made.rate.per_minute if made else None) == per_minute


@pytest.mark.slow
def test_with_redis_every_limit_is_kept_there(redis_url: str) -> None:
    settings = Settings(
        url="https://gitea.test",
        allowed_owners=frozenset({"acme"}),
        redis_url=SecretStr(redis_url),
        transport="http",
        workers=4,
    )
    kept = store(settings)
    assert isinstance(kept, Shared) and "replica-guard-pw" not in kept.where
    made = budget(settings, kept)
    whole = "in Redis the budget is whole: every worker and replica shares it"
    assert made is not None and made.rate.per_minute == 600, whole
