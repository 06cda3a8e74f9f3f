"""Three replicas of the image behind a load balancer, with one real redis-server (`task replicas`; not part of
`task check`: it needs a Docker engine and the image that `task image` builds).

    python -m tests.replicas.run --image gitea-issues-mcp:dev [--calls 90] [--threads 6]

Starts here, on 127.0.0.1: the Gitea stand-in (in this process), a redis-server on a reserved port with a password,
the image three times (`--network host`, read-only, no capabilities, each on its own reserved port, all with
GITEA_MCP_REDIS_URL naming that Redis), and a plain round-robin TCP balancer in front of them
(tests/replicas/balancer.py). Callers use their own tokens. It shows, each check printing one line:

1. every replica is healthy, and the balancer spreads connections over all three;
2. the same issue_create, retried through different replicas while the first is still being sent, files one issue
   (one POST reaches the forge) and every try names it; a later retry says it already existed;
3. (after the metrics change is in) each replica serves its own metrics;
4. under load (distinct creates from several threads, each retried by its client until it has an answer, as an
   agent would), one replica is killed (SIGKILL) while calls are in flight on it: every create files exactly one
   issue, none is lost;
5. the replica that sent a create the forge has filed is killed before it answers (a proxy between the replicas
   and the forge holds that answer): the client's retry on another replica finds the issue, and files nothing;
6. on three fresh replicas, one user's calls per minute are counted once.

The last line gives the figures and says passed or failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests

from gitea_mcp.standin import DEMO_TOKEN, Fault, StandIn
from tests.image.smoke import PROTOCOL, SmokeFailure, alive, docker_out, wait_for_health
from tests.replicas.balancer import Balancer, balancer
from tests.support.ports import reserved_port
from tests.support.processes import stop
from tests.support.proxy import Proxy, _Server
from tests.support.waiting import NeverHappened, wait_until

METRICS_PORT = "GITEA_MCP_METRICS_PORT"
METRICS = {METRICS_PORT: "each"}
REPLICAS = 3
REDIS_PASSWORD = "replicas-guard-pw-3"
FORGE_TIMEOUT = "3"  # GITEA_TIMEOUT: a dead replica's write lock lapses after 4 x 3 + 15 = 27 s, not 135 s
CALL_SECONDS = 60.0  # one HTTP request's limit: above a waiting write's own deadline
ANSWER_SECONDS = 120.0  # a client's retries for one call: above the lease of a lock a killed replica held
FORGE_LATENCY = 0.2  # seconds the stand-in takes per request, so that writes are in flight when the kill comes
KILL_IN_FLIGHT = 2  # the victim is killed with at least this many calls in flight on it
PER_MINUTE = 5  # GITEA_MCP_CALLS_PER_MINUTE for check 5


class HoldingProxy(Proxy):
    """Between the replicas and the forge: passes everything on; once armed, the next create's answer is held after
    the forge has filed the issue, until released — so a replica can be killed with its write done and unanswered."""

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.armed = threading.Event()
        self.committed = threading.Event()
        self.release = threading.Event()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        answer = super().forward(method, path, headers, body)
        if method == "POST" and path.split("?")[0].endswith("/issues") and self.armed.is_set():
            self.armed.clear()
            self.committed.set()
            self.release.wait(ANSWER_SECONDS)
        return answer


class _QuietServer(_Server):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """The held answer's replica was killed on purpose: its socket is gone, and saying so is noise."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def holding_proxy(upstream: str) -> Iterator[HoldingProxy]:
    proxy = HoldingProxy(upstream)
    server = _QuietServer(proxy)
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class Failed(Exception):
    """A check did not hold; the message says which and what was seen."""


