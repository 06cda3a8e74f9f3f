"""`task bench`: gitea_mcp measured where its users feel it, side by side with the floor, against the stand-in.

Start-up, latency against a forge 50 ms away (and the number of round trips each tool makes), loopback
overhead, the bytes an agent reads, peak memory, and streamable-HTTP throughput. Each figure is printed
beside its budget. A benchmark, not a test: it never fails CI; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import requests
from mcp.client.session import ClientSession

from gitea_mcp.cli.stdio_client import stdio_session
from gitea_mcp.standin import DEMO_TOKEN, StandIn

ROOT = Path(__file__).resolve().parent.parent
FLOOR = [sys.executable, str(ROOT / "bench" / "floor_server.py")]
OURS = [sys.executable, "-m", "gitea_mcp", "serve"]
LATENCY = 0.050
rows: list[tuple[str, str, str, str]] = []


def record(name: str, value: str, budget: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("pass" if ok else "FAIL")
    rows.append((name, value, budget, verdict))
    print(f"  {name:<58} {value:>22}  {budget:<26} {verdict}", flush=True)


def env_for(url: str) -> dict[str, str]:
    return {"GITEA_URL": url, "GITEA_TOKEN": DEMO_TOKEN, "GITEA_ALLOWED_OWNERS": "acme,demo"}


def session(command: list[str], env: dict[str, str]) -> AbstractAsyncContextManager[ClientSession]:
    return stdio_session(env, command=command, cwd=str(ROOT))


def children_rss_peak(marker: str) -> int:
    """Peak RSS (VmHWM, kB) of this process's child whose command line contains `marker`."""
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("PPid", "").strip() == me and marker in cmdline:
            return int(fields["VmHWM"].split()[0])
    return 0


# --- 1. start-up --------------------------------------------------------------------------------------


