"""The contract suite's fixtures: a target server (the stand-in in every profile, or a live one) and its lab.

Live: set GITEA_LIVE_URL and GITEA_LIVE_TOKEN (an administrator's token with every scope). A live server's
settings that its API does not reveal are told by GITEA_LIVE_INDEXER (bleve, the default, or db) and
GITEA_LIVE_UTC_OFFSET (minutes east of UTC that it renders times in; default 0).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import StandIn
from gitea_mcp.standin.profile import PROFILES
from gitea_mcp.toolkit.base import Deps
from tests.contract.lab import Lab, LiveSeeder, StandInSeeder, new_run, seed
from tests.contract.target import Http, ServerVersion, Target
from tests.support.waiting import wait_until

LIVE_URL = os.environ.get("GITEA_LIVE_URL", "")
LIVE_TOKEN = os.environ.get("GITEA_LIVE_TOKEN", "")
TARGETS = ["live"] if LIVE_URL else list(PROFILES)
# Web pages exist only on a live server: without one, that module is not collected (not skipped).
collect_ignore = [] if LIVE_URL else ["test_web_pages.py"]


@pytest.fixture(scope="session", params=TARGETS)
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    with target_named(request.param) as found:
        yield found


@contextmanager
def target_named(name: str) -> Iterator[Target]:
    """The live server (`live`), or a stand-in answering as the profile of that name; the acceptance suite's too."""
    if name == "live":
        version = ServerVersion.parse(Http(LIVE_URL).ok("GET", "/version", LIVE_TOKEN)["version"])
        indexer = os.environ.get("GITEA_LIVE_INDEXER", "bleve")
        assert indexer in ("bleve", "db"), f"GITEA_LIVE_INDEXER={indexer!r}: use bleve or db"
        offset = int(os.environ.get("GITEA_LIVE_UTC_OFFSET", "0"))
        yield Target(LIVE_URL, LIVE_TOKEN, version, indexer, True, f"live {LIVE_URL}", offset)  # type: ignore[arg-type]
        return
    profile = PROFILES[name]
    with StandIn(profile=profile, seed=False) as standin:
        admin = StandInSeeder(standin).token_for_admin()
        yield Target(
            standin.url, admin, ServerVersion.parse(profile.version), profile.indexer, False,
            f"stand-in {name}", profile.utc_offset_minutes, standin,
        )  # fmt: skip


@pytest.fixture(scope="session")
def lab(target: Target) -> Iterator[Lab]:
    if target.standin is not None:
        yield seed(StandInSeeder(target.standin), new_run())
        return
    seeder = LiveSeeder(Http(target.url), target.admin_token)
    try:
        seeded = seed(seeder, new_run())
        wait_for_the_index(Http(target.url), seeded)
        yield seeded
    finally:
        seeder.cleanup()


def wait_for_the_index(http: Http, lab: Lab, seconds: float = 60.0) -> None:
    """The issue indexer works asynchronously: wait until it has the lab's issues, so each keyword probe asks once
    (a probe that expects nothing must not wait for something that never comes)."""
    path = lab.path("issues")

    def caught_up() -> bool:
        answer = http.get(path, lab.tokens["writer"], q="Locked discussion", state="all")
        # The cross-repository search finds labels through the index too (an organisation's label is seen so).
        labelled = http.get("/repos/issues/search", lab.tokens["writer"], owner=lab.org, labels="triage", state="all")
        return (
            answer.status == 200
            and any(item["number"] == lab.issues["locked"] for item in answer.body)
            and labelled.status == 200
            and any(item["number"] == lab.issues["triaged"] for item in labelled.body)
        )

    wait_until(caught_up, seconds, "the issue index catching up", poll=0.3)


@pytest.fixture(scope="session")
def http(target: Target) -> Http:
    return Http(target.url)


@pytest.fixture(scope="session")
def max_items(http: Http, target: Target) -> int:
    return int(http.ok("GET", "/settings/api", target.admin_token)["max_response_items"])


def deps_for(target: Target, lab: Lab, role: str = "writer") -> Deps:
    """The tools' dependencies as a server configured with this role's token would build them."""
    client = GiteaClient(target.url, lab.tokens[role], timeout=30, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({lab.org.lower()})), catalog=Catalog())