@dataclass
class Replica:
    name: str
    port: int
    metrics_port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Tally:
    """What the clients did under load: requests sent, and why some had to be sent again."""

    requests: int = 0
    cut: int = 0  # the connection failed or was cut (the replica died under it)
    statuses: Counter[int] = field(default_factory=Counter)  # HTTP statuses other than 200
    tool_errors: Counter[str] = field(default_factory=Counter)  # first words of tool errors that were retried
    slowest: float = 0.0
    retried: Counter[str] = field(default_factory=Counter)  # outcomes of the calls sent more than once
    lock: threading.Lock = field(default_factory=threading.Lock)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.replicas.run", description=__doc__.split("\n")[0])
    parser.add_argument("--image", required=True, help="the image to test, e.g. gitea-issues-mcp:dev")
    parser.add_argument("--docker", default=os.environ.get("DOCKER", "docker"), help="the container engine's CLI")
    # More than 50 creates in one repository within a dead replica's lease outrun the duplicate check's one page
    # (docs/operators.md, "Helm chart and three replicas"): 45 stays inside what the server promises.
    parser.add_argument("--calls", type=int, default=45, help="distinct creates in the load with the kill")
    parser.add_argument("--threads", type=int, default=6, help="clients sending them at once")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        count, figures = run(args.image, args.docker, args.calls, args.threads)
    except (Failed, SmokeFailure) as failure:
        print(f"replicas test FAILED: {failure}", flush=True)
        return 1
    print(f"replicas test passed: {count} checks in {time.monotonic() - started:.1f} s ({args.image})")
    print(f"figures: {json.dumps(figures)}", flush=True)
    return 0


def run(image: str, docker: str, calls: int, threads: int) -> tuple[int, dict[str, Any]]:
    checks = 0
    figures: dict[str, Any] = {"replicas": REPLICAS, "image": image}

    def passed(what: str) -> None:
        nonlocal checks
        checks += 1
        print(f"ok {checks}: {what}", flush=True)

    with ExitStack() as stack:
        forge = stack.enter_context(StandIn(latency=FORGE_LATENCY))
        between = stack.enter_context(holding_proxy(forge.url))
        redis_url = stack.enter_context(redis_server())
        # The load runs without the limits (one user's 45 creates a minute is what they stop); check 6 starts three
        # replicas of its own with the limit set.
        unlimited = {"GITEA_MCP_CALLS_PER_MINUTE": "0", "GITEA_MCP_FORGE_REQUESTS_PER_MINUTE": "0"}
        settings = unlimited | METRICS
        replicas = stack.enter_context(containers(docker, image, between.url, redis_url, settings))
        lb = stack.enter_context(balancer([("127.0.0.1", replica.port) for replica in replicas]))
        print(f"balancer at {lb.url} in front of {', '.join(r.url for r in replicas)}", flush=True)
        healthy(lb, replicas, docker, passed)
        figures["retried_write"] = retried_write(lb, forge, passed)
        metrics_from_each(replicas, passed)
        figures["memory"] = memory(docker, replicas)
        figures["kill_under_load"] = kill_under_load(lb, forge, docker, replicas, calls, threads, passed)
        figures["kill_after_the_write"] = kill_after_the_write(lb, forge, between, docker, replicas, passed)
        limited = {"GITEA_MCP_CALLS_PER_MINUTE": str(PER_MINUTE)}
        fresh = stack.enter_context(containers(docker, image, forge.url, redis_url, limited, "limited"))
        lb_limited = stack.enter_context(balancer([("127.0.0.1", replica.port) for replica in fresh]))
        limits_shared(lb_limited, passed)
    return checks, figures


# -- the processes ---------------------------------------------------------------------------------------------


@contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server on a reserved loopback port (the containers share the host's network), with a password, no
    persistence; stopped by its pid."""
    command = shutil.which("redis-server")
    if command is None:
        raise Failed("redis-server is not installed (apt-get install redis-server)")
    with reserved_port() as port:
        flags = ["--port", str(port), "--bind", "127.0.0.1", "--requirepass", REDIS_PASSWORD]
        process = subprocess.Popen(
            [command, *flags, "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        url = f"redis://:{REDIS_PASSWORD}@127.0.0.1:{port}/0"
        try:
            wait_until(lambda: _redis_answers(url, process), 10, "redis-server answering")
            yield url
        finally:
            stop(process, 5)


def _redis_answers(url: str, process: subprocess.Popen[bytes]) -> bool:
    import redis

    if process.poll() is not None:
        raise Failed(f"redis-server ended at once (exit {process.returncode})")
    client = redis.Redis.from_url(url, socket_timeout=1)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
    finally:
        client.close()


@contextmanager
def containers(
    docker: str, image: str, forge: str, redis_url: str, extra: dict[str, str], kind: str = "replica"
) -> Iterator[list[Replica]]:
    with ExitStack() as stack:
        replicas = []
        for index in range(REPLICAS):
            port = stack.enter_context(reserved_port())
            metrics_port = stack.enter_context(reserved_port())
            replica = Replica(f"gitea-mcp-{kind}-{os.getpid()}-{index}", port, metrics_port)
            settings = {
                "GITEA_URL": forge,
                "GITEA_ALLOWED_OWNERS": "acme,demo",
                "GITEA_TIMEOUT": FORGE_TIMEOUT,
                "GITEA_MCP_HOST": "127.0.0.1",  # host networking: never beyond this machine
                "GITEA_MCP_PORT": str(port),
                "GITEA_MCP_REDIS_URL": redis_url,
                **{key: value for key, value in extra.items() if key != METRICS_PORT},
            }
            if extra.get(METRICS_PORT) == "each":  # a port of its own for each replica, on loopback
                settings |= {"GITEA_MCP_METRICS_ADDRESS": "127.0.0.1", METRICS_PORT: str(metrics_port)}
            flags = [flag for key, value in settings.items() for flag in ("-e", f"{key}={value}")]
            hardening = ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
            stack.callback(_remove, docker, replica.name)
            docker_out(docker, "run", "-d", "--name", replica.name, "--network", "host", *hardening, *flags, image)
            replicas.append(replica)
        for replica in replicas:
            wait_for_health(replica.url, lambda r=replica: alive(docker, r.name))  # type: ignore[misc]
        yield replicas


def _remove(docker: str, name: str) -> None:
    subprocess.run([docker, "rm", "-f", name], capture_output=True, timeout=60, check=False)


# -- MCP over HTTP ---------------------------------------------------------------------------------------------


def post(base: str, method: str, params: dict[str, Any], token: str = DEMO_TOKEN) -> requests.Response:
    """One JSON-RPC request on a connection of its own (no session): the balancer routes each anew."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL,
        "Authorization": f"Bearer {token}",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return requests.post(f"{base}/mcp", json=body, headers=headers, timeout=CALL_SECONDS)


def call(base: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    response = post(base, "tools/call", {"name": tool, "arguments": arguments})
    if response.status_code != 200:
        raise Failed(f"{tool} answered HTTP {response.status_code}: {response.text[:300]}")
    result: dict[str, Any] = response.json()["result"]
    return result


def filed(forge: StandIn, title: str) -> list[int]:
    with forge.store.lock:
        return sorted(issue.number for issue in forge.store.issues.values() if issue.title == title)


def posts(forge: StandIn) -> int:
    return sum(r.method == "POST" and r.path.endswith("/issues") for r in list(forge.requests))


# -- the checks ------------------------------------------------------------------------------------------------


def healthy(lb: Balancer, replicas: list[Replica], docker: str, passed: Callable[[str], None]) -> None:
    before = len(lb.routed)
    for _ in range(REPLICAS * 2):
        response = requests.get(f"{lb.url}/healthz", timeout=10)
        if response.status_code != 200:
            raise Failed(f"/healthz through the balancer answered {response.status_code}")
    spread = Counter(lb.routed[before:])
    if sorted(spread) != list(range(REPLICAS)):
        raise Failed(f"the balancer reached only replicas {sorted(spread)}")
    uids = {docker_out(docker, "exec", replica.name, "id", "-u") for replica in replicas}
    if "0" in uids:
        raise Failed("a replica runs as root")
    init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "replicas", "version": "1"}}
    if post(lb.url, "initialize", init).status_code != 200:
        raise Failed("initialize through the balancer failed")
    passed(f"{REPLICAS} replicas healthy as uid {', '.join(sorted(uids))}; the balancer spread 6 probes {dict(spread)}")


