"""seal.Sealer: every kind opens as itself and as nothing else; tampering, another key or audience, and expiry
(by an injected clock) are refused in words that never quote the value; the first key seals, every key opens."""

from __future__ import annotations

import itertools
from typing import get_args

import pytest

from gitea_mcp.server.signin.seal import PREFIX, Kind, Sealer, Unsealable

KEY_A = b"a" * 32
KEY_B = b"b" * 32
AUDIENCE = "https://mcp.example/mcp"
KINDS: tuple[Kind, ...] = get_args(Kind)
NOW = 1_800_000_000.0
TTL = 120


class Clock:
    def __init__(self, now: float = NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def sealer(keys: list[bytes] | None = None, audience: str = AUDIENCE, clock: Clock | None = None) -> Sealer:
    return Sealer([KEY_A] if keys is None else keys, audience, clock or Clock())


def refused(opener: Sealer, kind: Kind, value: str) -> str:
    with pytest.raises(Unsealable) as caught:
        opener.open(kind, value)
    message = str(caught.value)
    sealed = value[len(PREFIX[kind]) :]
    middle = sealed[len(sealed) // 2 - 8 : len(sealed) // 2 + 8]
    assert len(middle) < 16 or middle not in message, "the message quotes the value"
    return message


def test_every_kind_has_its_own_prefix() -> None:
    assert set(PREFIX) == set(KINDS) and len(set(PREFIX.values())) == len(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_a_value_opens_as_its_own_kind_with_its_claims(kind: Kind) -> None:
    value = sealer().seal(kind, {"sub": "alice", "n": 3}, TTL)
    assert value.startswith(PREFIX[kind])
    claims = sealer().open(kind, value)
    assert claims == {"sub": "alice", "n": 3, "typ": kind, "aud": AUDIENCE, "exp": int(NOW) + TTL}


@pytest.mark.parametrize(("sealed", "opened"), list(itertools.permutations(KINDS, 2)))
def test_a_value_of_one_kind_is_refused_as_another(sealed: Kind, opened: Kind) -> None:
    value = sealer().seal(sealed, {"sub": "alice"}, TTL)
    assert "is not" in refused(sealer(), opened, value)


@pytest.mark.parametrize(("sealed", "opened"), list(itertools.permutations(KINDS, 2)))
def test_a_value_of_one_kind_given_the_others_prefix_is_still_refused(sealed: Kind, opened: Kind) -> None:
    """The prefix is a label; the kind that counts is the one sealed inside."""
    value = sealer().seal(sealed, {"sub": "alice"}, TTL)
    relabelled = PREFIX[opened] + value[len(PREFIX[sealed]) :]
    assert "is not" in refused(sealer(), opened, relabelled)


def _flipped(value: str) -> str:
    middle = len(value) // 2
    return value[:middle] + ("A" if value[middle] != "A" else "B") + value[middle + 1 :]


@pytest.mark.parametrize("kind", KINDS)
def test_a_tampered_value_is_refused(kind: Kind) -> None:
    value = sealer().seal(kind, {"sub": "alice"}, TTL)
    assert "altered" in refused(sealer(), kind, _flipped(value))


@pytest.mark.parametrize(
    "garbage", ["", "gmcp.a.", "gmcp.a.not-base64!", "gmcp.a.\u00e9\u00e9", "gmcp.a." + "A" * 120], ids=repr
)
def test_garbage_after_the_prefix_is_refused(garbage: str) -> None:
    assert "issued by this server" in refused(sealer(), "access", garbage)


def test_a_value_sealed_with_another_key_is_refused() -> None:
    value = sealer([KEY_B]).seal("access", {"sub": "alice"}, TTL)
    assert "altered" in refused(sealer([KEY_A]), "access", value)


def test_a_value_sealed_for_another_audience_is_refused() -> None:
    value = sealer(audience="https://other.example/mcp").seal("access", {"sub": "alice"}, TTL)
    assert "another resource" in refused(sealer(), "access", value)


@pytest.mark.parametrize(("later", "opens"), [(0, True), (TTL - 1, True), (TTL, False), (TTL + 3600, False)])
def test_a_value_expires_at_its_exp_by_the_injected_clock(later: int, opens: bool) -> None:
    clock = Clock()
    value = sealer(clock=clock).seal("code", {"sub": "alice"}, TTL)
    clock.now = NOW + later
    if opens:
        assert sealer(clock=clock).open("code", value)["sub"] == "alice"
    else:
        assert "expired" in refused(sealer(clock=clock), "code", value)


def test_the_injected_clock_not_the_wall_clock_decides() -> None:
    """Sealed and opened far from the real time: Fernet's own timestamp check plays no part."""
    past = Clock(1_000_000.0)
    value = sealer(clock=past).seal("state", {}, TTL)
    assert sealer(clock=past).open("state", value)["exp"] == 1_000_000 + TTL


def test_rotation_a_value_sealed_with_the_old_key_opens_with_the_new_first() -> None:
    value = sealer([KEY_A]).seal("refresh", {"sub": "alice"}, TTL)
    assert sealer([KEY_B, KEY_A]).open("refresh", value)["sub"] == "alice"


def test_rotation_the_first_key_seals() -> None:
    value = sealer([KEY_B, KEY_A]).seal("refresh", {"sub": "alice"}, TTL)
    assert sealer([KEY_B]).open("refresh", value)["sub"] == "alice"
    assert "altered" in refused(sealer([KEY_A]), "refresh", value)


def test_a_sealer_without_keys_is_refused() -> None:
    with pytest.raises(ValueError, match="GITEA_MCP_OAUTH_KEY"):
        Sealer([], AUDIENCE)


def test_the_sealed_value_does_not_show_its_claims() -> None:
    """Encrypted, not signed: whoever holds the value cannot read the Gitea token inside."""
    secret = "gitea-access-token-0123456789"
    value = sealer().seal("access", {"ga": secret}, TTL)
    assert secret not in value and "alice" not in value and AUDIENCE not in value
