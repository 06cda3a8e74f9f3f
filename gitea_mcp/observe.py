"""What the server counts and what one tool call did, said by every layer, kept by none: a no-op until the server
installs a sink (GITEA_MCP_METRICS_PORT: server/metrics.py), and the notes of the call running (the audit log:
server/audit.py).

Every function here is called on the hot path whether metrics are on or not, so each is one global read and a
return while they are off, and this module imports nothing (prometheus-client is imported by server/metrics.py alone,
only once metrics are on). Label values are bounded words of ours (a tool's name, an outcome, a status class); a
user or a repository reaches a sink only through `detailed`, which the operator turns on
(GITEA_MCP_METRICS_DETAILED).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol


class Sink(Protocol):
    """Where the counts go (server/metrics.py's Prometheus sink; tests' own)."""

    def tool_call(self, tool: str, outcome: str, seconds: float) -> None: ...

    def detailed(self, tool: str, user: str | None, repository: str | None) -> None: ...

    def forge_request(self, method: str, status: str, seconds: float) -> None: ...

    def limit_refused(self, kind: str) -> None: ...

    def signin(self, outcome: str) -> None: ...

    def refresh(self, outcome: str) -> None: ...

    def write_guard(self, scope: str, result: str) -> None: ...


_sink: Sink | None = None


def install(sink: Sink | None) -> None:
    """Counts go to `sink` from now on (None: nowhere, the default)."""
    global _sink
    _sink = sink


def on() -> bool:
    return _sink is not None


def tool_call(tool: str, outcome: str, seconds: float) -> None:
    """A tool call answered: `tool` a served tool's name (or `(unserved)`), `outcome` one of OUTCOMES."""
    if _sink is not None:
        _sink.tool_call(tool, outcome, seconds)


def detailed(tool: str, user: str | None, repository: str | None) -> None:
    """A call by user and repository, counted only where the operator asked for such labels."""
    if _sink is not None:
        _sink.detailed(tool, user, repository)


def forge_request(method: str, status: int | None, seconds: float) -> None:
    """One request sent to the forge and its answer read (`status` None: no answer, a transport failure)."""
    if _sink is not None:
        _sink.forge_request(method, status_class(status), seconds)


def limit_refused(kind: str) -> None:
    """A call or request refused by a limit (`kind`: which, a word of the limiter's own: `calls`, `forge`, …); the
    call running, if any, is then REFUSED."""
    noted = CALL.get()
    if noted is not None:
        noted.refused = True
    if _sink is not None:
        _sink.limit_refused(kind)


def signin(outcome: str) -> None:
    """A sign-in finished at /token (`ok`), or refused there (the OAuth error code: `invalid_grant`, …)."""
    if _sink is not None:
        _sink.signin(outcome)


def refresh(outcome: str) -> None:
    """A refresh at /token: `ok`, or the OAuth error code it was refused with (a failure)."""
    if _sink is not None:
        _sink.refresh(outcome)


def write_guard(scope: str, result: str) -> None:
    """A write met another identical one in flight (`scope`: `process` or `replicas`); `result`: `joined` (it got
    that one's answer) or `queued` (it ran after it)."""
    if _sink is not None:
        _sink.write_guard(scope, result)


def status_class(status: int | None) -> str:
    """`2xx` … `5xx`, or `error` where no answer came: bounded, as a label must be."""
    if status is None or not 100 <= status <= 599:
        return "error"
    return f"{status // 100}xx"


# A tool call's outcome, as the metrics and the audit log say it.
OK = "ok"
BAD_ARGUMENT = "bad_argument"  # the arguments were wrong in themselves; nothing was sent
TOOL_ERROR = "tool_error"  # the tool answered isError: a refusal of ours (the allowlist, say) or the forge's answer
REFUSED = "refused"  # refused before it ran: busy, a scope not granted, a limit
UNSERVED = "unserved"  # a tool this server does not serve (JSON-RPC -32602)
FAILED = "failed"  # a bug of ours: the call raised
OUTCOMES = (OK, BAD_ARGUMENT, TOOL_ERROR, REFUSED, UNSERVED, FAILED)


@dataclass
class Notes:
    """What one tool call did that only the layers below know: filled in as it runs (its thread shares this object:
    anyio copies the context into the worker thread), read when it answers."""

    user: str | None = None  # the forge login, where the credential names it (a sign-in)
    write_id: str | None = None  # the write guard's key for this write (a digest), when the call wrote
    repository: str | None = None  # `owner/name` as the audit log may quote it (server/audit.py), else None
    refused: bool = False  # refused before it ran (a limit): the outcome is REFUSED


CALL: ContextVar[Notes | None] = ContextVar("gitea_mcp_call", default=None)


def notes() -> Notes | None:
    """The notes of the call running on this thread or task, if the server keeps any."""
    return CALL.get()
