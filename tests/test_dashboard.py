"""The Grafana dashboard (deploy/grafana/gitea-mcp.json) shows what the server exports: every metric a panel's query
or a variable names is one of gitea_mcp.server.metrics.EXPORTED (a histogram by its `_bucket`, `_sum` or `_count`),
and each family the issue asks for is on some panel. The names are read from the PromQL itself, so a metric renamed
in the server and not on the dashboard fails here; the reader is run on planted mistakes too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gitea_mcp.server import metrics

DASHBOARD = Path(__file__).resolve().parent.parent / "deploy" / "grafana" / "gitea-mcp.json"
# PromQL's own words: functions, aggregations and their modifiers (what else an identifier in a query can be).
PROMQL = frozenset(
    re.findall(
        r"\w+",
        """sum avg min max count stddev stdvar topk bottomk quantile count_values group by without on ignoring
        group_left group_right bool and or unless offset rate irate increase delta idelta deriv histogram_quantile
        label_values label_replace label_join abs ceil floor round clamp clamp_min clamp_max vector scalar time
        absent absent_over_time changes resets sort sort_desc avg_over_time max_over_time min_over_time
        sum_over_time count_over_time last_over_time predict_linear inf nan""",
    )
)
SERIES = {name for name in metrics.EXPORTED} | {
    f"{name}{suffix}" for name in metrics.HISTOGRAMS for suffix in ("_bucket", "_sum", "_count")
}
# Each family the dashboard must show (the `_by_` families exist only with GITEA_MCP_METRICS_DETAILED).
SHOWN = {
    metrics.TOOL_CALLS,
    metrics.TOOL_SECONDS,
    metrics.FORGE_REQUESTS,
    metrics.FORGE_SECONDS,
    metrics.LIMIT_REFUSALS,
    metrics.SIGNINS,
    metrics.REFRESHES,
    metrics.WRITE_GUARD,
    metrics.WORKERS_ALIVE,
}


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: its identifiers, less strings, label matchers, ranges, the labels
    of `by (…)`/`without (…)`, Grafana's `$variables` and PromQL's own words."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings: a label value is no metric
    text = re.sub(r"\{[^}]*\}", " ", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)  # ranges, [$__rate_interval] included
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\$\w+", " ", text)
    names = set(re.findall(r"(?<![\w.])[A-Za-z_:][\w:]*", text)) - PROMQL
    if text.lstrip().startswith("label_values("):  # label_values(metric, label): the label is no metric
        names -= {text.rsplit(",", 1)[1].strip(" )")}
    return names


def queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, PromQL) for every panel target and every query variable."""
    found = [
        (panel["title"], target["expr"])
        for panel in dashboard["panels"]
        for target in panel.get("targets", [])
        if "expr" in target
    ]
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            query = variable["query"]
            found.append((f"${variable['name']}", query["query"] if isinstance(query, dict) else query))
    return found


DASH = json.loads(DASHBOARD.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("where", "expr"), queries(DASH), ids=[where for where, _ in queries(DASH)])
def test_every_query_names_only_metrics_the_server_exports(where: str, expr: str) -> None:
    names = metric_names(expr)
    assert names, f"{where}: no metric read from {expr!r}"
    assert names <= SERIES, f"{where} reads {sorted(names - SERIES)}, which the server does not export"


def test_every_family_asked_for_is_shown() -> None:
    read = {name for _, expr in queries(DASH) for name in metric_names(expr)}
    families = {name.removesuffix(suffix) for name in read for suffix in ("_bucket", "_sum", "_count") if
                name.endswith(suffix) and name.removesuffix(suffix) in metrics.HISTOGRAMS} | read  # fmt: skip
    assert families >= SHOWN, f"not on the dashboard: {sorted(SHOWN - families)}"


def test_every_panel_has_a_query_and_a_place_of_its_own() -> None:
    places = set()
    for panel in DASH["panels"]:
        grid = panel["gridPos"]
        place = (grid["x"], grid["y"])
        assert place not in places, f"{panel['title']} sits on another panel"
        places.add(place)
        assert panel["type"] == "row" or panel.get("targets"), f"{panel['title']} shows nothing"
    assert len({panel["id"] for panel in DASH["panels"]}) == len(DASH["panels"])


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("sum by (tool, outcome) (rate(gitea_mcp_tool_calls_total[5m]))", {"gitea_mcp_tool_calls_total"}),
        ('rate(gitea_mcp_x_total{outcome!="ok", tool=~"issue_.*"}[$__rate_interval])', {"gitea_mcp_x_total"}),
        ("histogram_quantile(0.95, sum by (le) (rate(x_seconds_bucket[5m])))", {"x_seconds_bucket"}),
        ("a / on (instance) group_left (version) b", {"a", "b"}),
        ("label_values(gitea_mcp_build_info, instance)", {"gitea_mcp_build_info"}),
    ],
)  # fmt: skip
def test_the_reader_finds_the_names_a_mistake_included(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


def test_a_misspelt_metric_on_a_panel_would_fail() -> None:
    planted = {"panels": [{"title": "typo", "targets": [{"expr": "rate(gitea_mcp_tool_call_total[5m])"}]}]}
    [(_, expr)] = queries(planted)
    assert not metric_names(expr) <= SERIES
