"""Traces (issue 38): a span for each request sent to the forge, a child of the tool call's span, its trace context
sent on in the request's `traceparent`; off unless the operator turned traces on (server/tracing.py).

Off, the client asks one flag per request and does nothing else (`task bench` holds that under 0.05 ms a call).
On, each attempt is one CLIENT span named by its method and route (`GET /repos/{owner}/{repo}/issues`: names and
numbers are placeholders, so the names stay few), with the repository, the status and the outcome as attributes.
Never a token, a query string, a body or a title: the request's headers and body are not looked at, and a path
segment is shown only when it is one of the API's own words.

The forge is sent `traceparent` (and `tracestate`): trace and span IDs only, which a proxy or a forge that traces
can join; nothing a client could not already learn from its own trace.

`opentelemetry-api` comes with the MCP SDK; it is imported on the first traced request, never when traces are off.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gitea_mcp.domain.policy import is_name

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer


class _State:
    """Whether spans are made: set once at start (server/tracing.py), read on every request."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


STATE = _State()
TRACER_NAME = "gitea_mcp"


def switch(on: bool) -> None:
    """Spans on or off for this process (at start; tests turn them on around an in-memory exporter)."""
    STATE.on = on


_TRACERS: list[Tracer] = []


def tracer() -> Tracer:
    """This package's tracer, from the provider installed when it was first asked for (a proxy until one is)."""
    if not _TRACERS:
        from opentelemetry import trace  # why: only when traces are on

        from gitea_mcp import __version__

        _TRACERS.append(trace.get_tracer(TRACER_NAME, __version__))
    return _TRACERS[0]


# The API's own words, shown in a route; any other segment is a name or a number, shown as a placeholder.
_WORDS = frozenset(
    {
        "repos", "issues", "search", "comments", "labels", "milestones", "assignees", "collaborators", "timeline",
        "reviews", "blocks", "dependencies", "user", "users", "orgs", "version", "settings", "api", "applications",
        "oauth2", "pulls", "reactions", "teams", "members", "permission", "login", "oauth", "access_token",
        ".well-known", "openid-configuration",
    }
)  # fmt: skip


def route(segments: Sequence[str | int]) -> tuple[str, str | None]:
    """The route of a request (`/repos/{owner}/{repo}/issues/{number}`) and the repository it is about
    (`acme/widgets`), or None when it is about none (or the names are not names Gitea allows)."""
    parts = [str(segment) for segment in segments]
    shown: list[str] = []
    repository = None
    for at, part in enumerate(parts):
        if at in (1, 2) and parts[0] == "repos" and parts[1:3] != ["issues", "search"]:
            shown.append("{owner}" if at == 1 else "{repo}")
        elif part.isdigit():
            shown.append("{number}" if at > 0 and parts[at - 1] == "issues" else "{id}")
        else:
            shown.append(part if part in _WORDS else "{name}")
    about_one = len(parts) >= 3 and parts[0] == "repos" and parts[1:3] != ["issues", "search"]
    if about_one and is_name(parts[1]) and is_name(parts[2]):
        repository = f"{parts[1]}/{parts[2]}"
    return "/" + "/".join(shown), repository


@contextlib.contextmanager
def request_span(method: str, where: str, repository: str | None, server: str, resend: int) -> Iterator[Span]:
    """The span of one request to the forge (`where`: its route), current while it is sent and read; `resend`: the
    retries before this one."""
    from opentelemetry.trace import SpanKind  # why: only when traces are on

    host, _, port = server.partition(":")
    attributes: dict[str, Any] = {"http.request.method": method, "url.template": where, "server.address": host}
    if port.isdigit():
        attributes["server.port"] = int(port)
    if repository is not None:
        attributes["gitea.repository"] = repository
    if resend:
        attributes["http.request.resend_count"] = resend
    # Status set here, from the answer: an exception inside is ours (a bug), not the forge's outcome.
    with tracer().start_as_current_span(
        f"{method} {where}", kind=SpanKind.CLIENT, attributes=attributes, record_exception=False
    ) as span:
        yield span


def inject(headers: dict[str, str]) -> None:
    """The current trace context into the request's headers (`traceparent`, `tracestate`)."""
    from opentelemetry import propagate  # why: only when traces are on

    propagate.inject(headers)


def answered(span: Span, status: int) -> None:
    """The forge answered `status`: an error status marks the span failed (OpenTelemetry's HTTP client rule)."""
    span.set_attribute("http.response.status_code", status)
    if status >= 400:
        _failed(span, str(status))


def unanswered(span: Span, failure: BaseException) -> None:
    """No usable answer came: the failure's class names why (NoAnswer, NotSent, TlsFailed, OutOfTime, ...), never
    its text, which may quote the forge."""
    status = getattr(failure, "status", 0)
    if isinstance(status, int) and status:
        span.set_attribute("http.response.status_code", status)
    _failed(span, type(failure).__name__)


def _failed(span: Span, kind: str) -> None:
    from opentelemetry.trace import StatusCode  # why: only when traces are on

    span.set_attribute("error.type", kind)
    span.set_status(StatusCode.ERROR)
