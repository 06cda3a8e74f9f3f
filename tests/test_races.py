"""Tests without races, held by reading them (ast): no sleep that waits for something to happen, no port found free
and released.

A sleep that waits guesses how long something takes: too short on a loaded machine (a flaky failure), too long
everywhere else (a slow suite). Waits go through tests/support/waiting.py's `wait_until` (a condition and a
deadline). A sleep may stay only where it IS the behaviour under test (a slow server, a slow client, a quiet
moment, a window measured), listed below with its reason.

A port found free by binding and releasing it can be taken by another test before it is used. A server a test starts
binds port 0 and says the port it got (the start-up line, the socket); a port nothing listens on, or one a server
must be told before it starts, is held while in use (tests/support/ports.py)."""

from __future__ import annotations

import ast
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gitea_mcp.server.http import listening_socket
from tests.support.ports import refusing_port, reserved_port
from tests.support.waiting import NeverHappened, wait_until

ROOT = Path(__file__).resolve().parent.parent
SLEEPS_IN = ["tests"]  # bench/ is not a test: its figures are measured over spans, and it never fails CI
PORTS_IN = ["tests", "bench"]
SKIPPED = {"node_modules", ".venv", "__pycache__"}

# (file, function) -> why its sleep is the behaviour under test, not a wait.
ALLOWED_SLEEPS: dict[tuple[str, str], str] = {
    ("tests/support/waiting.py", "wait_until"): "the poll between two looks at the condition",
    ("tests/server/test_first_call.py", "slow_import"): "a slow import: the second call arrives while it runs",
    ("tests/server/test_admission.py", "body"): "a call holding the only thread: its wait is the budget measured",
    ("tests/server/signin/test_attacks.py", "do_GET"): "a client metadata document served slowly",
    ("tests/server/signin/test_documents.py", "_slow"): "a document server too slow for the deadline",
    ("tests/server/signin/test_documents.py", "_trickle_head"): "a document server's head a byte at a time",
    ("tests/server/signin/test_documents.py", "_late"): "a document server slow within the deadline",
    ("tests/server/signin/test_documents.py", "_trickle"): "a document server's body a byte at a time",
    ("tests/support/rounds.py", "answer"): "Gitea's latency, mocked: the rounds of requests are what is counted",
    ("tests/tools/test_rounds.py", "page"): "Gitea's latency, mocked: the rounds of requests are what is counted",
    ("tests/e2e/test_http_edge.py", "test_a_head_over_16_kib_sent_in_one_piece_is_refused"): (
        "a client sending its head in separate TCP segments"
    ),
    ("tests/e2e/test_http_abuse.py", "test_idle_connections_beyond_the_cap_leave_room_for_a_call"): (
        "the window over which an idle flood's CPU is measured"
    ),
    ("tests/gitea/test_bounds.py", "drip"): "a Gitea answering a byte every 50 ms",
    ("tests/gitea/test_bounds.py", "drip_chunked"): "a Gitea answering a chunk every 50 ms",
    ("tests/gitea/test_bounds.py", "slow"): "a Gitea slow to answer",
    ("tests/server/test_memory.py", "main"): "quiet moments between calls: the trimmer's trigger under test",
}
# (file, function) where a socket may be bound to port 0 by hand: the helpers that hold ports.
PORT_HOLDERS: set[tuple[str, str]] = {
    ("tests/support/ports.py", "refusing_port"),
    ("tests/support/ports.py", "reserved_port"),
    ("tests/support/ports.py", "unheard_port"),
    ("bench/bench.py", "reserved_port"),
}
FREE_PORT_NAMES = {"free_port", "unused_port", "find_free_port", "get_free_port", "closed_port"}
SLEEPS = {("time", "sleep"), ("asyncio", "sleep"), ("anyio", "sleep"), ("trio", "sleep")}


@dataclass(frozen=True)
class Finding:
    path: str
    function: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function}: {self.what}"


def sources(folders: list[str]) -> Iterator[Path]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not SKIPPED & set(path.relative_to(ROOT).parts):
                yield path


Scope = tuple[str, int]  # a function's name and first line; ("<module>", 0) outside any


