"""The HTTP edge in-process (issue 35): addresses and their allowances, the sign-in pool, bearer look-ups per
address. The attacks on the real server process: tests/e2e/test_http_edge.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.testclient import TestClient

from gitea_mcp.cli.main import parse_args, settings_from
from gitea_mcp.server.addresses import Allowance, Pool, address_of
from gitea_mcp.server.bearers import KEPT, Bearers, Verdict
from gitea_mcp.server.http import RequireToken
from gitea_mcp.server.limits import Load, limits
from gitea_mcp.settings import ConfigError, Settings
from tests.server.test_http_limits import AUTH, LOCAL, SETTINGS, _echo


@pytest.mark.parametrize(
    ("client", "key"),
    [
        pytest.param(("203.0.113.7", 5000), "203.0.113.7", id="ipv4"),
        pytest.param(("2001:db8:1:2:3:4:5:6", 5000), "2001:db8:1:2::/64", id="ipv6-by-its-64"),
        pytest.param(("2001:db8:1:2:ffff::1", 5000), "2001:db8:1:2::/64", id="same-64-same-key"),
        pytest.param(("::ffff:198.51.100.1", 5000), "198.51.100.1", id="ipv4-mapped"),
        pytest.param(("testclient", 50000), "testclient", id="a-name"),
        pytest.param(None, "", id="none"),
    ],
)
def test_an_address_is_keyed_by_itself_or_its_ipv6_64(client: tuple[str, int] | None, key: str) -> None:
    assert address_of({"client": client}) == key


def test_an_allowance_is_spent_then_refilled_over_the_minute() -> None:
    now = [0.0]
    allowance = Allowance(3, clock=lambda: now[0])
    assert [allowance.take("a") for _ in range(4)] == [True, True, True, False]
    assert allowance.wait("a") == pytest.approx(20.0)
    assert allowance.take("b"), "another address has its own"
    now[0] += 20.0
    assert (allowance.wait("a"), allowance.take("a"), allowance.take("a")) == (0.0, True, False)


def test_an_allowance_remembers_a_bounded_number_of_addresses() -> None:
    allowance = Allowance(1, clock=lambda: 0.0, kept=3)
    for address in "abcd":
        allowance.take(address)
    assert allowance.take("a"), "the oldest-used was forgotten (and starts again with its share)"
    assert not allowance.take("d")


def test_the_pool_is_full_for_an_address_before_it_is_full_for_all() -> None:
    pool = Pool(size=3, per_address=2)
    pool.enter("a")
    pool.enter("a")
    assert (pool.full("a"), pool.full("b")) == ("address", None)
    pool.enter("b")
    assert pool.full("c") == "pool"
    pool.leave("a")
    pool.leave("a")
    assert (pool.full("a"), pool.by_address) == (None, {"b": 1})


def _asking(asked: list[str]) -> Any:
    def ask(token: str) -> Verdict:
        asked.append(token)
        return Verdict.GOOD if token.startswith("good") else Verdict.REFUSED

    return ask


def test_made_up_tokens_past_an_addresses_allowance_are_not_asked_about() -> None:
    asked: list[str] = []
    bearers = Bearers(_asking(asked), clock=lambda: 0.0, per_address=5)

    async def flood() -> list[Verdict]:
        before = await bearers.verdict("good-known", "elsewhere")
        made_up = [await bearers.verdict(f"made-up-{n}", "attacker") for n in range(8)]
        after = [await bearers.verdict(token, "attacker") for token in ("good-known", "made-up-0", "good-new")]
        return [before, *made_up, *after, await bearers.verdict("made-up-9", "bystander")]

    verdicts = asyncio.run(flood())
    assert verdicts == [
        Verdict.GOOD,
        *[Verdict.REFUSED] * 5,
        *[Verdict.LIMITED] * 3,
        Verdict.GOOD,  # judged before: still passes
        Verdict.REFUSED,  # remembered as refused: not asked again, nothing spent
        Verdict.LIMITED,  # a new token from the address that spent its look-ups waits with the rest
        Verdict.REFUSED,
    ]
    assert asked == ["good-known", *(f"made-up-{n}" for n in range(5)), "made-up-9"]


def test_a_flood_of_refused_tokens_never_pushes_out_a_good_one() -> None:
    asked: list[str] = []
    bearers = Bearers(_asking(asked), clock=lambda: 0.0, per_address=100_000)

    async def flood() -> Verdict:
        await bearers.verdict("good-user", "a")
        for n in range(KEPT * 3):
            await bearers.verdict(f"made-up-{n}", f"address-{n}")
        return await bearers.verdict("good-user", "a")

    assert asyncio.run(flood()) is Verdict.GOOD
    assert asked.count("good-user") == 1


def test_a_limited_address_is_told_when_to_retry_with_the_setting() -> None:
    bearers = Bearers(_asking([]), clock=lambda: 0.0, per_address=1)
    client = TestClient(RequireToken(_echo, SETTINGS, bearers=bearers), base_url=LOCAL)
    assert client.post("/mcp", content=b"{}", headers={"Authorization": "Bearer made-up"}).status_code == 401
    limited = client.post("/mcp", content=b"{}", headers={"Authorization": "Bearer made-up-2"})
    assert (limited.status_code, limited.headers["Retry-After"]) == (429, "60")
    assert limited.json()["error"] == (
        "this address has had 1 new tokens checked with Gitea in the last minute, the most this server checks "
        "(GITEA_MCP_LOOKUPS_PER_ADDRESS); retry in 60 s"
    )


def test_a_full_sign_in_pool_leaves_mcp_and_healthz_alone() -> None:
    """Before, a sign-in request took one of MCP's request slots: a full pool was a 503 for /mcp and /healthz."""
    settings = SETTINGS.model_copy(update={"max_requests": 4, "signin_requests": 3, "signin_per_address": 2})
    load = Load(limits(settings))
    gate = RequireToken(_echo, settings, load)
    client = TestClient(gate, base_url=LOCAL)
    gate.pool.enter("testclient")  # the test client's two requests in flight
    gate.pool.enter("testclient")
    mine = client.post("/register", content=b"{}")
    assert (mine.status_code, mine.headers["Retry-After"]) == (429, "1")
    assert "GITEA_MCP_SIGNIN_PER_ADDRESS" in mine.json()["error"]
    gate.pool.leave("testclient")
    gate.pool.enter("elsewhere")
    gate.pool.enter("elsewhere")
    busy = client.post("/token", content=b"grant_type=x")
    assert (busy.status_code, busy.json()["error"]) == (503, "the server is busy with sign-ins; retry shortly")
    assert client.post("/mcp", content=b"{}", headers=AUTH).text == "2 bytes"
    assert load.cannot_serve() is None and load.requests == 0


