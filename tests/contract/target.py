"""The server under contract: a live Gitea/Forgejo given by URL, or the stand-in; its version; raw HTTP to it.

Probes state what the server does as a property of its version. `ServerVersion` is read from `/version`
(Forgejo answers `11.0.3+gitea-1.22.0`), so one suite covers every release with per-version expectations.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any, Literal

import requests

from gitea_mcp.standin import StandIn

Flavor = Literal["gitea", "forgejo"]
Indexer = Literal["bleve", "db"]
_NUMBER = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class ServerVersion:
    flavor: Flavor
    number: tuple[int, int, int]
    raw: str

    @classmethod
    def parse(cls, raw: str) -> ServerVersion:
        match = _NUMBER.match(raw)
        if match is None:
            raise ValueError(f"unreadable version {raw!r}")
        number = (int(match[1]), int(match[2]), int(match[3]))
        return cls("forgejo" if "+gitea-" in raw or number[0] >= 7 else "gitea", number, raw)

    def gitea(self, low: tuple[int, ...] = (0,), high: tuple[int, ...] = (999,)) -> bool:
        """A Gitea release in [low, high] (inclusive; shorter tuples compare as prefixes)."""
        return self.flavor == "gitea" and _between(self.number, low, high)

    def forgejo(self, low: tuple[int, ...] = (0,), high: tuple[int, ...] = (999,)) -> bool:
        return self.flavor == "forgejo" and _between(self.number, low, high)

    def __str__(self) -> str:
        return f"{'Gitea' if self.flavor == 'gitea' else 'Forgejo'} {'.'.join(map(str, self.number))}"


def _between(number: tuple[int, int, int], low: tuple[int, ...], high: tuple[int, ...]) -> bool:
    return number[: len(low)] >= low and number[: len(high)] <= high


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]
    text: str

    @property
    def total(self) -> int | None:
        raw = self.headers.get("X-Total-Count")
        return int(raw) if raw is not None else None

    @property
    def message(self) -> str:
        return str(self.body.get("message", "")) if isinstance(self.body, dict) else ""


class Http:
    """Plain requests against `<url>/api/v1`, never following redirects: probes look at what the server said."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.session = requests.Session()
        self.session.trust_env = False  # no netrc, no proxies: exactly the headers the probe sets

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        basic: tuple[str, str] | None = None,
    ) -> Answer:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"token {token}"
        if basic:
            headers["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
        response = self.session.request(
            method, f"{self.url}/api/v1{path}", params=params, json=json, headers=headers,
            allow_redirects=False, timeout=60,
        )  # fmt: skip
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = None
        return Answer(response.status_code, body, dict(response.headers), response.text)

    def get(self, path: str, token: str | None = None, **params: Any) -> Answer:
        return self.call("GET", path, token, params=params or None)

    def ok(self, method: str, path: str, token: str | None, **kwargs: Any) -> Any:
        """A call that must succeed (seeding); fails loudly with what the server said."""
        answer = self.call(method, path, token, **kwargs)
        if answer.status >= 300:
            raise AssertionError(f"{method} {path} -> {answer.status}: {answer.text[:300]}")
        return answer.body


@dataclass(frozen=True)
class Target:
    """Where the contract runs: the URL, an admin token, the version, and what the API cannot tell us."""

    url: str
    admin_token: str
    version: ServerVersion
    indexer: Indexer  # Gitea's [indexer] ISSUE_INDEXER_TYPE; Forgejo's bleve tokenises queries itself
    live: bool
    name: str  # for reports: "stand-in gitea-1.25" or "live http://127.0.0.1:3125"
    utc_offset_minutes: int = 0  # the zone the server renders times in
    standin: StandIn | None = None  # set when the target is the stand-in (its store seeds the lab)
