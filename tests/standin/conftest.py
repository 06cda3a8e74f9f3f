"""Fixtures for the stand-in's own tests: one shared server for reads, a fresh one for writes and faults."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from gitea_mcp.standin import DEMO_ALL_TOKEN, StandIn


class Client:
    """A keep-alive session against one stand-in, with an every-scope token by default; `token=None` is anonymous."""

    def __init__(self, standin: StandIn) -> None:
        self.standin = standin
        self.session = requests.Session()

    def call(self, method: str, path: str, token: str | None = DEMO_ALL_TOKEN, **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"token {token}"} if token else {}
        return self.session.request(
            method, f"{self.standin.url}/api/v1{path}", headers=headers, allow_redirects=False, timeout=10, **kwargs
        )

    def get(self, path: str, token: str | None = DEMO_ALL_TOKEN, **params: Any) -> requests.Response:
        return self.call("GET", path, token, params=params)

    def json(self, path: str, token: str | None = DEMO_ALL_TOKEN, **params: Any) -> Any:
        response = self.get(path, token, **params)
        assert response.status_code == 200, response.text
        return response.json()

    def total(self, path: str, token: str | None = DEMO_ALL_TOKEN, **params: Any) -> int:
        response = self.get(path, token, **params)
        assert response.status_code == 200, response.text
        return int(response.headers["X-Total-Count"])


@pytest.fixture(scope="session")
def shared() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


@pytest.fixture
def reader(shared: StandIn) -> Iterator[Client]:
    """The shared stand-in, for tests that only read."""
    yield Client(shared)
    shared.clear_faults()


@pytest.fixture
def fresh() -> Iterator[Client]:
    """A stand-in of its own, for tests that write, inject faults or look at the recorded requests."""
    with StandIn() as standin:
        yield Client(standin)
