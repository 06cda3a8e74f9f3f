"""Per-user limits and the forge budget in the real server processes: 429 with Retry-After over HTTP, one allowance
for two replicas sharing a real redis-server, the tool's sentence on stdio, and the forge's own Retry-After pausing
every user's requests (issue 38, item 1)."""

from __future__ import annotations

from typing import Any

import pytest

from gitea_mcp.standin import ALICE_TOKEN, DEMO_TOKEN, Fault, StandIn
from tests.e2e.conftest import HttpServer, env_for, over_stdio, text
from tests.e2e.test_http import rpc

pytestmark = pytest.mark.slow

READ = {"owner": "acme", "name": "widgets", "number": 1}


def tool_call(base: str, token: str = DEMO_TOKEN) -> Any:
    return rpc(base, "tools/call", {"name": "issue_get", "arguments": READ}, token)


def test_over_http_a_user_over_the_limit_gets_429_with_retry_after(forge: StandIn) -> None:
    server = HttpServer({"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_MCP_CALLS_PER_MINUTE": "2"})
    try:
        answers = [tool_call(server.url) for _ in range(3)]
        assert [answer.status_code for answer in answers] == [200, 200, 429]
        over = answers[2]
        assert 1 <= int(over.headers["Retry-After"]) <= 30
        message = over.json()["error"]["message"]
        assert message.startswith("This user has made its 2 tool calls a minute (GITEA_MCP_CALLS_PER_MINUTE")
        assert message.endswith(f"try again in {over.headers['Retry-After']} s.")
        assert tool_call(server.url, ALICE_TOKEN).status_code == 200, "another user has an allowance of his own"
        listed = rpc(server.url, "tools/list")
        assert listed.status_code == 200, "only tool calls are counted: the client may still list and initialize"
    finally:
        server.stop()


def test_two_replicas_on_one_redis_share_one_users_allowance(forge: StandIn, redis_url: str) -> None:
    env = {
        "GITEA_URL": forge.url,
        "GITEA_ALLOWED_OWNERS": "acme",
        "GITEA_MCP_REDIS_URL": redis_url,
        "GITEA_MCP_CALLS_PER_MINUTE": "3",
    }
    replicas = [HttpServer(env), HttpServer(env)]
    try:
        statuses = [tool_call(replicas[n % 2].url).status_code for n in range(4)]
        assert statuses == [200, 200, 200, 429], "3 a minute for the user, whichever replica answers"
    finally:
        for replica in replicas:
            replica.stop()


def test_on_stdio_the_tool_answers_with_the_sentence() -> None:
    async def scenario(session: Any) -> None:
        first = await session.call_tool("issue_get", READ)
        assert not first.is_error
        second = await session.call_tool("issue_get", READ)
        assert second.is_error
        assert text(second).startswith("This user has made its 1 tool calls a minute (GITEA_MCP_CALLS_PER_MINUTE")
        assert text(second).endswith("try again in 60 s.")

    with StandIn() as forge:
        over_stdio(env_for(forge, GITEA_MCP_CALLS_PER_MINUTE="1"), scenario)


def test_the_forges_retry_after_pauses_every_users_requests(forge: StandIn) -> None:
    env = {"GITEA_URL": forge.url, "GITEA_ALLOWED_OWNERS": "acme", "GITEA_TIMEOUT": "5"}
    server = HttpServer(env)
    try:
        assert tool_call(server.url).status_code == 200  # the demo user's token checked, its user learnt
        # Every read of issue #1 is answered 429 (issue_get's reads go out at once, in no set order): the issue's
        # own read meets the 429 or, sent after another read met it, the pause; either way the call fails saying so.
        limited = Fault("status", status=429, retry_after=40, path_contains="/repos/acme/widgets/issues/1", times=20)
        forge.inject(limited)
        paused = tool_call(server.url).json()["result"]
        text = paused["content"][0]["text"]
        assert paused["isError"], text
        assert "Gitea asked to wait 40 s" in text or "a pause Gitea asked for" in text, text
        sent = len(forge.requests)
        refused = tool_call(server.url, ALICE_TOKEN).json()["result"]  # another user, a token not yet checked
        assert refused["isError"]
        said = refused["content"][0]["text"]
        assert "budget of requests to Gitea is spent for now" in said and "try again in" in said, said
        assert len(forge.requests) == sent, "nothing was sent to the forge while it asked for a pause"
    finally:
        server.stop()
