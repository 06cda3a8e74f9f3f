"""Who is asking, by network address: the key of the per-address limits at the HTTP edge (issue 35).

The address is the one uvicorn puts in the request's scope: the peer's, or the client an X-Forwarded-For names when
the peer is a trusted proxy (GITEA_MCP_TRUSTED_PROXIES). An IPv6 address counts by its /64, the smallest network
one subscriber is handed, so a client cannot take a fresh share with each of its addresses.

`Allowance` spends and refills a number of actions per minute for each address (a token bucket); `Pool` counts
requests in flight on the routes a client reaches before it has a token, in all and per address.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Addresses remembered at most: the oldest-used is forgotten first (and then starts again with its full share).
KEPT = 10_000


def address_of(scope: Any) -> str:
    """The requester's key: its IPv4 address, its IPv6 /64, or whatever the scope names (a test client's name)."""
    client = scope.get("client")
    host = str(client[0]) if client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


@dataclass
class Allowance:
    """`per_minute` actions for each address, spent one at a time and refilled evenly over the minute."""

    per_minute: int
    clock: Callable[[], float] = time.monotonic
    kept: int = KEPT
    _left: OrderedDict[str, tuple[float, float]] = field(default_factory=OrderedDict)  # address: (left, when)

    def take(self, address: str) -> bool:
        """One action spent for `address`, or False: none is left (nothing spent)."""
        now = self.clock()
        left = self._refilled(address, now)
        spent = left >= 1
        self._left.pop(address, None)
        self._left[address] = (left - 1 if spent else left, now)
        while len(self._left) > self.kept:
            self._left.popitem(last=False)
        return spent

    def wait(self, address: str) -> float:
        """Seconds until `address` has an action again (0: it has one now)."""
        return max(0.0, (1 - self._refilled(address, self.clock())) * 60 / self.per_minute)

    def _refilled(self, address: str, now: float) -> float:
        left, at = self._left.get(address, (float(self.per_minute), now))
        return min(float(self.per_minute), left + (now - at) * self.per_minute / 60)


@dataclass
class Pool:
    """Requests in flight on the routes without a token: `size` in all, `per_address` from one address."""

    size: int
    per_address: int
    busy: int = 0
    by_address: dict[str, int] = field(default_factory=dict)

    def full(self, address: str) -> str | None:
        """Why a request from `address` may not enter now ("pool" or "address"), or None."""
        if self.by_address.get(address, 0) >= self.per_address:
            return "address"
        if self.busy >= self.size:
            return "pool"
        return None

    def enter(self, address: str) -> None:
        self.busy += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1

    def leave(self, address: str) -> None:
        self.busy -= 1
        left = self.by_address.pop(address) - 1
        if left:
            self.by_address[address] = left  # an entry per address in flight, never one per address seen
