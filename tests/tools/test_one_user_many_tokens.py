"""Issue 35, finding 6: the duplicate guard keys on the forge user (its id), not the token. Two tokens of one user,
a refreshed sign-in (a new Gitea token for the same user) or two replicas used to let the same create through
twice: each token was a caller of its own, and neither call's duplicate check saw the other's issue yet."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest
import responses

from gitea_mcp.toolkit import in_flight
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.shared_flight import SharedFlights
from tests.support import TOKEN
from tests.support.fake_redis import FakeRedis
from tests.support.gitea_json import API, issue, user
from tests.toolkit.test_shared_flight import WHERE, fake, replicas, slow_post, until
from tests.tools.test_issue_create import ISSUES, gitea, now, posts, run

__all__ = ["fake", "gitea", "replicas"]  # the fixtures, imported to be used here

# Tokens of the user `demo` (id 5): one made in Gitea's settings, one from this server's sign-in refreshed.
SECOND = "tok-second-of-demo-0123456789"
REFRESHED = "gitea-oauth-refreshed-token-of-demo"
OTHER_USERS = "tok-of-another-user-98765"


def whose(request: Any) -> tuple[int, dict[str, str], str]:
    """`GET /user` as Gitea answers it: the token's own user."""
    token = request.headers["Authorization"].removeprefix("token ")
    found = user("zoe", 6) if token == OTHER_USERS else user("demo", 5)
    return 200, {}, json.dumps(found)


@pytest.fixture
def users(gitea: responses.RequestsMock) -> responses.RequestsMock:
    gitea.remove(responses.GET, f"{API}/user")  # the fixture's one answer for every token, made per token
    gitea.add_callback(responses.GET, f"{API}/user", callback=whose)
    return gitea


def with_token(deps: Deps, token: str) -> Deps:
    return replace(deps, client=deps.client.with_token(token, bearer=True))


def checked_by_the_gate(deps: Deps, *tokens: str) -> None:
    """Each token's first request over HTTP: the gate asks Gitea whose it is (server/bearers.py)."""
    from gitea_mcp.server.bearers import asking

    ask = asking(deps.client)
    for token in tokens:
        ask(token)


def both_sent(
    first: Callable[[], Any], second: Callable[[], Any], users: responses.RequestsMock, meet: Callable[[], bool]
) -> None:
    gitea = users
    gitea.get(ISSUES, json=[])
    slow = slow_post(gitea, issue(301, "New bug", body="b", author="demo", created=now()))
    with ThreadPoolExecutor(2) as pool:
        one = pool.submit(first)
        slow.writing()
        two = pool.submit(second)
        # The second either waits on the first (the guard held) or is writing too (it did not).
        until(lambda: meet() or slow.entered >= 2)
        slow.release.set()
        one.result(), two.result()


@pytest.mark.parametrize("token", [SECOND, REFRESHED])
def test_two_tokens_of_one_user_create_once(users: responses.RequestsMock, deps: Deps, token: str) -> None:
    checked_by_the_gate(deps, TOKEN, token)
    a, b = with_token(deps, TOKEN), with_token(deps, token)
    both_sent(lambda: run(a, body="b"), lambda: run(b, body="b"), users, lambda: in_flight.waiting() >= 1)
    assert len(posts(users)) == 1


@pytest.mark.usefixtures("replicas")
def test_two_tokens_of_one_user_on_two_replicas_create_once(
    users: responses.RequestsMock, deps: Deps, fake: FakeRedis
) -> None:
    guard = SharedFlights(fake, WHERE, lease=60)  # whose the tokens are is not known yet: each replica asks Gitea
    a = replace(with_token(deps, "tok-first-of-demo-on-replica-a"), flights=guard)
    b = replace(with_token(deps, "tok-second-of-demo-on-replica-b"), flights=replace(guard))
    both_sent(lambda: run(a, body="b"), lambda: run(b, body="b"), users, lambda: fake.refused_sets >= 1)
    assert len(posts(users)) == 1


def test_two_users_are_two_callers(users: responses.RequestsMock, deps: Deps) -> None:
    """No user waits on, or is answered with, another's write: each files its own."""
    checked_by_the_gate(deps, TOKEN, OTHER_USERS)
    a, b = with_token(deps, TOKEN), with_token(deps, OTHER_USERS)
    both_sent(lambda: run(a, body="b"), lambda: run(b, body="b"), users, lambda: in_flight.waiting() >= 1)
    assert len(posts(users)) == 2 and in_flight.waiting() == 0


@pytest.mark.parametrize("across", [False, True], ids=["one-process", "replicas"])
def test_the_users_id_is_looked_up_once(
    users: responses.RequestsMock, deps: Deps, fake: FakeRedis, across: bool
) -> None:
    """Whose the token is, Gitea is asked once in all: the write's own look-up of its user (before the write, in one
    round with its other reads), or, across replicas, the flight's, whose answer that look-up then reuses."""
    users.get(ISSUES, json=[])
    users.post(ISSUES, status=201, json=issue(301, "New bug", body="b", author="demo", created=now()))
    fresh = with_token(deps, f"tok-never-seen-before-{across}")
    run(replace(fresh, flights=SharedFlights(fake, WHERE, lease=60) if across else None), body="b")
    asked = [c for c in users.calls if (c.request.url or "").endswith("/api/v1/user")]
    assert len(asked) == 1 and fresh.client.user_id == 5
