"""The Helm chart's files, without helm (`task chart` builds helm, lints and renders the chart, and checks the
rendered objects with tests/chart/rendered.py): Chart.yaml and the values files parse and hold together, every
environment variable the templates set is a setting the server declares, every `.Values` path a template reads
exists in values.yaml, and no values file holds a secret."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from gitea_mcp.cli.main import SETTINGS
from tests.chart import rendered

ROOT = Path(__file__).resolve().parent.parent
HELM = ROOT / "deploy" / "helm"
CHART = HELM / "gitea-issues-mcp"
TEMPLATES = sorted((CHART / "templates").glob("*"))
VALUES_FILES = sorted(HELM.glob("*.yaml"))


def load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def declared() -> set[str]:
    return {name for setting in SETTINGS.values() for name in setting.env}


def template_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in TEMPLATES)


def test_chart_yaml_names_the_server_and_its_version() -> None:
    chart = load(CHART / "Chart.yaml")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert chart["apiVersion"] == "v2" and chart["type"] == "application"
    assert chart["name"] == project["name"] == CHART.name
    assert chart["appVersion"] == project["version"], "the chart's appVersion is the server's version"
    assert re.fullmatch(r"\d+\.\d+\.\d+", chart["version"]), "a SemVer 2 chart version"


def test_every_variable_the_templates_set_is_a_setting_of_the_server() -> None:
    text = template_text()
    literal = set(re.findall(r"-\s+name:\s+(GITEA_\w+)", text))
    by_helper = set(re.findall(r'"name"\s+"(GITEA_\w+)"', text))
    assert {"GITEA_URL", "GITEA_TOKEN", "GITEA_MCP_REDIS_URL"} <= literal | by_helper, "the scan finds them"
    unknown = (literal | by_helper) - declared()
    assert not unknown, f"the templates set variables the server does not read: {sorted(unknown)}"


def paths(tree: dict[str, Any], prefix: str = "") -> set[str]:
    found = set()
    for key, child in tree.items():
        found.add(prefix + key)
        if isinstance(child, dict) and child:
            found |= paths(child, f"{prefix}{key}.")
    return found


def test_every_value_a_template_reads_is_in_values_yaml() -> None:
    known = paths(load(CHART / "values.yaml"))
    read = set(re.findall(r"\.Values\.([A-Za-z][\w.]*\w)", template_text()))
    assert read, "the scan finds them"
    assert not read - known, f"templates read values that values.yaml does not define: {sorted(read - known)}"


@pytest.mark.parametrize("path", VALUES_FILES, ids=lambda path: path.name)
def test_example_values_only_set_values_the_chart_has(path: Path) -> None:
    known = paths(load(CHART / "values.yaml"))
    given = {p for p in paths(load(path)) if not p.startswith("server.env.")}
    assert not given - known, f"{path.name} sets values the chart does not have: {sorted(given - known)}"


@pytest.mark.parametrize("path", [CHART / "values.yaml", *VALUES_FILES], ids=lambda path: path.name)
def test_values_reference_secrets_and_never_hold_them(path: Path) -> None:
    values = load(path)
    for name, reference in (values.get("secrets") or {}).items():
        assert set(reference) <= {"existingSecret", "key"}, f"secrets.{name} is a Secret's name and key, nothing else"
    url = (values.get("redis") or {}).get("url") or ""
    assert not rendered.PASSWORD_IN_URL.match(url), "a Redis URL with a password goes in a Secret"
    env = (values.get("server") or {}).get("env") or {}
    assert not set(env) & rendered.SECRET_ENV


def test_the_defaults_are_one_replica_without_redis_and_locked_down() -> None:
    values = load(CHART / "values.yaml")
    assert values["replicaCount"] == 1 and not values["autoscaling"]["enabled"]
    assert not values["redis"]["url"] and not values["redis"]["existingSecret"]
    assert not values["metrics"]["enabled"], "metrics are off by default, as in the server"
    deployment = (CHART / "templates" / "deployment.yaml").read_text(encoding="utf-8")
    for promise in ("runAsNonRoot: true", "readOnlyRootFilesystem: true", "drop: [ALL]", "type: RuntimeDefault"):
        assert promise in deployment


def test_the_three_replica_values_share_redis_by_a_secret() -> None:
    three = load(HELM / "values-3-replicas.yaml")
    assert three["replicaCount"] == 3 and three["redis"]["existingSecret"] and not three["redis"].get("url")


def test_the_chart_check_knows_the_servers_secrets() -> None:
    secret = {name for setting in SETTINGS.values() if setting.secret for name in setting.env}
    assert secret == rendered.SECRET_ENV, "every secret setting must come from a Secret in the rendered chart"


def test_task_chart_is_outside_check() -> None:
    tasks = load(ROOT / "Taskfile.yml")["tasks"]
    assert "chart" in tasks and "replicas" in tasks
    assert all("chart" not in str(step) and "replicas" not in str(step) for step in tasks["check"]["cmds"])
    assert "helm.sh/helm/v4/cmd/helm@{{.HELM_VERSION}}" in str(tasks["helm"])
    assert load(ROOT / "Taskfile.yml")["vars"]["HELM_VERSION"] == "v4.3.2"
