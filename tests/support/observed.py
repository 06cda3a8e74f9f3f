"""What the server counted (gitea_mcp/observe.py), kept in a list: a sink for tests that need no Prometheus."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import gitea_mcp.observe as observe


class Recorder:
    """Every count said, as (what, *its words), in order."""

    def __init__(self) -> None:
        self.said: list[tuple[object, ...]] = []

    def tool_call(self, tool: str, outcome: str, seconds: float) -> None:
        self.said.append(("tool_call", tool, outcome))

    def detailed(self, tool: str, user: str | None, repository: str | None) -> None:
        self.said.append(("detailed", tool, user, repository))

    def forge_request(self, method: str, status: str, seconds: float) -> None:
        self.said.append(("forge_request", method, status))

    def limit_refused(self, kind: str) -> None:
        self.said.append(("limit_refused", kind))

    def signin(self, outcome: str) -> None:
        self.said.append(("signin", outcome))

    def refresh(self, outcome: str) -> None:
        self.said.append(("refresh", outcome))

    def write_guard(self, scope: str, result: str) -> None:
        self.said.append(("write_guard", scope, result))

    def of(self, what: str) -> list[tuple[object, ...]]:
        return [said[1:] for said in self.said if said[0] == what]


@contextmanager
def recording() -> Iterator[Recorder]:
    recorder = Recorder()
    observe.install(recorder)
    try:
        yield recorder
    finally:
        observe.install(None)
