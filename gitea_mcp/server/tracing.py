"""Traces (issue 38): turned on at start, exported over OTLP, a tool call's span and the trace a client sends.

The chain of one traced call: the client's trace context (`traceparent` in the HTTP request's headers, taken up
here by `continued`, or in the request's `params._meta`, which the MCP SDK reads itself) → the SDK's SERVER span for
the message (`tools/call issue_list`, opened by its OpenTelemetryMiddleware) → this server's span for the tool
(`execute_tool issue_list`: tool, repository, issue number, outcome) → a CLIENT span for each request to the forge
(gitea/traces.py), whose `traceparent` the forge is sent.

On when GITEA_MCP_TRACES is true, or when the process already has a tracer provider (started under
`opentelemetry-instrument`, say: its exporter is used and none is added). Everything else is OpenTelemetry's own
configuration, read by its SDK: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (default
http://localhost:4318), OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME (default gitea-issues-mcp),
OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER; OTEL_TRACES_EXPORTER may say `otlp` (the default), `console` (to
stderr: stdout is the stdio protocol's) or `none`. The exporter speaks OTLP over HTTP (protobuf) only: the `otel`
extra installs it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from gitea_mcp.domain.policy import is_name
from gitea_mcp.gitea import traces
from gitea_mcp.settings import ConfigError, Settings

if TYPE_CHECKING:
    from mcp_types import CallToolResult
    from opentelemetry.trace import Span

SERVICE = "gitea-issues-mcp"
DEFAULT_ENDPOINT = "http://localhost:4318"
TRACES_PATH = "/v1/traces"
EXTRA = "pip install 'gitea-issues-mcp[otel]'"
EXPORTERS = ("otlp", "console", "none")


@dataclass(frozen=True)
class Plan:
    """Where spans go: `exporter` is one of EXPORTERS; `endpoint` the OTLP URL as shown (no credentials, no query)."""

    exporter: str
    endpoint: str
    service: str


def plan(environ: Mapping[str, str] = os.environ) -> Plan:
    """What OpenTelemetry's variables ask for, or ConfigError saying which one is wrong and what it takes."""
    exporter = (environ.get("OTEL_TRACES_EXPORTER") or "otlp").strip().lower()
    if exporter not in EXPORTERS:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER={exporter[:40]!r} is not an exporter this server has; use otlp (the default), "
            "console (spans to stderr) or none"
        )
    protocol = environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") or ""
    if exporter == "otlp" and protocol.strip() not in ("", "http/protobuf"):
        raise ConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol.strip()[:40]!r}: this server exports OTLP over HTTP only; set it "
            "to http/protobuf and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (4318)"
        )
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if not endpoint:
        endpoint = (environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip() or DEFAULT_ENDPOINT).rstrip("/")
        endpoint += TRACES_PATH
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigError(
            "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL, e.g. http://otel-collector:4318"
        )
    service = environ.get("OTEL_SERVICE_NAME", "").strip() or SERVICE
    return Plan(exporter, _shown(endpoint), service)


def _shown(url: str) -> str:
    """An endpoint as said: never a user:password@ part or a query, which may hold a credential."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def describe(settings: Settings, environ: Mapping[str, str] = os.environ) -> str:
    """The one phrase `check` and the start-up say about traces (a ConfigError when the set-up is wrong)."""
    if not settings.traces:
        return "traces off (GITEA_MCP_TRACES)"
    chosen = plan(environ)
    if chosen.exporter == "none":
        return f"traces on as {chosen.service}, exported nowhere (OTEL_TRACES_EXPORTER=none)"
    if chosen.exporter == "console":
        return f"traces on as {chosen.service}, written to stderr (OTEL_TRACES_EXPORTER=console)"
    return f"traces on as {chosen.service}, exported over OTLP/HTTP to {chosen.endpoint}"


WANTING = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER")


def wanted(environ: Mapping[str, str] = os.environ) -> str | None:
    """The first of OpenTelemetry's variables set that shows traces were wanted (check warns of it while off)."""
    return next((name for name in WANTING if environ.get(name, "").strip()), None)


def sdk_missing() -> bool:
    """Whether the `otel` extra (OpenTelemetry's SDK and its OTLP/HTTP exporter) is not installed."""
    import importlib.util  # why: only when traces are on

    try:
        wanted = ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http.trace_exporter")
        return any(importlib.util.find_spec(name) is None for name in wanted)
    except ImportError:  # a parent package missing
        return True


