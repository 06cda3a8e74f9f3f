"""Smoke test of the container image (`task image` runs it; not part of `task check`: CI has no Docker engine).

    python -m tests.image.smoke --image gitea-issues-mcp:dev

Starts the Gitea stand-in here, in this process, on 127.0.0.1, then the image with `--network host` on a reserved
port of 127.0.0.1 pointed at it, and checks what an operator relies on: /healthz answers 200, the server runs as a
user other than root, MCP works over streamable HTTP with the caller's own token (initialize, tools/list, one
tools/call that reads the stand-in's seeded acme/widgets), a request without a token is refused before Gitea sees
it, Docker's own HEALTHCHECK reports healthy, and `docker stop` ends the server quietly; all with a read-only
root file system and no capabilities, as docs/operators.md runs it in Kubernetes. The container is removed
whatever happens. Each check prints one line; the last line says passed or failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import requests

from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.support.ports import reserved_port
from tests.support.waiting import NeverHappened, wait_until

PROTOCOL = "2025-11-25"
STARTUP_SECONDS = 60.0  # a cold start on a loaded 2-core machine, with room to spare
HEALTHY_SECONDS = 30.0
# The quiet ends of a stop: SIGTERM (143, gitea_mcp/cli/main.py) or a clean 0.
QUIET_EXITS = (0, 143)


class SmokeFailure(Exception):
    """A check did not hold; the message says which and what was seen."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.image.smoke", description="Smoke test of the image.")
    parser.add_argument("--image", required=True, help="the image to test, e.g. gitea-issues-mcp:dev")
    parser.add_argument("--docker", default=os.environ.get("DOCKER", "docker"), help="the container engine's CLI")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        count = run(args.image, args.docker)
    except SmokeFailure as failure:
        print(f"smoke test FAILED: {failure}", flush=True)
        return 1
    print(f"smoke test passed: {count} checks in {time.monotonic() - started:.1f} s ({args.image})", flush=True)
    return 0


def run(image: str, docker: str) -> int:
    checks = 0

    def passed(what: str) -> None:
        nonlocal checks
        checks += 1
        print(f"ok {checks}: {what}", flush=True)

    with StandIn() as forge, container(docker, image, forge.url) as (name, base):
        wait_for_health(base, lambda: alive(docker, name))
        passed(f"GET {base}/healthz answered 200")
        uid = docker_out(docker, "exec", name, "id", "-u")
        if uid in ("", "0"):
            raise SmokeFailure(f"the server runs as uid {uid or '?'}; the image must run as a user other than root")
        passed(f"the server runs as uid {uid}, not root ({docker_out(docker, 'exec', name, 'id', '-un')})")
        version = docker_out(docker, "exec", name, "python3", "-c", "import redis; print(redis.__version__)")
        passed(f"the redis extra is installed (redis {version}), for GITEA_MCP_REDIS_URL")
        talk_mcp(base, forge, passed)
        wait_healthy(docker, name)
        passed("Docker's HEALTHCHECK reports the container healthy")
        code = stop(docker, name)
        passed(f"docker stop ended the server quietly (exit {code})")
    return checks


@contextmanager
def container(docker: str, image: str, gitea_url: str) -> Iterator[tuple[str, str]]:
    """The image running with host networking on a loopback port reserved for it (the health check inside reads
    GITEA_MCP_PORT, so the port is named, not 0), read-only and without capabilities, the health check every second
    (the image's own interval is 30 s); removed on the way out, logs shown first if something failed."""
    with reserved_port() as port:
        yield from _container(docker, image, gitea_url, port)


def _container(docker: str, image: str, gitea_url: str, port: int) -> Iterator[tuple[str, str]]:
    name = f"gitea-mcp-smoke-{os.getpid()}"
    settings = {
        "GITEA_URL": gitea_url,
        "GITEA_ALLOWED_OWNERS": "acme,demo",
        "GITEA_MCP_HOST": "127.0.0.1",  # host networking: never listen beyond this machine
        "GITEA_MCP_PORT": str(port),
    }
    env_flags = [flag for key, value in settings.items() for flag in ("-e", f"{key}={value}")]
    # Locked down as docs/operators.md's Kubernetes example runs it: a read-only root, no capabilities.
    hardening = ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
    run = ["run", "-d", "--name", name, "--network", "host", "--health-interval", "1s", *hardening, *env_flags]
    docker_out(docker, *run, image)
    print(f"started {image} as {name} on 127.0.0.1:{port}, Gitea stand-in at {gitea_url}", flush=True)
    ok = False
    try:
        yield name, f"http://127.0.0.1:{port}"
        ok = True
    finally:
        if not ok:
            logs = subprocess.run([docker, "logs", name], capture_output=True, text=True, timeout=30, check=False)
            print(f"container logs:\n{logs.stdout}{logs.stderr}", flush=True)
        subprocess.run([docker, "rm", "-f", name], capture_output=True, timeout=60, check=False)


