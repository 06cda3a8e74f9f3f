"""The rendered-objects check (tests/chart/rendered.py) fails where a rendering breaks a promise: a kept rendering
passes, and each broken copy of it fails saying which. No helm here: the objects are built as the chart renders
them for three replicas on Redis."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from tests.chart import rendered

Objects = list[dict[str, Any]]
LABELS = {"app.kubernetes.io/name": "gitea-issues-mcp", "app.kubernetes.io/instance": "gitea-issues-mcp"}


def env(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": value}


def from_secret(name: str, secret: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": secret, "key": "k"}}}


def kept() -> Objects:
    probe = {"httpGet": {"path": "/healthz", "port": "http"}}
    container = {
        "name": "gitea-issues-mcp",
        "securityContext": {
            "runAsNonRoot": True,
            "readOnlyRootFilesystem": True,
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "env": [
            env("GITEA_MCP_TRANSPORT", "http"),
            env("GITEA_MCP_HOST", "0.0.0.0"),
            env("GITEA_MCP_PORT", "8000"),
            env("GITEA_URL", "https://gitea.example.com"),
            from_secret("GITEA_MCP_REDIS_URL", "redis"),
            from_secret("GITEA_TOKEN", "token"),
        ],
        "ports": [{"name": "http", "containerPort": 8000}],
        "readinessProbe": probe,
        "livenessProbe": copy.deepcopy(probe),
        "resources": {"requests": {"cpu": "100m"}, "limits": {"memory": "256Mi"}},
    }
    pod = {
        "metadata": {"labels": {**LABELS, "helm.sh/chart": "gitea-issues-mcp-0.1.0"}},
        "spec": {
            "automountServiceAccountToken": False,
            "securityContext": {"runAsNonRoot": True, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [container],
        },
    }
    deployment = {
        "kind": "Deployment",
        "metadata": {"name": "gitea-issues-mcp"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": dict(LABELS)},
            "strategy": {"rollingUpdate": {"maxSurge": 1}},
            "template": pod,
        },
    }
    service = {
        "kind": "Service",
        "spec": {"selector": dict(LABELS), "ports": [{"name": "http", "port": 8000, "targetPort": "http"}]},
    }
    budget = {
        "kind": "PodDisruptionBudget",
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": dict(LABELS)}},
    }
    return [deployment, service, budget]


def container(objects: Objects) -> dict[str, Any]:
    found: dict[str, Any] = objects[0]["spec"]["template"]["spec"]["containers"][0]
    return found


def set_env(name: str, value: dict[str, Any] | None) -> Callable[[Objects], None]:
    def change(objects: Objects) -> None:
        entries = [entry for entry in container(objects)["env"] if entry["name"] != name]
        container(objects)["env"] = [*entries, value] if value else entries

    return change


BROKEN: list[tuple[str, Callable[[Objects], object], str]] = [
    ("writable root", lambda o: container(o)["securityContext"].update(readOnlyRootFilesystem=False), "locked down"),
    ("root allowed", lambda o: o[0]["spec"]["template"]["spec"]["securityContext"].pop("runAsNonRoot"), "runAsNonRoot"),
    ("a capability kept", lambda o: container(o)["securityContext"].update(capabilities={"drop": []}), "capabilities"),
    ("no liveness", lambda o: container(o).pop("livenessProbe"), "livenessProbe"),
    ("probe elsewhere", lambda o: container(o)["readinessProbe"]["httpGet"].update(path="/"), "readinessProbe"),
    ("no limits", lambda o: container(o)["resources"].pop("limits"), "requests and limits"),
    ("token inlined", set_env("GITEA_TOKEN", env("GITEA_TOKEN", "abc")), "GITEA_TOKEN is inlined"),
    (
        "Redis password inlined",
        set_env("GITEA_MCP_REDIS_URL", env("GITEA_MCP_REDIS_URL", "redis://:pw@redis:6379/0")),
        "GITEA_MCP_REDIS_URL is inlined",
    ),
    ("three replicas, no Redis", set_env("GITEA_MCP_REDIS_URL", None), "no GITEA_MCP_REDIS_URL"),
    ("a Secret rendered", lambda o: o.append({"kind": "Secret"}), "rendered a Secret"),
    ("no budget", lambda o: o.pop(2), "0 PodDisruptionBudgets"),
    ("budget of all", lambda o: o[2]["spec"].update(maxUnavailable=3), "maxUnavailable"),
    ("budget elsewhere", lambda o: o[2]["spec"].update(selector={"matchLabels": {"app": "x"}}), "the budget selects"),
    ("service elsewhere", lambda o: o[1]["spec"].update(selector={"app": "x"}), "the Service selects"),
    ("two replicas", lambda o: o[0]["spec"].update(replicas=2), "2 replicas rendered, 3 expected"),
    ("metrics unset", lambda o: container(o)["ports"].append({"name": "metrics", "containerPort": 9100}), "metrics"),
]


def test_a_kept_rendering_passes() -> None:
    said: list[str] = []
    rendered.check(kept(), 3, said.append)
    assert len(said) == 8 and "Redis set" in said[5]


@pytest.mark.parametrize(("case", "breaking", "words"), BROKEN, ids=[case for case, _, _ in BROKEN])
def test_a_broken_rendering_fails_saying_why(case: str, breaking: Callable[[Objects], object], words: str) -> None:
    objects = kept()
    breaking(objects)
    with pytest.raises(rendered.ChartFailure, match=words):
        rendered.check(objects, 3, lambda _: None)


def test_the_refusals_cover_the_server_rules() -> None:
    """Each refusal the chart renders is one of its own sentences (the words are in the templates)."""
    helpers = (rendered.CHART / "templates" / "_helpers.tpl").read_text(encoding="utf-8")
    assert all(words in helpers for _, words in rendered.REFUSALS)