def configure(settings: Settings, environ: Mapping[str, str] = os.environ, export: bool = True) -> None:
    """Turn traces on at start when the settings or the process ask for it; exporting as OpenTelemetry's variables
    say. A set-up that cannot work is a ConfigError (one sentence), never a traceback at the first span.

    `export` False: checked and switched on, the exporter left for `exporting` to start in each worker process
    (GITEA_MCP_WORKERS): its thread must not exist when the workers are forked, and would not survive the fork."""
    from opentelemetry import trace  # why: with the SDK at serve time; the API comes with the MCP SDK

    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        traces.switch(True)  # someone installed a provider already (opentelemetry-instrument): spans go there
        return
    if not settings.traces:
        return
    chosen = plan(environ)
    if sdk_missing():
        raise ConfigError(f"GITEA_MCP_TRACES is on but OpenTelemetry's SDK is not installed: {EXTRA}")
    if export:
        trace.set_tracer_provider(_provider(chosen))
    traces.switch(True)


def exporting(environ: Mapping[str, str] = os.environ) -> None:
    """In a worker process, once forked: the exporter `configure(export=False)` left out, if traces are on."""
    from opentelemetry import trace  # why: only when traces are on

    if traces.STATE.on and isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        trace.set_tracer_provider(_provider(plan(environ)))


FLUSH_MILLISECONDS = 2_000  # at a stop: the spans still waiting for their batch, sent within this


def flush() -> None:
    """The spans still waiting sent before the process stops (a stop ends it with os._exit: no atexit runs)."""
    if not traces.STATE.on:
        return
    from opentelemetry import trace  # why: only when traces are on

    provider: Any = trace.get_tracer_provider()
    if hasattr(provider, "force_flush"):
        provider.force_flush(FLUSH_MILLISECONDS)


def _provider(chosen: Plan) -> Any:
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource  # why: the otel extra, only when on
    from opentelemetry.sdk.trace import TracerProvider  # why: the otel extra, only when on
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter  # why: as above

    # Resource.create reads OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME; the name given here is the default.
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: chosen.service}))
    if chosen.exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # why: as above

        # The exporter reads the endpoint, its headers, timeout and TLS from OTEL_EXPORTER_OTLP_* itself.
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    elif chosen.exporter == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    return provider


# -- the trace a client sends over HTTP ----------------------------------------------------------------------------

_CARRIED = (b"traceparent", b"tracestate")


@contextlib.contextmanager
def continued(headers: list[tuple[bytes, bytes]]) -> Iterator[None]:
    """The HTTP request's trace context current while it is served: the SDK's span for the message is then its
    child (the SDK carries the context from the request's task to the handler's). A `traceparent` in the message's
    `_meta` wins: the SDK parents its span on that."""
    if not traces.STATE.on:
        yield
        return
    carrier = {name.decode("latin-1"): value.decode("latin-1") for name, value in headers if name in _CARRIED}
    if "traceparent" not in carrier:
        yield
        return
    from opentelemetry import context, propagate  # why: only when traces are on

    token = context.attach(propagate.extract(carrier))
    try:
        yield
    finally:
        context.detach(token)


# -- a tool call's span ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def tool_span(name: str, arguments: Any) -> Iterator[Span]:
    """The span of one tool call, current while it runs (on a worker thread too: anyio carries the context), a
    child of the SDK's span for the message. It names the tool, the repository and issue number asked about when
    they are names Gitea allows and a number (an argument past the rules is left out: hostile input stays out of
    the trace), and the outcome (`outcome`); never another argument, a token, a body or a title."""
    from opentelemetry.trace import SpanKind  # why: only when traces are on

    attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if isinstance(arguments, dict):
        owner, repo, number = arguments.get("owner"), arguments.get("name"), arguments.get("number")
        if isinstance(owner, str) and isinstance(repo, str) and is_name(owner) and is_name(repo):
            attributes["gitea.repository"] = f"{owner}/{repo}"
        if isinstance(number, int) and not isinstance(number, bool) and 0 < number < 2**63:
            attributes["gitea.issue.number"] = number
    with traces.tracer().start_as_current_span(
        f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attributes, record_exception=False
    ) as span:
        yield span


OUTCOME = "gitea_mcp.outcome"


def outcome(span: Span, result: CallToolResult, refused: bool = False) -> None:
    """The call's outcome on its span: `ok`, `error` (the tool's isError answer) or `refused` (no slot, or a scope
    the token lacks): no message text, which may quote the forge or the caller."""
    from opentelemetry.trace import StatusCode  # why: only when traces are on

    said = "refused" if refused else "error" if result.is_error else "ok"
    span.set_attribute(OUTCOME, said)
    if said != "ok":
        span.set_attribute("error.type", said)
        span.set_status(StatusCode.ERROR)
