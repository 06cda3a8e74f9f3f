"""Which bearer tokens Gitea accepts: asked once (GET /api/v1/user) and remembered briefly, by hash.

Over HTTP a wrong token must be refused at the first request (`initialize` included), where the client can show
it, not at the first tool call. Asking Gitea on every request would double its load, so each answer is kept for
TTL seconds, under the token's SHA-256 (never the token); callers sending the same new token at once share one
question. A token Gitea could not be asked about (no answer, a 5xx) is let through unjudged and not remembered:
the tools then say what is wrong with Gitea.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio.to_thread

from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import Forbidden, GiteaError, Unauthorized

TTL = 60.0  # seconds an answer is kept: a revoked token is refused by Gitea at its next tool call anyway
KEPT = 1_024  # answers kept at most, the oldest dropped first


class Verdict(enum.Enum):
    GOOD = "good"
    REFUSED = "refused"
    UNKNOWN = "unknown"  # Gitea could not be asked


def asking(client: GiteaClient) -> Callable[[str], Verdict]:
    """Gitea's verdict on a token: its user (or a 403, a token without read:user, still one Gitea knows)."""

    def ask(token: str) -> Verdict:
        caller = client.with_token(token)
        try:
            answer = caller.get(["user"], retry=False)
        except Unauthorized:
            return Verdict.REFUSED
        except Forbidden:
            return Verdict.GOOD
        except GiteaError:
            return Verdict.UNKNOWN
        caller.learn_user(_user_id(answer.data))  # whose it is: one share per user (gitea/users.py)
        return Verdict.GOOD

    return ask


def _user_id(data: object) -> int:
    user = data.get("id") if isinstance(data, dict) else None
    return user if isinstance(user, int) and not isinstance(user, bool) else 0


@dataclass
class Bearers:
    ask: Callable[[str], Verdict]  # blocking: run in a worker thread
    clock: Callable[[], float] = time.monotonic
    _known: dict[str, tuple[Verdict, float]] = field(default_factory=dict)
    _asking: dict[str, asyncio.Future[Verdict]] = field(default_factory=dict)

    async def verdict(self, token: str) -> Verdict:
        key = hashlib.sha256(token.encode()).hexdigest()
        known = self._known.get(key)
        if known is not None and known[1] > self.clock():
            return known[0]
        pending = self._asking.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._find_out(token, key))
            self._asking[key] = pending
        # Shielded: one caller leaving (its client hung up) must not cancel the question the others wait on.
        return await asyncio.shield(pending)

    async def _find_out(self, token: str, key: str) -> Verdict:
        try:
            verdict = await anyio.to_thread.run_sync(self.ask, token)
        finally:
            del self._asking[key]
        if verdict is not Verdict.UNKNOWN:
            self._known.pop(key, None)
            self._known[key] = (verdict, self.clock() + TTL)
            while len(self._known) > KEPT:
                del self._known[next(iter(self._known))]
        return verdict
