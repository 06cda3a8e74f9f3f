"""Issue 35, finding 5: fair share keys on the forge user (its id), not the token. One user with two tokens used to
get two shares of the tool calls, and so every slot; whose a token is, is learnt from Gitea's answer to the gate's
check of it (server/bearers.py), once, and remembered (gitea/users.py)."""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any

import anyio
import responses
from mcp_types import CallToolResult

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.users import Users
from gitea_mcp.server.admission import Admission
from gitea_mcp.server.app import ToolServer
from gitea_mcp.server.bearers import Verdict, asking
from gitea_mcp.server.http import caller_key
from gitea_mcp.toolkit import envelope
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_get
from tests.support.gitea_json import API, ROOT, user

# Two tokens of alice (id 7), one of bob (id 8); a fourth Gitea will not say whose it is (no read:user).
ALICE_1, ALICE_2, BOB, UNSAID = "tok-alice-one-0001", "tok-alice-two-0002", "tok-bob-0003", "tok-no-read-user-04"
BUSY = (
    "gitea_mcp is busy with 2 calls of this user already (at most 2 run at once per user, all its tokens together), "
    "so this call was not started and nothing was sent; try again in a few seconds."
)


def whose(request: Any) -> tuple[int, dict[str, str], str]:
    token = request.headers["Authorization"].removeprefix("token ")
    if token == UNSAID:
        return 403, {}, json.dumps({"message": "token does not have at least one of required scope(s): [read:user]"})
    return 200, {}, json.dumps(user("bob", 8) if token == BOB else user("alice", 7))


def checked_by_the_gate(*tokens: str) -> GiteaClient:
    """Each token's first request, as the gate checks it (`Bearers`: GET /user); the client the tools then use."""
    client = GiteaClient(ROOT, None, timeout=0.3, retry=RetryPolicy(attempts=1))
    with responses.RequestsMock() as gitea:
        gitea.add_callback(responses.GET, f"{API}/user", callback=whose)
        ask = asking(client)
        assert [ask(token) for token in tokens] == [Verdict.GOOD] * len(tokens)
    return client


def test_two_tokens_of_one_user_share_one_share() -> None:
    client = checked_by_the_gate(ALICE_1, ALICE_2, BOB, UNSAID)
    release, started = threading.Event(), threading.Semaphore(0)

    def hold(deps: Deps, args: object) -> CallToolResult:
        started.release()
        release.wait(5)
        return envelope.error("done")

    tool = dataclasses.replace(issue_get.TOOL, run=hold)
    server = ToolServer(
        [tool.spec],
        [tool.listing()],
        lambda token: Deps(client=client.with_token(str(token), bearer=True), policy=Policy(frozenset({"acme"}))),
        version="test",
        admission=Admission(threads=8, per_caller=2),
        load=lambda _: tool,
    )
    arguments = {"owner": "acme", "name": "widgets", "number": 1}
    said: dict[str, str] = {}

    async def call(token: str) -> None:
        result = await server.call_tool("issue_get", arguments, token)  # type: ignore[arg-type]
        said[token] = result.content[0].text  # type: ignore[union-attr]

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            for token in (ALICE_1, ALICE_1):
                tasks.start_soon(call, token)
            for _ in range(2):
                await anyio.to_thread.run_sync(started.acquire)
            # alice's share is taken by her first token: her second waits its 0.3 s and is refused
            await call(ALICE_2)
            # bob, and a token whose user Gitea would not say (its own caller), start at once
            for token in (BOB, UNSAID):
                tasks.start_soon(call, token)
            for _ in range(2):
                await anyio.to_thread.run_sync(started.acquire)
            release.set()

    anyio.run(main)
    assert said[ALICE_2] == BUSY
    assert said[BOB] == said[UNSAID] == said[ALICE_1] == "done"


def test_the_gate_counts_one_users_requests_together() -> None:
    """The request share at the HTTP gate (three quarters of the request slots) is per user too."""
    checked_by_the_gate(ALICE_1, ALICE_2, BOB)
    assert caller_key(ALICE_1) == caller_key(ALICE_2) == "user:7"
    assert caller_key(BOB) == "user:8" and caller_key(UNSAID) not in ("user:7", "user:8")


def test_a_users_id_is_kept_bounded_and_for_its_time() -> None:
    now = [0.0]
    users = Users(kept=2, ttl=60, clock=lambda: now[0])
    users.learn("a", 1)
    users.learn("b", 2)
    users.learn("c", 0)  # no user's id: never kept, lest two users meet under it
    assert (users.of("a"), users.of("b"), users.of("c")) == (1, 2, None)
    users.learn("d", 3)
    assert users.of("a") is None and len(users) == 2, "the oldest dropped first"
    now[0] = 61
    assert users.of("b") is None and users.of("d") is None
