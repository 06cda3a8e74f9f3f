"""Tool calls per minute per forge user (GITEA_MCP_CALLS_PER_MINUTE), and the limits' store.

A user is the forge user a token belongs to, once known (gitea/users.py: the HTTP gate learns it on the token's
first request, the tools from GET /user), else the token's hash: two tokens of one user, or a sign-in refreshed,
share one allowance. With GITEA_MCP_REDIS_URL set the allowance is kept in that Redis, one for every replica and
worker; without, in this process (gitea/rates.py).

Over a limit a call is answered at once, having sent nothing: over HTTP the gate answers the tools/call POST with
429 and Retry-After (its body the JSON-RPC error an MCP client shows); where the gate could not tell the request
was a tool call, and on stdio, the tool answers with the same sentence as an isError result.
"""

from __future__ import annotations

import math

import anyio.to_thread

from gitea_mcp import observe
from gitea_mcp.gitea.rates import Budget, Local, Rate, Shared, Store, key
from gitea_mcp.settings import ConfigError, Settings

# With the calls a minute unset: over HTTP, GitLab's 60 a user; on stdio the one user is the whole deployment, so
# its allowance is the forge budget's (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE's default).
HTTP_CALLS_PER_MINUTE = 60
STDIO_CALLS_PER_MINUTE = 600


def calls_per_minute(settings: Settings) -> int:
    """The calls a minute each user may make (0: no limit)."""
    if settings.calls_per_minute is not None:
        return settings.calls_per_minute
    return HTTP_CALLS_PER_MINUTE if settings.transport == "http" else STDIO_CALLS_PER_MINUTE


def store(settings: Settings) -> Store:
    """Where the allowances are kept: the Redis GITEA_MCP_REDIS_URL names (connected as the write guard connects),
    or this process."""
    if settings.redis_url is None:
        return Local()
    from gitea_mcp.toolkit import shared_flight  # for GITEA_MCP_REDIS_URL alone: redis-py is imported there

    url = settings.redis_url.get_secret_value()
    try:
        return Shared(shared_flight.store(url), url)
    except shared_flight.Unusable as exc:
        raise ConfigError(str(exc)) from None


def budget(settings: Settings, kept: Store) -> Budget | None:
    """The deployment's requests a minute toward the forge (None: no budget). Kept in one process, it is divided
    among the worker processes, so that together they keep to it."""
    per_minute = settings.forge_requests_per_minute
    if per_minute == 0:
        return None
    if isinstance(kept, Local) and settings.workers > 1:
        per_minute = max(1, per_minute // settings.workers)
    return Budget(kept, per_minute, settings.url)


class Quota:
    """The calls a minute each user may make, taken one per tool call."""

    def __init__(self, kept: Store, per_minute: int) -> None:
        self.store = kept
        self.rate = Rate(per_minute)

    async def refusal(self, caller: str) -> tuple[str, int] | None:
        """None, with one call taken from `caller`'s allowance; or the sentence refusing the call and the whole
        seconds after which it would pass. In process at once; on Redis in a worker thread (a round trip)."""
        whose = key("calls", caller)
        if isinstance(self.store, Local):
            taken = self.store.take(whose, self.rate, 0.0)
        else:
            taken = await anyio.to_thread.run_sync(self.store.take, whose, self.rate, 0.0)
        if taken.granted:
            return None
        seconds = max(1, math.ceil(taken.wait))
        observe.limit_refused("calls")  # counted; a call already running is marked refused for the audit log
        return refused(self.rate.per_minute, seconds), seconds


def refused(per_minute: int, seconds: int) -> str:
    return (
        f"This user has made its {per_minute} tool calls a minute (GITEA_MCP_CALLS_PER_MINUTE, all its tokens and "
        f"this server's replicas together), so this call was not started and nothing was sent; try again in "
        f"{seconds} s."
    )
