"""What the Helm chart's rendered objects promise (`task chart` runs it on `helm template`'s output; not part of
`task check`, which has no helm).

    python -m tests.chart.rendered --replicas 1 default.yaml
    python -m tests.chart.rendered --replicas 3 three.yaml --helm /path/to/helm

Each file is one `helm template` rendering. Checked: the pod runs as a fixed non-root uid with a read-only root file
system, no privilege escalation, every capability dropped and the runtime's seccomp profile; liveness and readiness
probe /healthz on the named port the server listens on (GITEA_MCP_PORT, on the pod's address); resources are set;
every secret comes from a Secret by reference (secretKeyRef), none is inlined, no Secret object is rendered and a
Redis URL given as a value holds no password; the replica count is the one expected, and with more than one the
write guard's Redis is set (unless read-only without sign-in), a PodDisruptionBudget keeps all but its
maxUnavailable serving and selects exactly the Deployment's pods, an autoscaler (if any) targets the Deployment;
the Service selects the pods and reaches a named container port; metrics, when on, have a named port, on the pod's
address, on the Service too. With --helm, the chart's refusals are rendered as well: each must fail, saying why.
Each check prints one line; the last says passed or failed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

CHART = Path(__file__).resolve().parents[2] / "deploy" / "helm" / "gitea-issues-mcp"
# The settings that are secrets (gitea_mcp/cli/main.py declares them secret=True), and the Redis URL, which may hold
# a password: each must come from a Secret, never as a value.
SECRET_ENV = {
    "GITEA_TOKEN",
    "GITEA_ACCESS_TOKEN",
    "GITEA_MCP_HTTP_SECRET",
    "GITEA_MCP_OAUTH_KEY",
    "GITEA_MCP_OAUTH_CLIENT_SECRET",
}
PASSWORD_IN_URL = re.compile(r"^[a-z]+://[^/@]*:[^/@]*@")
HEALTH_PATH = "/healthz"  # gitea_mcp/server/http.py's route for probes
# Renders the chart must refuse, each with the words its message must carry.
REFUSALS: list[tuple[list[str], str]] = [
    (["--set", "replicaCount=3"], "need Redis, which is off"),
    (["--set", "autoscaling.enabled=true"], "need Redis, which is off"),
    (["--set", "server.workers=2"], "Redis is off"),
    (["--set", "redis.url=redis://:hunter2@redis:6379/0"], "redis.url holds a password"),
    (["--set", "secrets.httpSecret.existingSecret=http"], "secrets.token is not"),
    (["--set", "signin.publicUrl=https://mcp.example.com"], "signin.oauthClientId together"),
    (["--set", "server.env.GITEA_TOKEN=abc"], "set it there (a secret under secrets or redis)"),
    (["--set", "gitea.url="], "gitea.url is empty"),
]


class ChartFailure(Exception):
    """A promise the rendered chart does not keep; the message says which and what was rendered."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.chart.rendered", description=__doc__.split("\n")[0])
    parser.add_argument("rendered", type=Path, help="one `helm template` output")
    parser.add_argument("--replicas", type=int, required=True, help="the replica count these values must give")
    parser.add_argument("--helm", help="helm, to render the refusals too (with --values, the values they start from)")
    parser.add_argument("--values", type=Path, default=CHART.parent / "values-required.yaml")
    args = parser.parse_args(argv)
    count = 0

    def passed(what: str) -> None:
        nonlocal count
        count += 1
        print(f"ok {count}: {what}", flush=True)

    try:
        check(objects(args.rendered.read_text(encoding="utf-8")), args.replicas, passed)
        if args.helm:
            refusals(args.helm, args.values, passed)
    except ChartFailure as failure:
        print(f"chart check FAILED ({args.rendered.name}): {failure}", flush=True)
        return 1
    print(f"chart check passed: {count} checks ({args.rendered.name})", flush=True)
    return 0


def objects(text: str) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(text) if document]


def check(rendered: list[dict[str, Any]], replicas: int, passed: Callable[[str], None]) -> None:
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for item in rendered:
        by_kind.setdefault(item["kind"], []).append(item)
    if "Secret" in by_kind:
        raise ChartFailure("the chart rendered a Secret: secrets are referenced by name, never rendered")
    deployment = only(by_kind, "Deployment")
    service = only(by_kind, "Service")
    passed(f"objects: {', '.join(sorted(f'{len(v)} {k}' for k, v in by_kind.items()))}; no Secret")
    pod = deployment["spec"]["template"]
    container = only_container(pod)
    hardened(pod["spec"], container, passed)
    env = environment(container)
    probes(container, env, passed)
    if not (container.get("resources", {}).get("requests") and container["resources"].get("limits")):
        raise ChartFailure(f"the container has no requests and limits: {container.get('resources')}")
    passed(f"resources: requests {container['resources']['requests']}, limits {container['resources']['limits']}")
    secrets(container, passed)
    scaled(deployment, by_kind, env, replicas, passed)
    served(service, pod, container, passed)
    metrics(service, container, env, passed)