def retried_write(lb: Balancer, forge: StandIn, passed: Callable[[str], None]) -> dict[str, Any]:
    """The first try is slow at the forge (2 s); the agent, impatient, retries twice; the balancer sends each try
    to another replica. One POST, one issue, and every try names it."""
    title = f"i38 replicas: retried create {os.getpid()}"
    arguments = {"owner": "acme", "name": "widgets", "title": title, "body": "Sent once, retried through others."}
    forge.inject(Fault("delay", method="POST", path_contains="/issues", seconds=2.0, times=1))
    before_posts, before_routes = posts(forge), len(lb.routed)
    started = time.monotonic()
    with ThreadPoolExecutor(REPLICAS) as pool:
        first = pool.submit(call, lb.url, "issue_create", arguments)
        wait_until(lambda: posts(forge) > before_posts, 30, "the first try's POST reaching the forge")
        retries = [pool.submit(call, lb.url, "issue_create", arguments) for _ in range(REPLICAS - 1)]
        answers = [first.result(), *(retry.result() for retry in retries)]
    seconds = time.monotonic() - started
    routes = lb.routed[before_routes:]
    if len(set(routes)) != REPLICAS:
        raise Failed(f"the three tries went to replicas {routes}, not to three different ones")
    numbers = [answer.get("structuredContent", {}).get("number") for answer in answers]
    errors = [answer["content"][0]["text"] for answer in answers if answer.get("isError")]
    issues, sent = filed(forge, title), posts(forge) - before_posts
    if errors or len(issues) != 1 or sent != 1 or set(numbers) != set(issues):
        raise Failed(f"retried create: issues {issues}, POSTs {sent}, answers {numbers}, errors {errors}")
    later = call(lb.url, "issue_create", arguments)["structuredContent"]
    if later.get("number") != issues[0] or later.get("outcome") != "already_existed" or filed(forge, title) != issues:
        raise Failed(f"a retry after the first finished did not name #{issues[0]} as already existing: {later}")
    passed(
        f"the same create tried on replicas {routes} while the first was in flight: 1 POST, issue #{issues[0]} "
        f"named by all {REPLICAS} answers in {seconds:.1f} s; a 4th try later: already_existed"
    )
    return {"tries": REPLICAS + 1, "replicas": routes, "posts": sent, "issues": 1, "seconds": round(seconds, 2)}


