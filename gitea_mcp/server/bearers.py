"""Which bearer tokens Gitea accepts: asked once (GET /api/v1/user) and remembered briefly, by hash.

Over HTTP a wrong token must be refused at the first request (`initialize` included), where the client can show
it, not at the first tool call. Asking Gitea on every request would double its load, so each answer is kept for
TTL seconds, under the token's SHA-256 (never the token); callers sending the same new token at once share one
question. A token Gitea could not be asked about (no answer, a 5xx) is let through unjudged and not remembered:
the tools then say what is wrong with Gitea.

Tokens Gitea refused are kept apart from the ones it accepted, so a flood of made-up tokens pushes out only other
made-up tokens, never a user's. And a client sending a new made-up token with every request would still cost Gitea
one look-up each (329 a second, issue 35): so each client address may have `per_address` tokens looked up a minute;
past that its new tokens are answered LIMITED (429) without asking Gitea, while tokens already judged still pass.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio.to_thread

from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import Forbidden, GiteaError, Unauthorized
from gitea_mcp.server.addresses import Allowance

TTL = 60.0  # seconds an answer is kept: a revoked token is refused by Gitea at its next tool call anyway
KEPT = 1_024  # tokens Gitea accepted kept at most, the oldest dropped first
KEPT_REFUSED = 4_096  # tokens Gitea refused, kept apart (a flood of them never pushes out a user's)
LOOKUPS_PER_ADDRESS = 60  # new tokens looked up per client address and minute (GITEA_MCP_LOOKUPS_PER_ADDRESS)


class Verdict(enum.Enum):
    GOOD = "good"
    REFUSED = "refused"
    UNKNOWN = "unknown"  # Gitea could not be asked
    LIMITED = "limited"  # not asked: the client's address has had its look-ups for now


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
        # Whose it is: one share per user (gitea/users.py); the login for the audit log.
        caller.learn_user(_user_id(answer.data), _login(answer.data))
        return Verdict.GOOD

    return ask


def _login(data: object) -> str | None:
    login = data.get("login") if isinstance(data, dict) else None
    return login if isinstance(login, str) else None


def _user_id(data: object) -> int:
    user = data.get("id") if isinstance(data, dict) else None
    return user if isinstance(user, int) and not isinstance(user, bool) else 0


@dataclass
class Bearers:
    ask: Callable[[str], Verdict]  # blocking: run in a worker thread
    clock: Callable[[], float] = time.monotonic
    per_address: int = LOOKUPS_PER_ADDRESS
    _known: dict[Verdict, OrderedDict[str, float]] = field(default_factory=dict)  # verdict: {key: expiry}
    _asking: dict[str, asyncio.Future[Verdict]] = field(default_factory=dict)
    allowance: Allowance = field(init=False)  # look-ups left per client address

    def __post_init__(self) -> None:
        self.allowance = Allowance(self.per_address, self.clock)

    async def verdict(self, token: str, address: str = "") -> Verdict:
        key = hashlib.sha256(token.encode()).hexdigest()
        for verdict, kept in self._known.items():
            expiry = kept.get(key)
            if expiry is not None and expiry > self.clock():
                return verdict
        pending = self._asking.get(key)
        if pending is None:
            if not self.allowance.take(address):
                return Verdict.LIMITED
            pending = asyncio.ensure_future(self._find_out(token, key))
            self._asking[key] = pending
        # Shielded: one caller leaving (its client hung up) must not cancel the question the others wait on.
        return await asyncio.shield(pending)

    async def _find_out(self, token: str, key: str) -> Verdict:
        try:
            verdict = await anyio.to_thread.run_sync(self.ask, token)
        finally:
            del self._asking[key]
        if verdict in (Verdict.GOOD, Verdict.REFUSED):
            kept = self._known.setdefault(verdict, OrderedDict())
            kept.pop(key, None)
            kept[key] = self.clock() + TTL
            while len(kept) > (KEPT if verdict is Verdict.GOOD else KEPT_REFUSED):
                kept.popitem(last=False)
        return verdict