def talk_mcp(base: str, forge: StandIn, passed: Callable[[str], None]) -> None:
    """initialize, tools/list and issue_list on acme/widgets, each with the caller's own token; then no token."""
    init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "image-smoke", "version": "1"}}
    result = rpc(base, "initialize", init)
    server = result.get("serverInfo", {})
    if result.get("protocolVersion") != PROTOCOL:
        raise SmokeFailure(f"initialize answered protocol {result.get('protocolVersion')!r}, not {PROTOCOL}")
    passed(f"initialize: {server.get('name')} {server.get('version')}, protocol {PROTOCOL}")
    names = {tool["name"] for tool in rpc(base, "tools/list")["tools"]}
    if not {"issue_list", "issue_get", "issue_create"} <= names:
        raise SmokeFailure(f"tools/list lacks the issue tools: {sorted(names)}")
    passed(f"tools/list: {len(names)} tools ({', '.join(sorted(names))})")
    forge.clear_requests()
    listed = rpc(base, "tools/call", {"name": "issue_list", "arguments": {"owner": "acme", "name": "widgets"}})
    structured = listed.get("structuredContent") or {}
    issues: list[dict[str, Any]] = structured.get("issues") or []
    if listed.get("isError") or not issues:
        raise SmokeFailure(f"issue_list on acme/widgets failed: {json.dumps(listed)[:500]}")
    who = {request.authorized_as for request in forge.requests}
    if who != {"demo"}:
        raise SmokeFailure(f"the stand-in saw the requests made as {who}, not as the caller's token (demo)")
    passed(f"tools/call issue_list acme/widgets: {len(issues)} issues, first #{issues[0]['number']}, read as demo")
    forge.clear_requests()
    refused = post(base, "tools/list", {}, token=None)
    if refused.status_code != 401 or forge.requests:
        raise SmokeFailure(f"a request without a token got {refused.status_code}, and Gitea saw {len(forge.requests)}")
    passed("a request without a token: 401, and nothing reached Gitea")


def rpc(base: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    response = post(base, method, params or {}, token=DEMO_TOKEN)
    if response.status_code != 200:
        raise SmokeFailure(f"{method} answered HTTP {response.status_code}: {response.text[:300]}")
    answer = response.json()
    if "result" not in answer:
        raise SmokeFailure(f"{method} answered no result: {json.dumps(answer)[:300]}")
    result: dict[str, Any] = answer["result"]
    return result


def post(base: str, method: str, params: dict[str, Any], token: str | None) -> requests.Response:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return requests.post(f"{base}/mcp", json=body, headers=headers, timeout=30)


def wait_for_health(base: str, alive: Callable[[], bool]) -> None:
    seen = ["no answer"]

    def healthy() -> bool:
        if not alive():
            raise SmokeFailure(f"the container exited before /healthz answered (last: {seen[-1]})")
        try:
            response = requests.get(f"{base}/healthz", timeout=2)
        except requests.RequestException as exc:
            seen.append(type(exc).__name__)
            return False
        seen.append(f"HTTP {response.status_code}")
        return response.status_code == 200 and response.json() == {"status": "ok"}

    try:
        wait_until(healthy, STARTUP_SECONDS, "/healthz answering 200", poll=0.5)
    except NeverHappened:
        raise SmokeFailure(f"/healthz did not answer 200 within {STARTUP_SECONDS:.0f} s (last: {seen[-1]})") from None


def wait_healthy(docker: str, name: str) -> None:
    started = time.monotonic()
    status = ["?"]

    def settled() -> bool:  # healthy, or unhealthy: no use waiting longer
        status.append(docker_out(docker, "inspect", "--format", "{{.State.Health.Status}}", name))
        return status[-1] in ("healthy", "unhealthy")

    with suppress(NeverHappened):
        wait_until(settled, HEALTHY_SECONDS, "Docker's HEALTHCHECK settling", poll=1)
    if status[-1] != "healthy":
        waited = time.monotonic() - started
        raise SmokeFailure(f"Docker's HEALTHCHECK says {status[-1]!r} after {waited:.0f} s, not healthy")


def stop(docker: str, name: str) -> int:
    docker_out(docker, "stop", "--time", "15", name)
    code = int(docker_out(docker, "inspect", "--format", "{{.State.ExitCode}}", name))
    if code not in QUIET_EXITS:
        raise SmokeFailure(f"docker stop ended the server with exit {code}, not quietly ({QUIET_EXITS})")
    return code


def alive(docker: str, name: str) -> bool:
    return docker_out(docker, "inspect", "--format", "{{.State.Running}}", name) == "true"


def docker_out(docker: str, *args: str) -> str:
    command = [docker, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise SmokeFailure(f"`{' '.join(command[:3])} …` failed: {done.stderr.strip()[:300]}")
    return done.stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
