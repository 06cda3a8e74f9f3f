"""Our access tokens, opened once and remembered by the gate (`Opened`): a request reads its credential twice (the
gate, then the tools), and a Fernet open each time would cost some 35 µs. What is remembered must still expire,
and never by the token."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from pydantic import SecretStr

from gitea_mcp.server.credentials import Credential, Opened, credential
from gitea_mcp.server.signin.context import sealer_for
from gitea_mcp.server.signin.seal import Sealer, Unsealable
from gitea_mcp.settings import Settings

GITEA_TOKEN = "4f0c6d5e8a7b9c1d2e3f405162738495a6b7c8d9"
WHO = {"sub": "demo", "cid": "gmcp.c.bench", "name": "a client", "scopes": ["read:issue"], "ga": GITEA_TOKEN}
AUDIENCE = "http://127.0.0.1:8000/mcp"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def signin_settings(key: bytes) -> Settings:
    return Settings(
        url="https://gitea.test", allowed_owners=frozenset({"acme"}), transport="http",
        public_url="http://127.0.0.1:8000", oauth_client_id="gitea-app", oauth_key=SecretStr(_b64(key)),
    )  # fmt: skip


def _b64(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).decode()


def counting_opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every Fernet open of a value by any sealer, by its kind."""
    opened: list[str] = []
    real = Sealer.open

    def open_(self: Sealer, kind: Any, value: str) -> dict[str, Any]:
        opened.append(kind)
        return real(self, kind, value)

    monkeypatch.setattr(Sealer, "open", open_)
    return opened


def test_a_token_read_four_times_is_opened_once(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = signin_settings(b"k" * 32)
    token = sealer_for(settings).seal("access", WHO, 3600)
    opened = counting_opens(monkeypatch)
    said = [credential([("Authorization", f"Bearer {token}")], settings) for _ in range(4)]
    assert said == [Credential(GITEA_TOKEN, bearer=True, signed_in="demo", granted=("read:issue",))] * 4
    assert opened == ["access"]


def test_an_expired_token_is_refused_though_remembered() -> None:
    clock = Clock()
    sealer = Sealer([b"k" * 32], AUDIENCE, clock)
    token = sealer.seal("access", WHO, 60)
    opened = Opened()
    assert opened.credential(sealer, token).token == GITEA_TOKEN  # now remembered
    clock.now += 59
    assert opened.credential(sealer, token).signed_in == "demo"
    clock.now += 1
    with pytest.raises(Unsealable, match=r"^this access token has expired$"):
        opened.credential(sealer, token)


def test_an_expired_token_is_refused_through_the_gate() -> None:
    settings, clock = signin_settings(b"e" * 32), Clock()
    sealer = Sealer(settings.signin_keys(), AUDIENCE, clock)  # the gate's own sealer and clock, which the test moves
    headers = [("Authorization", f"Bearer {sealer.seal('access', WHO, 60)}")]
    assert credential(headers, settings, clock).token == GITEA_TOKEN
    clock.now += 60
    said = credential(headers, settings, clock)
    assert said == Credential(None, "this access token has expired: refresh it, or sign in again", invalid_token=True)


def test_a_token_remembered_for_other_keys_is_not_taken() -> None:
    """One process, two sets of keys (tests, or settings read again): the memory answers only the sealer that
    opened the token, so a token sealed under keys A is refused by a gate holding keys B."""
    token = sealer_for(signin_settings(b"a" * 32)).seal("access", WHO, 3600)
    headers = [("Authorization", f"Bearer {token}")]
    assert credential(headers, signin_settings(b"a" * 32)).token == GITEA_TOKEN
    said = credential(headers, signin_settings(b"b" * 32))
    assert said.token is None
    assert said.invalid_token


def test_tokens_are_remembered_by_their_hash_and_the_oldest_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([b"k" * 32], AUDIENCE, Clock())
    tokens = [sealer.seal("access", {**WHO, "sub": f"user{n}"}, 3600) for n in range(3)]
    opened = Opened(kept=2)
    opens = counting_opens(monkeypatch)
    for token in [*tokens, tokens[2], tokens[0]]:
        opened.credential(sealer, token)
    assert len(opens) == 4  # the first three, then tokens[0] again: pushed out by tokens[2]
    kept = list(opened._opened)
    assert kept == [hashlib.sha256(tokens[n].encode()).digest() for n in (2, 0)]
    assert not any(GITEA_TOKEN in repr(key) or token.encode() in key for key in kept for token in tokens)
