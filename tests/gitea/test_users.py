"""gitea/users.py: whose each token is, remembered by the token's hash for a while in a bounded table
(tests/server/test_callers.py checks the callers built on it: one user with two tokens is one caller)."""

from __future__ import annotations

import threading

from gitea_mcp.gitea.users import Users

ALICE, BOB = "tok-alice-0123456789abcdef", "tok-bob-0123456789abcdef"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_token_is_known_until_its_time_is_up_and_not_a_moment_longer() -> None:
    clock = Clock()
    users = Users(ttl=60, clock=clock)
    users.learn(ALICE, 7)
    clock.now = 59.9
    assert users.of(ALICE) == 7
    clock.now = 60.0
    assert users.of(ALICE) is None and len(users) == 0, "an expired entry is dropped when found"


def test_learning_again_renews_the_time_and_the_place() -> None:
    clock = Clock()
    users = Users(kept=2, ttl=60, clock=clock)
    users.learn(ALICE, 7)
    users.learn(BOB, 8)
    clock.now = 50
    users.learn(ALICE, 7)  # asked again (a new request's GET /user): the newest now, for another 60 s
    users.learn("tok-carol", 9)
    assert (users.of(ALICE), users.of(BOB)) == (7, None), "the oldest learnt is dropped, not the oldest first seen"
    clock.now = 100
    assert users.of(ALICE) == 7


def test_no_token_and_no_user_are_never_kept() -> None:
    users = Users()
    for token, user in [(None, 7), ("", 7), (ALICE, 0), (ALICE, -1)]:
        users.learn(token, user)
    assert len(users) == 0
    assert users.of(None) is None and users.of("") is None and users.of(ALICE) is None


def test_the_table_holds_no_token() -> None:
    users = Users()
    users.learn(ALICE, 7)
    assert ALICE.encode() not in repr(vars(users)).encode() and ALICE not in repr(vars(users))


def test_tokens_learnt_at_once_from_many_threads_are_all_kept_within_the_bound() -> None:
    """The gate learns on the event loop, the tools in worker threads: the table stays whole and bounded."""
    users = Users(kept=100)
    start = threading.Barrier(8)

    def learn(worker: int) -> None:
        start.wait()
        for n in range(50):
            users.learn(f"tok-{worker}-{n}", worker * 1000 + n + 1)

    threads = [threading.Thread(target=learn, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(users) == 100
    assert sum(users.of(f"tok-{w}-{n}") == w * 1000 + n + 1 for w in range(8) for n in range(50)) == 100