def only(by_kind: dict[str, list[dict[str, Any]]], kind: str) -> dict[str, Any]:
    found = by_kind.get(kind, [])
    if len(found) != 1:
        raise ChartFailure(f"{len(found)} {kind} objects rendered, not one")
    return found[0]


def only_container(pod: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = pod["spec"]["containers"]
    if len(containers) != 1 or pod["spec"].get("initContainers"):
        raise ChartFailure(f"the pod has {len(containers)} containers and init containers; the chart promises one")
    return containers[0]


def hardened(spec: dict[str, Any], container: dict[str, Any], passed: Callable[[str], None]) -> None:
    pod_context = spec.get("securityContext") or {}
    context = container.get("securityContext") or {}
    uid = context.get("runAsUser", pod_context.get("runAsUser"))
    wants: list[tuple[str, bool]] = [
        ("runAsNonRoot", pod_context.get("runAsNonRoot") is True and context.get("runAsNonRoot", True) is True),
        ("a numeric uid other than 0", isinstance(uid, int) and uid > 0),
        ("readOnlyRootFilesystem", context.get("readOnlyRootFilesystem") is True),
        ("allowPrivilegeEscalation: false", context.get("allowPrivilegeEscalation") is False),
        ("privileged: false (or unset)", context.get("privileged", False) is False),
        ("capabilities drop ALL, add none", context.get("capabilities") == {"drop": ["ALL"]}),
        (
            "seccomp RuntimeDefault",
            (context.get("seccompProfile") or pod_context.get("seccompProfile") or {}).get("type") == "RuntimeDefault",
        ),
        ("no service account token", spec.get("automountServiceAccountToken") is False),
        ("no host network, PID or IPC", not any(spec.get(k) for k in ("hostNetwork", "hostPID", "hostIPC"))),
    ]
    missing = [what for what, held in wants if not held]
    if missing:
        raise ChartFailure(f"the pod is not locked down: {', '.join(missing)} (pod {pod_context}, container {context})")
    passed(f"locked down: uid {uid}, {', '.join(what for what, _ in wants)}")


def environment(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    env: dict[str, dict[str, Any]] = {}
    for entry in container.get("env", []):
        if entry["name"] in env:
            raise ChartFailure(f"{entry['name']} is set twice in the container's env")
        env[entry["name"]] = entry
    return env


def value(env: dict[str, dict[str, Any]], name: str) -> str | None:
    entry = env.get(name)
    return None if entry is None or "value" not in entry else str(entry["value"])


def named_port(container: dict[str, Any], port: object) -> int:
    for entry in container.get("ports", []):
        if port in (entry.get("name"), entry["containerPort"]):
            number: int = entry["containerPort"]
            return number
    raise ChartFailure(f"the container has no port {port!r}: {container.get('ports')}")


def probes(container: dict[str, Any], env: dict[str, dict[str, Any]], passed: Callable[[str], None]) -> None:
    listens = value(env, "GITEA_MCP_PORT")
    if value(env, "GITEA_MCP_TRANSPORT") != "http" or value(env, "GITEA_MCP_HOST") != "0.0.0.0" or listens is None:
        raise ChartFailure("the server is not set to HTTP on the pod's address (GITEA_MCP_TRANSPORT, _HOST, _PORT)")
    for kind in ("readinessProbe", "livenessProbe"):
        probe = (container.get(kind) or {}).get("httpGet") or {}
        if probe.get("path") != HEALTH_PATH or str(named_port(container, probe.get("port"))) != listens:
            raise ChartFailure(f"{kind} is not GET {HEALTH_PATH} on the server's port ({listens}): {probe}")
    passed(f"readiness and liveness: GET {HEALTH_PATH} on port {listens}, where the server listens (0.0.0.0)")


def secrets(container: dict[str, Any], passed: Callable[[str], None]) -> None:
    referenced = []
    for entry in container.get("env", []):
        name = entry["name"]
        if name in SECRET_ENV or name == "GITEA_MCP_REDIS_URL":
            reference = (entry.get("valueFrom") or {}).get("secretKeyRef") or {}
            if "value" in entry:
                if name in SECRET_ENV or PASSWORD_IN_URL.match(str(entry["value"])):
                    raise ChartFailure(f"{name} is inlined in the Deployment; it must come from a Secret")
                continue  # a Redis URL without a password
            if not (reference.get("name") and reference.get("key")):
                raise ChartFailure(f"{name} is neither a value nor a Secret's key: {entry}")
            referenced.append(f"{name} from {reference['name']}/{reference['key']}")
    if container.get("envFrom"):
        raise ChartFailure("the container takes envFrom: every setting is named, so none arrives unchecked")
    passed(f"secrets referenced, none inlined: {'; '.join(referenced) or 'none set (each caller brings a token)'}")


def scaled(
    deployment: dict[str, Any],
    by_kind: dict[str, list[dict[str, Any]]],
    env: dict[str, dict[str, Any]],
    replicas: int,
    passed: Callable[[str], None],
) -> None:
    autoscaler = by_kind.get("HorizontalPodAutoscaler", [])
    if autoscaler:
        spec = autoscaler[0]["spec"]
        target = spec["scaleTargetRef"]
        if (target["kind"], target["name"]) != ("Deployment", deployment["metadata"]["name"]):
            raise ChartFailure(f"the autoscaler targets {target}, not the Deployment")
        if "replicas" in deployment["spec"]:
            raise ChartFailure("the Deployment sets replicas beside an autoscaler, which would fight it")
        least, most = int(spec["minReplicas"]), int(spec["maxReplicas"])
    else:
        least = most = int(deployment["spec"].get("replicas", 1))
    if least != replicas:
        raise ChartFailure(f"{least} replicas rendered, {replicas} expected")
    shared = value(env, "GITEA_READ_ONLY") != "true" or "GITEA_MCP_PUBLIC_URL" in env
    if most > 1 and shared and "GITEA_MCP_REDIS_URL" not in env:
        raise ChartFailure(f"up to {most} replicas with writes or sign-in, and no GITEA_MCP_REDIS_URL")
    budgets = by_kind.get("PodDisruptionBudget", [])
    if least > 1:
        if len(budgets) != 1:
            raise ChartFailure(f"{least} replicas and {len(budgets)} PodDisruptionBudgets, not one")
        budget = budgets[0]["spec"]
        pods = deployment["spec"]["selector"]["matchLabels"]
        if budget["selector"] != {"matchLabels": pods}:
            raise ChartFailure(f"the budget selects {budget['selector']}, not the Deployment's pods {pods}")
        if "maxUnavailable" not in budget or not 1 <= int(budget["maxUnavailable"]) < least:
            raise ChartFailure(f"the budget's maxUnavailable must be from 1 to {least - 1}: {budget}")
    elif budgets:
        raise ChartFailure("one replica under a PodDisruptionBudget: every node drain would block on it")
    rolling = deployment["spec"]["strategy"].get("rollingUpdate") or {}
    if shared and "GITEA_MCP_REDIS_URL" not in env and rolling.get("maxSurge") != 0:
        raise ChartFailure(f"without Redis a rollout must not run two pods at once (maxSurge 0): {rolling}")
    guard = "Redis set" if "GITEA_MCP_REDIS_URL" in env else "no Redis, rollouts one pod at a time"
    budget_line = f"maxUnavailable {budgets[0]['spec']['maxUnavailable']}" if budgets else "no disruption budget"
    passed(f"replicas {least}..{most} ({'autoscaler' if autoscaler else 'fixed'}), {guard}, {budget_line}")


Passed = Callable[[str], None]


def served(service: dict[str, Any], pod: dict[str, Any], container: dict[str, Any], passed: Passed) -> None:
    selector = service["spec"]["selector"]
    labels = pod["metadata"]["labels"]
    if not selector or any(labels.get(key) != wanted for key, wanted in selector.items()):
        raise ChartFailure(f"the Service selects {selector}, which the pods' labels {labels} do not match")
    ports = {entry["name"]: named_port(container, entry["targetPort"]) for entry in service["spec"]["ports"]}
    passed(f"the Service selects the pods and reaches ports {ports}")


def metrics(service: dict[str, Any], container: dict[str, Any], env: dict[str, dict[str, Any]], passed: Passed) -> None:
    port = value(env, "GITEA_MCP_METRICS_PORT")
    if port is None:
        if any(entry.get("name") == "metrics" for entry in container.get("ports", [])):
            raise ChartFailure("a metrics port is exposed but GITEA_MCP_METRICS_PORT is not set")
        passed("metrics off: no metrics port")
        return
    if str(named_port(container, "metrics")) != port or value(env, "GITEA_MCP_METRICS_ADDRESS") != "0.0.0.0":
        raise ChartFailure(f"metrics on port {port} but not as the container's port named metrics on 0.0.0.0")
    if not any(entry["name"] == "metrics" for entry in service["spec"]["ports"]):
        raise ChartFailure("metrics are on but the Service has no port named metrics")
    passed(f"metrics on port {port} (named metrics, on the pod's address), on the Service too")


def refusals(helm: str, values: Path, passed: Callable[[str], None]) -> None:
    for flags, words in REFUSALS:
        done = subprocess.run(
            [helm, "template", "t", str(CHART), "-f", str(values), *flags],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode == 0 or words not in done.stderr:
            raise ChartFailure(f"helm template {' '.join(flags)} was not refused with {words!r}: {done.stderr[:300]}")
        said = next(line for line in done.stderr.splitlines() if words in line)
        passed(f"refused {' '.join(flags)}: {said.split('): ', 1)[-1]}")


if __name__ == "__main__":
    sys.exit(main())
