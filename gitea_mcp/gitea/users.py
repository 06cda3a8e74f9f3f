"""Whose each token is: the forge user's id, by the token's hash (never the token), looked up once and remembered.

Fair share (server/admission.py) and the duplicate guard (toolkit/in_flight.py) key on the forge user, not the token:
one user with two tokens, or whose sign-in was refreshed (a new Gitea token), is one caller. The id comes from
`GET /user`, asked anyway: by the HTTP gate for every new token (server/bearers.py) and by the tools for the
token's own login (`Catalog.me`). A token is one user's for its whole life, so the id is kept for a long while
(TTL) in a bounded table, the oldest dropped first; a token Gitea no longer accepts is refused at its next request
whatever is kept here. A token whose user is not known (no `read:user`, or not asked yet) is its own caller.

One process serves one forge (GITEA_URL), so the token alone is the key.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

TTL = 3_600.0  # seconds a token's user is kept after it was last learnt
KEPT = 8_192  # tokens kept at most (some 100 bytes each)


class Users:
    def __init__(self, kept: int = KEPT, ttl: float = TTL, clock: Callable[[], float] = time.monotonic) -> None:
        self.kept = kept
        self.ttl = ttl
        self.clock = clock
        self._ids: OrderedDict[bytes, tuple[int, float]] = OrderedDict()
        self._logins: dict[bytes, str] = {}  # the login beside the id, kept and dropped with it (the audit log)
        self._lock = threading.Lock()  # the gate learns on the event loop, the tools in worker threads

    def learn(self, token: str | None, user_id: int, login: str | None = None) -> None:
        """`token` belongs to the user `user_id` (whose login is `login`, when the answer gave it); an id that is no
        real user's (0: a field missing from the answer) is not kept, lest two users meet under it."""
        if not token or user_id <= 0:
            return
        key = _key(token)
        with self._lock:
            self._ids.pop(key, None)
            self._ids[key] = (user_id, self.clock() + self.ttl)
            if login:
                self._logins[key] = login
            else:
                self._logins.pop(key, None)
            while len(self._ids) > self.kept:
                dropped, _ = self._ids.popitem(last=False)
                self._logins.pop(dropped, None)

    def of(self, token: str | None) -> int | None:
        """The user `token` is known to belong to, or None."""
        if not token:
            return None
        key = _key(token)
        with self._lock:
            found = self._ids.get(key)
            if found is None:
                return None
            if found[1] <= self.clock():
                del self._ids[key]
                self._logins.pop(key, None)
                return None
            return found[0]

    def login_of(self, token: str | None) -> str | None:
        """The login of the user `token` is known to belong to, or None."""
        if not token or self.of(token) is None:
            return None
        with self._lock:
            return self._logins.get(_key(token))

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids)


def _key(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


USERS = Users()