def kill_under_load(
    lb: Balancer,
    forge: StandIn,
    docker: str,
    replicas: list[Replica],
    calls: int,
    threads: int,
    passed: Callable[[str], None],
) -> dict[str, Any]:
    """`calls` distinct creates from `threads` clients, each retried until it has an answer; the second replica is
    killed once a third of them are answered."""
    prefix = f"i38 replicas: load {os.getpid()}"
    tally = Tally()
    answered: list[dict[str, Any]] = []
    killed_at: list[float] = []
    victim = replicas[1]
    before_posts, before_routes = posts(forge), len(lb.routed)
    started = time.monotonic()

    def one(index: int) -> dict[str, Any]:
        arguments = {"owner": "acme", "name": "widgets", "title": f"{prefix} #{index}", "body": f"Load call {index}."}
        answer = until_answered(lb.url, arguments, tally)
        with tally.lock:
            answered.append(answer)
        return answer

    def kill() -> None:
        """Once a third are answered, at a moment the victim has calls in flight (the balancer sees them open)."""
        wait_until(
            lambda: len(answered) >= calls // 3 and lb.active[1] >= KILL_IN_FLIGHT, ANSWER_SECONDS, "calls in flight"
        )
        in_flight.append(lb.active[1])
        docker_out(docker, "kill", victim.name)  # SIGKILL: no drain, no goodbye
        killed_at.append(time.monotonic() - started)

    in_flight: list[int] = []
    with ThreadPoolExecutor(threads + 1) as pool:
        killer = pool.submit(kill)
        answers = list(pool.map(one, range(calls)))
        killer.result()
    seconds = time.monotonic() - started
    if not killed_at or alive(docker, victim.name):
        raise Failed(f"the kill did not happen (killed at {killed_at})")
    wrong = []
    for index, answer in enumerate(answers):
        issues = filed(forge, f"{prefix} #{index}")
        if len(issues) != 1 or answer.get("number") != issues[0]:
            wrong.append(f"#{index}: filed as {issues}, answered {answer.get('number')}")
    sent = posts(forge) - before_posts
    if wrong or sent != calls:
        raise Failed(f"after the kill: {len(wrong)} creates lost or doubled ({'; '.join(wrong[:5])}), {sent} POSTs")
    routes = Counter(lb.routed[before_routes:])
    outcomes = Counter(str(answer.get("outcome")) for answer in answers)
    passed(
        f"{calls} creates from {threads} clients, replica {victim.name[-1]} killed at {killed_at[0]:.1f} s with "
        f"{in_flight[0]} in flight: each "
        f"filed exactly once ({sent} POSTs), {tally.requests} requests, {tally.cut} cut by the kill and retried, "
        f"outcomes {dict(outcomes)} (of the retried: {dict(tally.retried)}), slowest {tally.slowest:.1f} s, "
        f"{seconds:.1f} s in all"
    )
    return {
        "calls": calls,
        "threads": threads,
        "seconds": round(seconds, 1),
        "killed_at_seconds": round(killed_at[0], 1),
        "in_flight_on_the_killed_replica": in_flight[0],
        "requests": tally.requests,
        "cut_by_the_kill": tally.cut,
        "other_statuses": dict(tally.statuses),
        "tool_errors_retried": dict(tally.tool_errors),
        "forge_posts": sent,
        "issues_filed": calls - len(wrong),
        "outcomes": dict(outcomes),
        "outcomes_of_retried_calls": dict(tally.retried),
        "slowest_call_seconds": round(tally.slowest, 1),
        "connections_by_replica": {str(k): v for k, v in sorted(routes.items())},
        "connections_refused_and_passed_on": lb.refused,
    }


def kill_after_the_write(
    lb: Balancer,
    forge: StandIn,
    between: HoldingProxy,
    docker: str,
    replicas: list[Replica],
    passed: Callable[[str], None],
) -> dict[str, Any]:
    """The worst moment: the forge has filed the issue, the replica that sent it dies before answering, holding the
    write's lock. The client's retry lands on another replica, waits out the lock's lease, and must find the issue
    filed (already_existed), not file it again."""
    title = f"i38 replicas: killed after the write {os.getpid()}"
    arguments = {"owner": "acme", "name": "widgets", "title": title, "body": "Filed, then its replica died."}
    tally = Tally()
    before_posts = posts(forge)
    between.armed.set()
    started = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(until_answered, lb.url, arguments, tally)
        wait_until(between.committed.is_set, 30, "the create reaching the forge")
        holder = next(index for index, count in lb.active.items() if count > 0)
        victim = replicas[holder]
        docker_out(docker, "kill", victim.name)
        between.release.set()
        content = answer.result()
    seconds = time.monotonic() - started
    issues, sent = filed(forge, title), posts(forge) - before_posts
    if issues != [content.get("number")] or sent != 1:
        raise Failed(f"killed after the write: issues {issues}, {sent} POSTs, answered {content}")
    passed(
        f"replica {holder} killed after its create reached the forge, before it answered: the retry on another "
        f"replica waited out the lock ({tally.requests} requests, {seconds:.1f} s) and answered #{issues[0]} "
        f"{content.get('outcome')}; 1 POST, 1 issue"
    )
    return {
        "killed_replica": holder,
        "requests": tally.requests,
        "cut": tally.cut,
        "tool_errors_retried": dict(tally.tool_errors),
        "seconds": round(seconds, 1),
        "outcome": content.get("outcome"),
        "forge_posts": sent,
        "issues_filed": len(issues),
    }


