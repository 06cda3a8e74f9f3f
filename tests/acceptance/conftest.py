"""The acceptance suite's fixtures: the server (the stand-in, or a live one by URL as for the contract suite), the
world seeded on it, the administrator's oracle, and one agent per role.

Live: GITEA_LIVE_URL and GITEA_LIVE_TOKEN (an administrator's token, scope all), as in tests/contract/conftest.py;
the world is deleted afterwards. Without them, the stand-in answering as Gitea 1.25.4 (ACCEPTANCE_PROFILE names
another of `gitea_mcp.standin.profile.PROFILES`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.acceptance.agent import Agent
from tests.acceptance.oracle import Oracle
from tests.acceptance.world import World, seed_world
from tests.contract.conftest import LIVE_URL, target_named
from tests.contract.lab import LiveSeeder, StandInSeeder, new_run
from tests.contract.target import Http, Target
from tests.support.waiting import wait_until

TARGET = "live" if LIVE_URL else os.environ.get("ACCEPTANCE_PROFILE", "gitea-1.25")


@pytest.fixture(scope="session")
def target() -> Iterator[Target]:
    with target_named(TARGET) as found:
        yield found


@pytest.fixture(scope="session")
def world(target: Target) -> Iterator[World]:
    http = Http(target.url)
    if target.standin is not None:
        yield seed_world(StandInSeeder(target.standin), http, new_run(), {})
        return
    seeder = LiveSeeder(http, target.admin_token)
    try:
        seeded = seed_world(seeder, http, new_run(), seeder.tokens)
        wait_for_the_index(http, target, seeded)
        yield seeded
    finally:
        seeder.cleanup()


def wait_for_the_index(http: Http, target: Target, world: World, seconds: float = 90.0) -> None:
    """The issue indexer works asynchronously: wait until the last seeded thread is found by keyword."""
    last = world.issues["thread130"]

    def found() -> bool:
        answer = http.get(world.path("issues"), target.admin_token, q="Discussion thread", state="all", limit=50)
        return answer.status == 200 and any(item["number"] == last for item in answer.body)

    wait_until(found, seconds, "the issue index catching up", poll=0.3)


@pytest.fixture(scope="session")
def oracle(target: Target, world: World) -> Oracle:
    return Oracle(target, world)


@pytest.fixture
def writer(target: Target, world: World) -> Agent:
    return Agent(target, world, "writer")


@pytest.fixture
def reader(target: Target, world: World) -> Agent:
    return Agent(target, world, "reader")


@pytest.fixture
def outsider(target: Target, world: World) -> Agent:
    return Agent(target, world, "outsider")