def _owned(tree: ast.AST) -> Iterator[tuple[Scope, ast.AST]]:
    """Every node with the innermost function it is in (a function's own node is its own), in one walk."""
    stack: list[tuple[Scope, ast.AST]] = [(("<module>", 0), tree)]
    while stack:
        scope, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = (child.name, child.lineno) if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else scope
            yield inner, child
            stack.append((inner, child))


def _sleep_names(tree: ast.AST) -> set[str]:
    """Bare names bound to a sleep (`from time import sleep`)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in {module for module, _ in SLEEPS}
        for alias in node.names
        if alias.name == "sleep"
    }


def _is_sleep(call: ast.Call, bare: set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return (func.value.id, func.attr) in SLEEPS
    return isinstance(func, ast.Name) and func.id in bare


def sleeps(path: str, source: str) -> list[Finding]:
    tree = ast.parse(source)
    bare = _sleep_names(tree)
    return [
        Finding(path, scope[0], node.lineno, "a sleep")
        for scope, node in _owned(tree)
        if isinstance(node, ast.Call) and _is_sleep(node, bare)
    ]


def _binds_port_zero(call: ast.Call) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "bind" and call.args):
        return False
    address = call.args[0]
    return isinstance(address, ast.Tuple) and len(address.elts) >= 2 and _is_zero(address.elts[1])


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _closed_then_handed_out(own: list[ast.AST]) -> list[int]:
    """Lines where a function closes a socket it read the port of, then returns or yields (the port, released)."""
    read = {
        node.func.value.id
        for node in own
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "getsockname"
        and isinstance(node.func.value, ast.Name)
    }
    closes = [
        node.lineno
        for node in own
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "close"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in read
    ]
    handed = [node.lineno for node in own if isinstance(node, ast.Return | ast.Yield) and node.value is not None]
    return [close for close in closes if any(line > close for line in handed)]


def free_ports(path: str, source: str) -> list[Finding]:
    scopes: dict[Scope, list[ast.AST]] = {}  # each function's own nodes
    for scope, node in _owned(ast.parse(source)):
        scopes.setdefault(scope, []).append(node)
    found: list[Finding] = []
    for (name, first), own in scopes.items():
        if name in FREE_PORT_NAMES:
            found.append(Finding(path, name, first, f"a helper named {name}"))
        found += [Finding(path, name, line, what) for line, what in _port_calls(own, (path, name) in PORT_HOLDERS)]
        found += [Finding(path, name, line, RELEASED) for line in _closed_then_handed_out(own)]
    return found


RELEASED = "a socket closed, then its port handed out"


def _port_calls(own: list[ast.AST], holder: bool) -> Iterator[tuple[int, str]]:
    for node in own:
        if not isinstance(node, ast.Call):
            continue
        called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if called in FREE_PORT_NAMES:
            yield node.lineno, f"a call of {called}()"
        if _binds_port_zero(node) and not holder:
            yield node.lineno, "a socket bound to port 0 by hand"


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_no_sleep_waits_for_something_to_happen() -> None:
    found = [f for path in sources(SLEEPS_IN) for f in sleeps(_relative(path), path.read_text())]
    unexplained = [str(f) for f in found if (f.path, f.function) not in ALLOWED_SLEEPS]
    assert unexplained == [], "\n".join([
        "wait on a condition with a deadline (tests.support.waiting.wait_until), or, if the sleep is the behaviour "
        "under test, add it to ALLOWED_SLEEPS with the reason:", *unexplained,
    ])  # fmt: skip
    stale = sorted(set(ALLOWED_SLEEPS) - {(f.path, f.function) for f in found})
    assert stale == [], f"allowed sleeps that are gone, to take off ALLOWED_SLEEPS: {stale}"


def test_no_port_is_found_free_and_released() -> None:
    found = [str(f) for path in sources(PORTS_IN) for f in free_ports(_relative(path), path.read_text())]
    assert found == [], "\n".join([
        "bind port 0 and read the port the server got, or hold the port while it is in use (tests/support/ports.py):",
        *found,
    ])  # fmt: skip


# The scanner itself can fail: what it must find, and what it must let be.
SLEEP_CASES = [
    ("import time\ndef f():\n    time.sleep(1)\n", ["f"]),
    ("from time import sleep\ndef g():\n    sleep(1)\n", ["g"]),
    ("import asyncio\nasync def h():\n    await asyncio.sleep(0.1)\n", ["h"]),
    ("import time\ndef outer():\n    def inner():\n        time.sleep(1)\n", ["inner"]),
    ("import time\ntime.sleep(1)\n", ["<module>"]),
    ("CODE = 'import time; time.sleep(60)'\n", []),  # code in a string runs elsewhere
    ("from tests.support.waiting import wait_until\ndef f():\n    wait_until(lambda: True, 1, 'x')\n", []),
]


@pytest.mark.parametrize(("source", "functions"), SLEEP_CASES)
def test_the_sleep_scan_finds_what_it_must(source: str, functions: list[str]) -> None:
    assert [f.function for f in sleeps("t.py", source)] == functions


FREE_PORT_CASES = [
    (
        "import socket\ndef f():\n    with socket.socket() as s:\n        s.bind(('127.0.0.1', 0))\n"
        "        return s.getsockname()[1]\n",
        ["a socket bound to port 0 by hand"],
    ),
    (
        "import socket\ndef f():\n    s = socket.create_server(('127.0.0.1', 0))\n    port = s.getsockname()[1]\n"
        "    s.close()\n    return port\n",
        ["a socket closed, then its port handed out"],
    ),
    ("def free_port():\n    return 1\n", ["a helper named free_port"]),
    ("from x import free_port\nURL = f'http://127.0.0.1:{free_port()}'\n", ["a call of free_port()"]),
    (  # a listener on port 0, closed after it served: no race
        "import socket\ndef f():\n    s = socket.create_server(('127.0.0.1', 0))\n"
        "    yield s.getsockname()[1]\n    s.close()\n",
        [],
    ),
    ("import socket\ndef f(port):\n    s = socket.socket()\n    s.bind(('127.0.0.1', port))\n", []),
]


@pytest.mark.parametrize(("source", "what"), FREE_PORT_CASES)
def test_the_port_scan_finds_what_it_must(source: str, what: list[str]) -> None:
    assert [f.what for f in free_ports("t.py", source)] == what


def test_a_port_holder_may_bind_port_zero() -> None:
    source = "import socket\ndef refusing_port():\n    s = socket.socket()\n    s.bind(('127.0.0.1', 0))\n"
    assert free_ports("tests/support/ports.py", source) == []
    assert len(free_ports("tests/elsewhere.py", source)) == 1


# The helpers the suite relies on, held to what they promise on this kernel.


def test_a_refusing_port_refuses_and_is_nobody_elses() -> None:
    with refusing_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2)
        with pytest.raises(OSError, match="in use"):
            socket.create_server(("127.0.0.1", port))


def test_a_reserved_port_is_taken_by_our_server_and_by_nobody_else() -> None:
    """Our HTTP server binds as listening_socket does (SO_REUSEADDR): it takes the port reserved for it, while a
    socket that does not ask to share it is refused (and the kernel's own choices, a bind to port 0 or a
    connection's port, never share a port: net.ipv4.ip_autobind_reuse is off unless set)."""
    with reserved_port() as port:
        with socket.socket() as stranger, pytest.raises(OSError, match="in use"):
            stranger.bind(("127.0.0.1", port))
        with listening_socket("127.0.0.1", port) as server:
            server.listen()
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                accepted, _ = server.accept()
                accepted.close()


def test_wait_until_gives_the_first_true_value() -> None:
    seen = iter([None, 0, "", "ready"])
    assert wait_until(lambda: next(seen), 5, "ready", poll=0) == "ready"


def test_wait_until_says_what_never_happened() -> None:
    with pytest.raises(NeverHappened, match=r"^the stand-in answering: not within 0\.05 s$"):
        wait_until(lambda: False, 0.05, "the stand-in answering")


def test_wait_until_looks_once_more_at_the_deadline() -> None:
    """A condition that holds only once the deadline has passed (the poll outlasts it) is not failed."""
    looks: list[int] = []

    def late() -> bool:
        looks.append(1)
        return len(looks) > 1

    assert wait_until(late, 0.01, "the second look", poll=0.05) is True
