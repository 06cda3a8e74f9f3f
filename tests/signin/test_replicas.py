"""Two users signed in at once through two replicas (issue 24), at a live Gitea: the sign-in keeps no state in a
replica, so a token any replica issued works on every one, and each user sees only what Gitea lets them see.

The replicas share GITEA_MCP_OAUTH_KEY and, when redis-server is on PATH, GITEA_MCP_REDIS_URL (where codes are
marked spent). They sit behind one public URL, as behind a load balancer: a small forwarding proxy
(tests/support/proxy.py, no faults) that the test points at A or at B for each user's browser leg. The browser
must see one origin: our consent form is refused when its Origin is not the public URL, so a replica reached by
its own port could not take it. Registration, /token and /mcp are sent straight to each replica's own port
(127.0.0.1:* is allowed by default): tokens name their audience, <public URL>/mcp, which every replica serves.

User 1 signs in through A and the code is exchanged at B; user 2 the other way round. Skipped unless
tests/signin/live.py's variables name a live Gitea and the browser user can run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest

from tests.signin import live
from tests.signin.plain_client import Grant, call_tool, exchange, refused, signed_in, tokens
from tests.signin.server import SigninServer, new_key
from tests.support.ports import unheard_port
from tests.support.proxy import Proxy, misbehaving_proxy
from tests.support.redis_server import REDIS_SERVER, redis_server
from tests.support.results import rows_of

pytestmark = pytest.mark.slow

FIGURES: dict[str, float] = {}  # seconds each step took, printed at the end (run with -s to see them)
SAID: set[str] = set()  # what a user was told on asking for the other's repository


@dataclass(frozen=True)
class User:
    account: live.Account
    repo: str
    title: str

    def own(self) -> dict[str, str]:
        return {"owner": self.account.login, "name": self.repo}


@dataclass
class Pair:
    replicas: dict[str, SigninServer]
    balancer: Proxy
    users: list[User]
    shared: bool  # the replicas share a redis-server

    @property
    def public(self) -> str:
        return self.balancer.url

    def point(self, name: str) -> None:
        """The balancer sends what comes next to replica `name`."""
        self.balancer.host, self.balancer.port = "127.0.0.1", self.replicas[name].port


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    forge = live.forge_for_the_browser()
    with ExitStack() as stack:
        users = []
        for number in (1, 2):
            account = forge.user(f"signin-replica{number}")
            stack.callback(forge.delete_user, account)
            title = f"Only user {number} can read this"
            users.append(User(account, forge.repo_with_issue(account, title), title))
        app = forge.app(["http://127.0.0.1/callback"])
        stack.callback(forge.delete_app, app)
        shared = {}
        if REDIS_SERVER is not None:
            shared["GITEA_MCP_REDIS_URL"] = stack.enter_context(redis_server(tmp_path_factory.mktemp("redis"))).url
        balancer = stack.enter_context(misbehaving_proxy("http://127.0.0.1:9"))
        key = new_key()
        owners = ",".join(user.account.login for user in users)
        replicas = {}
        for name in ("A", "B"):
            replica = SigninServer(
                forge.url, app.client_id, key=key, GITEA_MCP_PUBLIC_URL=balancer.url, GITEA_ALLOWED_OWNERS=owners,
                **shared,
            )  # fmt: skip
            stack.callback(replica.stop)
            replicas[name] = replica
        yield Pair(replicas, balancer, users, bool(shared))
    print("\nsign-in through two replicas, seconds:", {step: round(took, 2) for step, took in FIGURES.items()})
    print("asked for the other user's repository:", sorted(SAID))


@dataclass(frozen=True)
class Session:
    user: User
    via: str  # the replica the browser's leg went through
    at: str  # the replica the code was exchanged at
    grant: Grant
    tokens: dict[str, Any]


ROUTES = [(0, "A", "B"), (1, "B", "A")]  # user 1 through A, exchanged at B; user 2 the other way round


@pytest.fixture(scope="module")
def sessions(pair: Pair) -> list[Session]:
    made = []
    for index, via, at in ROUTES:
        user = pair.users[index]
        pair.point(via)
        redirect = f"http://127.0.0.1:{unheard_port()}/callback"
        began = time.monotonic()
        grant = signed_in(pair.replicas[via].url, pair.public, user.account.login, user.account.password, redirect)
        FIGURES[f"user {index + 1}: register + browser sign-in through {via}"] = time.monotonic() - began
        began = time.monotonic()
        issued = tokens(exchange(pair.replicas[at].url, grant))
        FIGURES[f"user {index + 1}: code exchanged at {at}"] = time.monotonic() - began
        made.append(Session(user, via, at, grant, issued))
    return made


@pytest.mark.parametrize(("index", "via", "at"), ROUTES)
def test_a_code_exchanged_at_one_replica_is_refused_at_the_other(
    pair: Pair, sessions: list[Session], index: int, via: str, at: str
) -> None:
    if not pair.shared:
        pytest.skip("redis-server is not on PATH: without a shared store each replica spends codes on its own")
    session = sessions[index]
    assert f"sign-in: {session.user.account.login} signed in" in pair.replicas[at].said(), "the exchange is at's"
    again = exchange(pair.replicas[via].url, session.grant)
    status, error, description = refused(again)
    # Said as status and error alone: a wrongly accepted replay would print fresh tokens.
    assert (status, error) == (400, "invalid_grant"), f"the replay at {via} answered {status} {error}"
    assert "already used" in description, description


def result_of(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 200, f"/mcp answered {answer.status_code}: {answer.text[:300]}"
    result: dict[str, Any] = answer.json()["result"]
    return result


@pytest.mark.parametrize("replica", ["A", "B"])
@pytest.mark.parametrize("index", [0, 1])
def test_each_token_works_on_either_replica_and_sees_only_what_gitea_lets_its_user_see(
    pair: Pair, sessions: list[Session], index: int, replica: str
) -> None:
    session, other = sessions[index], pair.users[1 - index]
    base, access = pair.replicas[replica].url, session.tokens["access_token"]
    began = time.monotonic()
    own = result_of(call_tool(base, access, "issue_list", session.user.own()))
    FIGURES[f"user {index + 1}: issue_list on {replica}"] = time.monotonic() - began
    assert own.get("isError") is not True, own
    assert [issue["title"] for issue in rows_of(own["structuredContent"])] == [session.user.title]
    theirs = result_of(call_tool(base, access, "issue_list", other.own()))
    assert theirs.get("isError") is True, f"user {index + 1} listed user {2 - index}'s private repository: {theirs}"
    said = " ".join(block.get("text", "") for block in theirs["content"])
    assert other.title not in said and other.repo in said, said
    SAID.add(said)
