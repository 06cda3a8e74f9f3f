"""gitea_mcp.server.metrics: the metrics port scraped and read by prometheus-client's own parser after real calls
(a server in this process against the stand-in), labels bounded unless the operator asks, and each family counted
where it happens. The workers' sum and stdio are in tests/e2e/test_metrics.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from mcp.shared.exceptions import MCPError
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

import gitea_mcp.observe as observe
from gitea_mcp import __version__
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.server import metrics
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import ConfigError, Settings
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit import registry

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


def settings_for(forge: StandIn, **extra: Any) -> Settings:
    return Settings(
        url=forge.url, token=SecretStr(DEMO_TOKEN), allowed_owners=frozenset({"acme"}), metrics_port=0, **extra
    )


@pytest.fixture
def serving() -> Iterator[list[metrics.Metrics]]:
    """The metrics started by a test, stopped after it (and the sink taken out again)."""
    started: list[metrics.Metrics] = []
    yield started
    for each in started:
        each.exposition.close()
    metrics.stop()


def known(forge: StandIn) -> None:
    """Whose the token is, learnt as the gate or the tools' first read of /user learn it."""
    Catalog().me(GiteaClient(forge.url, DEMO_TOKEN, 5))


def start(settings: Settings, serving: list[metrics.Metrics]) -> metrics.Metrics:
    started = metrics.start(settings)
    assert started is not None
    started.serve()
    serving.append(started)
    return started


def scrape(started: metrics.Metrics) -> tuple[Samples, set[str], str]:
    """Every sample by name and labels, the families' names, and the text, read with prometheus-client's parser."""
    answer = requests.get(started.url, timeout=5)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/plain")
    samples: Samples = {}
    families = set()
    for family in text_string_to_metric_families(answer.text):
        families.add(family.name)
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, families, answer.text


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def calls(settings: Settings, *made: tuple[str, dict[str, Any]]) -> None:
    server = build_server(settings, GiteaClient(settings.url, DEMO_TOKEN, 5))
    for name, arguments in made:
        try:
            asyncio.run(server.call_tool(name, arguments))
        except MCPError:  # a tool not served: JSON-RPC -32602, counted all the same
            assert name not in {spec.name for spec in registry.every()}


WIDGETS = {"owner": "acme", "name": "widgets"}


def test_each_outcome_is_counted_by_tool_with_its_latency_and_the_forge_requests(
    forge: StandIn, serving: list[metrics.Metrics]
) -> None:
    settings = settings_for(forge)
    started = start(settings, serving)
    calls(
        settings,
        ("issue_list", {**WIDGETS, "limit": 2}),
        ("issue_list", {**WIDGETS, "limit": 2}),
        ("issue_get", {**WIDGETS, "number": 3}),
        ("issue_get", {"owner": "other", "name": "widgets", "number": 3}),  # outside the allowlist: its refusal
        ("issue_get", {**WIDGETS, "number": "three"}),
        ("issue_get", {**WIDGETS, "number": 99_999}),  # Gitea's 404
        ("issue_lits", WIDGETS),
    )
    samples, families, _ = scrape(started)
    total = metrics.TOOL_CALLS
    assert value(samples, total, tool="issue_list", outcome="ok") == 2
    assert value(samples, total, tool="issue_get", outcome="ok") == 1
    assert value(samples, total, tool="issue_get", outcome="tool_error") == 2
    assert value(samples, total, tool="issue_get", outcome="bad_argument") == 1
    assert value(samples, total, tool="(unserved)", outcome="unserved") == 1
    assert value(samples, metrics.TOOL_SECONDS + "_count", tool="issue_get") == 4
    assert value(samples, metrics.TOOL_SECONDS + "_bucket", tool="issue_list", le="+Inf") == 2
    assert value(samples, metrics.TOOL_SECONDS + "_sum", tool="issue_list") > 0
    sent = len(forge.requests)
    counted = {labels: n for (name, labels), n in samples.items() if name == metrics.FORGE_REQUESTS}
    assert sum(counted.values()) == sent, "every request the stand-in saw, counted once"
    assert value(samples, metrics.FORGE_REQUESTS, method="GET", status="4xx") >= 1
    assert value(samples, metrics.FORGE_SECONDS + "_count", method="GET") == sent
    assert value(samples, metrics.WORKERS_ALIVE) == 1
    assert value(samples, metrics.BUILD, version=__version__) == 1
    # prometheus-client's parser names a counter's family without `_total`.
    exported = {name.removesuffix("_total") for name in metrics.EXPORTED}
    assert {f for f in families if f.startswith(metrics.PREFIX)} <= exported


def test_no_user_or_repository_is_a_label_value_unless_detailed(forge: StandIn, serving: list[metrics.Metrics]) -> None:
    settings = settings_for(forge)
    started = start(settings, serving)
    known(forge)
    calls(settings, ("issue_list", {**WIDGETS, "limit": 1}))
    samples, families, text = scrape(started)
    assert "widgets" not in text and '"demo"' not in text
    assert metrics.BY_USER.removesuffix("_total") not in families
    labels = {key for (_, pairs) in samples for key, _ in pairs}
    assert labels <= {"tool", "outcome", "method", "status", "le", "version", "kind", "scope", "result"}