def test_a_sign_in_request_passes_its_body_whole_and_frees_its_place() -> None:
    gate = RequireToken(_echo, SETTINGS)
    answer = TestClient(gate, base_url=LOCAL).post("/register", content=b"x" * 20_000)
    assert answer.text == "20000 bytes", "past the 16 KiB read ahead, the rest comes as it is sent"
    assert (gate.pool.busy, gate.pool.by_address) == (0, {})


@pytest.mark.parametrize(
    ("env", "phrase"),
    [
        ({"GITEA_MCP_SIGNIN_REQUESTS": "0"}, "GITEA_MCP_SIGNIN_REQUESTS='0' is not a whole number from 1 to 10,000"),
        ({"GITEA_MCP_SIGNIN_PER_ADDRESS": "x"}, "GITEA_MCP_SIGNIN_PER_ADDRESS='x' is not a whole number"),
        ({"GITEA_MCP_LOOKUPS_PER_ADDRESS": "-1"}, "GITEA_MCP_LOOKUPS_PER_ADDRESS='-1' is not a whole number"),
        (
            {"GITEA_MCP_TRUSTED_PROXIES": "10.0.0.0/8,proxy.local"},
            "GITEA_MCP_TRUSTED_PROXIES entry 'proxy.local' is not an IP address or network",
        ),
    ],
)
def test_a_doubtful_edge_limit_stops_the_start(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], phrase: str
) -> None:
    for key, value in {"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": "acme", **env}.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args([]))
    assert phrase in str(refused.value)


def test_edge_limits_from_flags_and_their_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": "acme"}.items():
        monkeypatch.setenv(key, value)
    default = settings_from(parse_args([]))
    assert (default.signin_requests, default.signin_per_address, default.lookups_per_address) == (16, 4, 60)
    assert default.trusted_proxies == ("127.0.0.1", "::1")
    given = settings_from(parse_args(["--signin-requests", "8", "--trusted-proxies", "10.0.0.0/8, *"]))
    assert (given.signin_requests, given.trusted_proxies) == (8, ("10.0.0.0/8", "*"))
    assert settings_from(parse_args(["--trusted-proxies", "none"])).trusted_proxies == (), "no proxy: none believed"
    assert Settings.model_fields["lookups_per_address"].default == 60