async def startup_once(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    async with session(command, env) as client:
        await client.list_tools()
        return time.perf_counter() - start


def bench_startup(url: str, runs: int) -> None:
    ours, floor = [], []
    for _ in range(runs):  # interleaved, so machine noise hits both alike
        ours.append(anyio.run(startup_once, OURS, env_for(url)))
        floor.append(anyio.run(startup_once, FLOOR, {}))
    o, f = statistics.median(ours), statistics.median(floor)
    record("start-up to tools/list (median)", f"{o * 1000:.0f} ms vs {f * 1000:.0f} ms", "≤ 1.15× floor", o <= 1.15 * f)
    record("  ratio", f"{o / f:.2f}×")


# --- 2. latency against a forge 50 ms away ----------------------------------------------------------


async def timed(client: ClientSession, forge: StandIn, tool: str, args: dict[str, Any]) -> tuple[float, int, Any]:
    before = len(forge.requests)
    start = time.perf_counter()
    result = await client.call_tool(tool, args)
    elapsed = time.perf_counter() - start
    assert not result.is_error, result.content
    return elapsed, len(forge.requests) - before, result


CASES: list[tuple[str, str, dict[str, Any], int]] = [
    ("issue_list (plain, 30 rows)", "issue_list", {"owner": "acme", "name": "widgets"}, 1),
    ("issue_search (1 match, across repos)", "issue_search", {"query": '"race condition in the date picker"', "owner": "acme"}, 1),
    ("issue_get (#77 with 40 comments)", "issue_get", {"owner": "acme", "name": "widgets", "number": 77}, 1),
    ("issue_list labels=bug (labels not cached)", "issue_list", {"owner": "acme", "name": "gadgets", "labels": "bug"}, 2),
    ("issue_list labels=bug (labels cached)", "issue_list", {"owner": "acme", "name": "gadgets", "labels": "bug"}, 1),
    ("issue_create (labels, first time)", "issue_create", {"owner": "acme", "name": "widgets", "title": "Bench", "labels": ["bug"]}, 2),
]  # fmt: skip


async def latency_session(forge: StandIn, repeats: int) -> None:
    async with session(OURS, env_for(forge.url)) as client:
        await client.call_tool(
            "issue_get", {"owner": "demo", "name": "notes", "number": 1}
        )  # warm: imports, connection
        forge.latency = LATENCY
        for label, tool, args, budget in CASES:
            samples = []
            for attempt in range(repeats if "first" not in label and "not cached" not in label else 1):
                args = {**args, "title": f"Bench {attempt}"} if tool == "issue_create" else args
                samples.append(await timed(client, forge, tool, args))
            elapsed = statistics.median(s[0] for s in samples)
            rounds = int(elapsed // LATENCY)
            requests_made = samples[0][1]
            record(
                f"{label}: rounds (requests)",
                f"{rounds} ({requests_made}) {elapsed * 1000:.0f} ms",
                f"≤ {budget} round{'s' if budget > 1 else ''}",
                rounds <= budget,
            )
        forge.latency = 0.0


# --- 3. loopback overhead, tokens, memory -----------------------------------------------------------


async def loopback_and_tokens(forge: StandIn, repeats: int) -> None:
    list50 = {"owner": "acme", "name": "widgets", "limit": 50}
    async with session(OURS, env_for(forge.url)) as client, session(FLOOR, {}) as floor:
        ours, trivial = [], []
        for _ in range(3):
            await client.call_tool("issue_list", list50)
            await floor.call_tool("ping", {})
        for _ in range(repeats):
            start = time.perf_counter()
            result = await client.call_tool("issue_list", list50)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            await floor.call_tool("ping", {})
            trivial.append(time.perf_counter() - start)
        direct = direct_requests(forge.url, repeats)
        o, d, t = statistics.median(ours), statistics.median(direct), statistics.median(trivial)
        record("loopback issue_list 50 rows (median)", f"{o * 1000:.1f} ms", "≤ 2× (direct + floor)", o <= 2 * (d + t))
        record("  direct Gitea request + floor round trip", f"{d * 1000:.1f} + {t * 1000:.1f} ms")
        record("  ratio", f"{o / (d + t):.2f}×")

        text_of = lambda r: "".join(getattr(b, "text", "") for b in r.content)  # noqa: E731
        listed = text_of(await client.call_tool("issue_list", list50))
        record(
            "text of a 50-row issue_list",
            f"{len(listed.encode()):,} bytes",
            "≤ 4,500 bytes",
            len(listed.encode()) <= 4500,
        )
        found = await client.call_tool(
            "issue_search", {"query": "the", "owner": "acme", "name": "widgets", "limit": 30}
        )
        record("text of a 30-row issue_search", f"{len(text_of(found).encode()):,} bytes")
        got = await client.call_tool("issue_get", {"owner": "acme", "name": "widgets", "number": 320})
        record("text of one issue_get (#320)", f"{len(text_of(got).encode()):,} bytes")
        tools = (await client.list_tools()).tools
        wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
        size = len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False).encode())  # as sent on the wire
        # 12,000 until nullable output values were spelt portably (anyOf): 304 bytes the model never reads.
        record(f"tools/list, all {len(tools)} tools", f"{size:,} bytes", "≤ 12,500 bytes", size <= 12500)
        # What the model reads of each definition on every turn: name, description, input schema (not the output
        # schema, which the client uses to check structured content).
        seen = [{"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]} for t in wire]
        visible = len(json.dumps(seen, separators=(",", ":"), ensure_ascii=False).encode())
        record("  model-visible part (name, description, inputSchema)", f"{visible:,} bytes", "≤ 6,000 bytes",
               visible <= 6000)  # fmt: skip
        structured = (await client.call_tool("issue_list", list50)).structured_content
        record("  (structured content of the 50-row list)", f"{len(json.dumps(structured).encode()):,} bytes")

        ours_rss, floor_rss = children_rss_peak("gitea_mcp"), children_rss_peak("floor_server")
        ok = bool(ours_rss and floor_rss and ours_rss <= 1.25 * floor_rss)
        record("peak RSS after the calls", f"{ours_rss / 1024:.1f} vs {floor_rss / 1024:.1f} MiB", "≤ 1.25× floor", ok)


def direct_requests(url: str, repeats: int) -> list[float]:
    http = requests.Session()
    headers = {"Authorization": f"token {DEMO_TOKEN}"}
    params = {"state": "open", "type": "issues", "page": 1, "limit": 50}
    samples = []
    for i in range(repeats + 3):
        start = time.perf_counter()
        http.get(f"{url}/api/v1/repos/acme/widgets/issues", params=params, headers=headers, timeout=10).json()
        if i >= 3:
            samples.append(time.perf_counter() - start)
    return samples


# --- 5. streamable HTTP -------------------------------------------------------------------------------


def bench_http(forge: StandIn, seconds: float) -> None:
    port = 18000 + os.getpid() % 1000
    env = {**os.environ, **env_for(forge.url), "GITEA_TOKEN": ""}
    command = [*OURS, "--transport", "http", "--port", str(port)]
    server = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base)
        rates = {}
        for clients in (1, 8, 32):
            rate, p50, p99, errors = http_load(base, clients, seconds)
            rates[clients] = rate
            record(f"HTTP {clients:>2} clients: req/s, p50, p99, errors", f"{rate:.0f}/s {p50:.0f} {p99:.0f} ms {errors}",
                   "no errors" if clients == 32 else "", errors == 0 if clients == 32 else None)  # fmt: skip
        record("HTTP throughput 8 vs 1 clients", f"{rates[8] / rates[1]:.2f}×", "> 1 (scales)", rates[8] > rates[1])
    finally:
        server.terminate()
        server.wait(timeout=10)


def wait_healthy(base: str) -> None:
    for _ in range(200):
        try:
            if requests.get(f"{base}/healthz", timeout=1).ok:
                return
        except requests.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("HTTP server did not start")


def http_load(base: str, clients: int, seconds: float) -> tuple[float, float, float, int]:
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "issue_list", "arguments": {"owner": "acme", "name": "widgets", "limit": 10}}}  # fmt: skip
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker() -> None:
        http = requests.Session()
        while time.monotonic() < deadline:
            start = time.perf_counter()
            try:
                response = http.post(f"{base}/mcp", json=body, headers=headers, timeout=30)
                failed = response.status_code != 200 or response.json()["result"].get("isError")
            except requests.RequestException:
                failed = True
            with lock:
                latencies.append(time.perf_counter() - start)
                errors[0] += bool(failed)

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = sorted(latencies)
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return len(ordered) / seconds, p(0.50), p(0.99), errors[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="start-up runs of each server (median)")
    parser.add_argument("--repeats", type=int, default=15, help="calls per latency figure (median)")
    parser.add_argument("--http-seconds", type=float, default=3.0, help="seconds per HTTP load level")
    args = parser.parse_args()
    print(f"gitea_mcp bench — python {sys.version.split()[0]}, {os.cpu_count()} cores; stand-in on loopback\n")
    print(f"  {'measure':<58} {'figure':>22}  {'budget':<26} verdict")
    with StandIn() as forge:
        sections: list[tuple[str, Callable[[], None]]] = [
            ("start-up", lambda: bench_startup(forge.url, args.runs)),
            ("latency, forge 50 ms away", lambda: anyio.run(latency_session, forge, args.repeats)),
            ("loopback, tokens, memory", lambda: anyio.run(loopback_and_tokens, forge, args.repeats * 2)),
            ("streamable HTTP", lambda: bench_http(forge, args.http_seconds)),
        ]
        for title, run in sections:
            print(f"\n[{title}]")
            run()
    failed = [r[0] for r in rows if r[3] == "FAIL"]
    print(
        f"\n{sum(r[3] == 'pass' for r in rows)} budgets met, {len(failed)} missed" + (f": {failed}" if failed else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