def until_answered(base: str, arguments: dict[str, Any], tally: Tally) -> dict[str, Any]:
    """As an agent retries: on a cut connection, a 5xx, or a tool error, send the same call again."""
    started = time.monotonic()
    tries = 0
    while time.monotonic() - started < ANSWER_SECONDS:
        tries += 1
        with tally.lock:
            tally.requests += 1
        try:
            response = post(base, "tools/call", {"name": "issue_create", "arguments": arguments})
        except requests.RequestException:
            with tally.lock:
                tally.cut += 1
            continue
        if response.status_code != 200:
            with tally.lock:
                tally.statuses[response.status_code] += 1
            continue
        result: dict[str, Any] = response.json()["result"]
        if result.get("isError"):
            with tally.lock:
                tally.tool_errors[" ".join(result["content"][0]["text"].split()[:6])] += 1
            continue
        with tally.lock:
            tally.slowest = max(tally.slowest, time.monotonic() - started)
            if tries > 1:  # the outcome of a call that had to be sent again
                tally.retried[str(result["structuredContent"].get("outcome"))] += 1
        content: dict[str, Any] = result["structuredContent"]
        return content
    raise Failed(f"{arguments['title']} had no answer within {ANSWER_SECONDS:.0f} s of retries")


def memory(docker: str, replicas: list[Replica]) -> dict[str, str]:
    names = [replica.name for replica in replicas]
    out = docker_out(docker, "stats", "--no-stream", "--format", "{{.Name}} {{.MemUsage}}", *names)
    return {line.split()[0][-1]: line.split(" ", 1)[1] for line in out.splitlines()}


# -- metrics from each replica, and the per-user limit shared ------------------------------------------------


def metrics_from_each(replicas: list[Replica], passed: Callable[[str], None]) -> None:
    """Each replica's own metrics port answers in the Prometheus text format, parsed by the library's own parser,
    and counts the tool calls that replica served (gitea_mcp_tool_calls_total: the checks above sent some to each).
    The image must carry the metrics extra (prometheus-client) for the port to open."""
    from prometheus_client.parser import text_string_to_metric_families as parse

    served = {}
    for replica in replicas:
        text = requests.get(f"http://127.0.0.1:{replica.metrics_port}/metrics", timeout=10).text
        families = {family.name: family for family in parse(text)}
        calls = families.get("gitea_mcp_tool_calls")
        counted = sum(sample.value for sample in calls.samples if sample.name.endswith("_total")) if calls else 0
        if counted <= 0:
            raise Failed(f"replica {replica.name} exposes {len(families)} families but counts no tool calls")
        served[replica.name[-1]] = counted
    passed(f"metrics from each replica's own port, gitea_mcp_tool_calls_total: {served}")


def limits_shared(lb: Balancer, passed: Callable[[str], None]) -> None:
    """One user's calls, spread by the balancer over the three replicas, are counted once: of 3 x PER_MINUTE calls
    within the minute exactly PER_MINUTE run (each replica alone would let 3 x PER_MINUTE through); the rest are
    refused at once with a time to retry (HTTP 429 and Retry-After, or the tool's sentence)."""
    allowed = 0
    refused: Counter[str] = Counter()
    listing = {"name": "issue_list", "arguments": {"owner": "acme", "name": "widgets", "limit": 1}}
    for _ in range(REPLICAS * PER_MINUTE):
        response = post(lb.url, "tools/call", listing)
        if response.status_code == 429 and response.headers.get("Retry-After"):
            refused[f"HTTP 429, Retry-After {response.headers['Retry-After']}"] += 1
        elif response.status_code == 200 and not response.json()["result"].get("isError"):
            allowed += 1
        elif response.status_code == 200 and "retry" in json.dumps(response.json()["result"]).lower():
            refused["the tool's sentence"] += 1
        else:
            raise Failed(f"a call over the limit answered {response.status_code}: {response.text[:200]}")
    total = REPLICAS * PER_MINUTE
    if allowed != PER_MINUTE:
        raise Failed(f"{allowed} of {total} calls ran with {PER_MINUTE} a minute shared by {REPLICAS} replicas")
    passed(f"per-user limit shared: {allowed} of {total} calls ran, the rest refused: {dict(refused)}")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except NeverHappened as never:
        print(f"replicas test FAILED: {never}", flush=True)
        sys.exit(1)