def test_detailed_counts_calls_by_user_and_by_repository(forge: StandIn, serving: list[metrics.Metrics]) -> None:
    settings = settings_for(forge, metrics_detailed=True)
    started = start(settings, serving)
    known(forge)
    calls(settings, ("issue_list", {**WIDGETS, "limit": 1}), ("issue_get", {**WIDGETS, "number": 3}))
    samples, _, _ = scrape(started)
    assert value(samples, metrics.BY_USER, tool="issue_list", user="demo") == 1
    assert value(samples, metrics.BY_REPOSITORY, tool="issue_get", repository="acme/widgets") == 1


@pytest.mark.parametrize(
    ("say", "family", "labels"),
    [
        (lambda: observe.limit_refused("calls"), metrics.LIMIT_REFUSALS, {"kind": "calls"}),
        (lambda: observe.signin("ok"), metrics.SIGNINS, {"outcome": "ok"}),
        (lambda: observe.refresh("invalid_grant"), metrics.REFRESHES, {"outcome": "invalid_grant"}),
        (lambda: observe.write_guard("process", "joined"), metrics.WRITE_GUARD,
         {"scope": "process", "result": "joined"}),
        (lambda: observe.write_guard("replicas", "queued"), metrics.WRITE_GUARD,
         {"scope": "replicas", "result": "queued"}),
    ],
)  # fmt: skip
def test_each_family_said_below_is_exported(
    forge: StandIn, serving: list[metrics.Metrics], say: Any, family: str, labels: dict[str, str]
) -> None:
    started = start(settings_for(forge), serving)
    say()
    say()
    samples, _, _ = scrape(started)
    assert value(samples, family, **labels) == 2


def test_off_nothing_is_installed_and_nothing_counted() -> None:
    assert metrics.start(Settings(url="https://gitea.invalid", allowed_owners=frozenset({"acme"}))) is None
    assert not observe.on()
    observe.tool_call("issue_list", "ok", 0.1)  # a no-op, not an error


def test_the_metrics_port_must_differ_from_the_mcp_port() -> None:
    with pytest.raises(ValueError, match="GITEA_MCP_METRICS_PORT 8000 is GITEA_MCP_PORT too"):
        Settings(url="https://g.invalid", allowed_owners=frozenset({"a"}), transport="http", metrics_port=8000)


def test_a_port_in_use_is_one_sentence(forge: StandIn, serving: list[metrics.Metrics]) -> None:
    started = start(settings_for(forge), serving)
    taken = int(started.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(ConfigError, match=rf"^GITEA_MCP_METRICS_PORT {taken} on 127.0.0.1 is in use by another"):
        metrics.start(settings_for(forge).model_copy(update={"metrics_port": taken}))


def test_every_family_named_exported_is_in_a_scrape(forge: StandIn, serving: list[metrics.Metrics]) -> None:
    """metrics.EXPORTED (what the dashboard may name, tests/test_dashboard.py) is what a scrape holds."""
    settings = settings_for(forge, metrics_detailed=True)
    started = start(settings, serving)
    known(forge)
    calls(settings, ("issue_get", {**WIDGETS, "number": 3}))
    for say in (observe.limit_refused, observe.signin, observe.refresh):
        say("x")
    observe.write_guard("process", "joined")
    _, families, _ = scrape(started)
    assert {f"{family}_total" if f"{family}_total" in metrics.EXPORTED else family for family in families if
            family.startswith(metrics.PREFIX)} == set(metrics.EXPORTED)  # fmt: skip


def test_the_limits_refusals_are_counted_by_kind_and_the_call_by_outcome_refused(
    forge: StandIn, serving: list[metrics.Metrics]
) -> None:
    """The per-user limit (one call a minute: the second is refused) and the forge budget (one request a minute:
    issue_get's second request already finds no room, so both budgeted calls are refused) each count a refusal of
    their kind where they refuse, and each refused call is counted with the outcome `refused`."""
    settings = settings_for(forge, calls_per_minute=1)
    started = start(settings, serving)
    calls(settings, ("issue_get", {**WIDGETS, "number": 3}), ("issue_get", {**WIDGETS, "number": 3}))
    budgeted = settings_for(forge, forge_requests_per_minute=1)
    server = build_server(budgeted)  # its own client, which spends the budget (an injected one does not)
    for _ in range(2):
        asyncio.run(server.call_tool("issue_get", {**WIDGETS, "number": 3}))
    samples, _, _ = scrape(started)
    assert value(samples, metrics.LIMIT_REFUSALS, kind="calls") == 1
    assert value(samples, metrics.LIMIT_REFUSALS, kind="forge") >= 1
    assert value(samples, metrics.TOOL_CALLS, tool="issue_get", outcome="refused") == 3
