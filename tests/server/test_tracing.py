"""A client's trace carried through a tool call to the forge: its traceparent (an HTTP header, or the request's
`params._meta`) → the MCP SDK's span for the message → the tool's span → a span per forge request; nothing secret
in any of them. And how traces are switched on, and what `check` says of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from pydantic import SecretStr
from starlette.testclient import TestClient

from gitea_mcp.cli.check import check_traces
from gitea_mcp.gitea import traces
from gitea_mcp.server import http, tracing
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import ConfigError, Settings
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from tests.support.spans import recording

CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"
TRACEPARENT = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"
META_TRACE, META_SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
META_PARENT = f"00-{META_TRACE}-{META_SPAN}-01"
TITLE = "Zebra-striped canary title"
BODY = "Body with a marmot 0x5eed and more"


@pytest.fixture(scope="module")
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


@pytest.fixture(scope="module")
def mcp(forge: StandIn) -> Iterator[TestClient]:
    settings = Settings(url=forge.url, allowed_owners=frozenset({"acme"}), transport="http")
    with TestClient(http.app(build_server(settings), settings), base_url="http://127.0.0.1:8000") as client:
        yield client


def call(
    mcp: TestClient, tool: str, arguments: dict[str, Any], header: str | None, meta: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if meta is not None:
        params["_meta"] = {"traceparent": meta}
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}  # fmt: skip
    if header is not None:
        headers["traceparent"] = header
    answer = mcp.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                      headers=headers)  # fmt: skip
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def chain(spans: tuple[ReadableSpan, ...], tool: str) -> tuple[ReadableSpan, ReadableSpan, list[ReadableSpan]]:
    """The SDK's span for the call, the tool's span under it, and the forge's spans under that, each checked to be
    the child of the one before."""
    [message] = [s for s in spans if s.name == f"tools/call {tool}"]
    [ours] = [s for s in spans if s.name == f"execute_tool {tool}"]
    forge = [s for s in spans if s.kind is trace.SpanKind.CLIENT]
    assert message.kind is trace.SpanKind.SERVER and ours.kind is trace.SpanKind.INTERNAL
    assert ours.parent is not None and ours.parent.span_id == message.context.span_id
    assert forge and all(s.parent is not None and s.parent.span_id == ours.context.span_id for s in forge)
    assert {s.context.trace_id for s in (message, ours, *forge)} == {message.context.trace_id}
    return message, ours, forge


@pytest.mark.parametrize(
    ("header", "meta", "parent"),
    [
        pytest.param(TRACEPARENT, None, (CLIENT_TRACE, CLIENT_SPAN), id="http-header"),
        pytest.param(None, META_PARENT, (META_TRACE, META_SPAN), id="params-meta"),
        # The SDK parents its span on the message's own context: the one in _meta is the call's.
        pytest.param(TRACEPARENT, META_PARENT, (META_TRACE, META_SPAN), id="meta-over-header"),
    ],
)
def test_the_clients_trace_reaches_the_forge_requests(
    mcp: TestClient, header: str | None, meta: str | None, parent: tuple[str, str]
) -> None:
    with recording() as exporter:
        result = call(mcp, "issue_get", {"owner": "acme", "name": "widgets", "number": 2}, header, meta)
    assert not result.get("isError")
    message, ours, forge = chain(exporter.get_finished_spans(), "issue_get")
    assert message.parent is not None and message.parent.is_remote
    assert (f"{message.parent.trace_id:032x}", f"{message.parent.span_id:016x}") == parent
    assert dict(ours.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "issue_get", "gitea.repository": "acme/widgets",
        "gitea.issue.number": 2, "gitea_mcp.outcome": "ok",
    }  # fmt: skip
    # issue_get reads the issue and its comments at once, on the client's worker threads: each a span of the call.
    routes = {s.name for s in forge}
    assert {"GET /repos/{owner}/{repo}/issues/{number}", "GET /repos/{owner}/{repo}/issues/{number}/comments"} <= routes
    assert all(dict(s.attributes or {})["gitea.repository"] == "acme/widgets" for s in forge)


def test_without_a_trace_from_the_client_the_sdks_span_is_the_root(mcp: TestClient) -> None:
    with recording() as exporter:
        call(mcp, "issue_list", {"owner": "acme", "name": "widgets", "limit": 3}, None)
    message, _, _ = chain(exporter.get_finished_spans(), "issue_list")
    assert message.parent is None


def test_a_malformed_traceparent_is_ignored(mcp: TestClient) -> None:
    with recording() as exporter:
        result = call(mcp, "issue_list", {"owner": "acme", "name": "widgets", "limit": 3}, "00-zz-not-a-trace\r")
    assert not result.get("isError")
    assert chain(exporter.get_finished_spans(), "issue_list")[0].parent is None


def _everything(span: ReadableSpan) -> str:
    """All a span carries that an exporter sends: its name, attributes, status, events and links."""
    said = [span.name, repr(dict(span.attributes or {})), span.status.description or ""]
    said += [f"{e.name} {dict(e.attributes or {})}" for e in span.events]
    return "\n".join(said)


def test_no_token_title_or_body_in_any_span(mcp: TestClient) -> None:
    created = {"owner": "acme", "name": "widgets", "title": TITLE, "body": BODY, "labels": ["bug"]}
    with recording() as exporter:
        call(mcp, "issue_create", created, TRACEPARENT)
        call(mcp, "issue_comment", {"owner": "acme", "name": "widgets", "number": 2, "body": BODY}, TRACEPARENT)
        failed = call(mcp, "issue_get", {"owner": "acme", "name": "widgets", "number": 999_999}, TRACEPARENT)
    spans = exporter.get_finished_spans()
    assert failed.get("isError")
    assert any(dict(s.attributes or {}).get("gitea_mcp.outcome") == "error" for s in spans)
    assert any(s.name == "POST /repos/{owner}/{repo}/issues" for s in spans)
    said = "\n".join(_everything(s) for s in spans)
    for secret in (DEMO_TOKEN, TITLE, BODY, "Zebra", "marmot"):
        assert secret not in said


def test_hostile_names_stay_out_of_the_tools_span(mcp: TestClient) -> None:
    with recording() as exporter:
        call(mcp, "issue_get", {"owner": "acme\u202e", "name": "../../admin", "number": True}, TRACEPARENT)
    [ours] = [s for s in exporter.get_finished_spans() if s.name == "execute_tool issue_get"]
    attributes = dict(ours.attributes or {})
    assert "gitea.repository" not in attributes and "gitea.issue.number" not in attributes
    assert attributes["gitea_mcp.outcome"] == "error"


def test_off_the_sdks_span_alone(mcp: TestClient) -> None:
    with recording() as exporter:
        traces.switch(False)
        call(mcp, "issue_list", {"owner": "acme", "name": "widgets", "limit": 3}, TRACEPARENT)
    assert [s.name for s in exporter.get_finished_spans()] == ["tools/call issue_list"]


# -- switched on, and where spans go -----------------------------------------------------------------------------

ON = Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), traces=True)
OFF = ON.model_copy(update={"traces": False})


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({}, "traces on as gitea-issues-mcp, exported over OTLP/HTTP to http://localhost:4318/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example.com:4318/", "OTEL_SERVICE_NAME": "mcp-team"},
         "traces on as mcp-team, exported over OTLP/HTTP to https://otel.example.com:4318/v1/traces"),
        # The traces endpoint is taken as it is; a credential in it is never said.
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://user:pw@otel.example.com/in?key=k"},
         "traces on as gitea-issues-mcp, exported over OTLP/HTTP to https://otel.example.com/in"),
        ({"OTEL_TRACES_EXPORTER": "console"},
         "traces on as gitea-issues-mcp, written to stderr (OTEL_TRACES_EXPORTER=console)"),
        ({"OTEL_TRACES_EXPORTER": "none"},
         "traces on as gitea-issues-mcp, exported nowhere (OTEL_TRACES_EXPORTER=none)"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
         "traces on as gitea-issues-mcp, exported over OTLP/HTTP to http://localhost:4318/v1/traces"),
    ],
)  # fmt: skip
def test_where_spans_go_is_opentelemetrys_own_configuration(environ: dict[str, str], said: str) -> None:
    assert tracing.describe(ON, environ) == said
    assert tracing.describe(OFF, environ) == "traces off (GITEA_MCP_TRACES)"


@pytest.mark.parametrize(
    ("environ", "sentence"),
    [
        ({"OTEL_TRACES_EXPORTER": "jaeger"}, "OTEL_TRACES_EXPORTER='jaeger' is not an exporter this server has; use "
         "otlp (the default), console (spans to stderr) or none"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL='grpc': this server exports OTLP "
         "over HTTP only; set it to http/protobuf and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port "
         "(4318)"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "otel:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// "
         "URL, e.g. http://otel-collector:4318"),
    ],
)  # fmt: skip
def test_a_wrong_variable_is_one_sentence(
    environ: dict[str, str], sentence: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: trace.ProxyTracerProvider())  # none installed yet
    with pytest.raises(ConfigError) as said:
        tracing.configure(ON, environ)
    assert str(said.value) == sentence
    line = check_traces_with(environ, ON)
    assert (line.mark, line.text) == ("fail", sentence)


def check_traces_with(environ: dict[str, str], settings: Settings) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        for name in (*tracing.WANTING, "OTEL_EXPORTER_OTLP_PROTOCOL"):
            patch.delenv(name, raising=False)
        for name, value in environ.items():
            patch.setenv(name, value)
        return check_traces(settings)


def test_check_says_whether_traces_are_on_and_where_they_go() -> None:
    on = check_traces_with({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, ON)
    assert (on.mark, on.text) == ("ok", "traces on as gitea-issues-mcp, exported over OTLP/HTTP to "
                                  "http://collector:4318/v1/traces")  # fmt: skip
    # Off is the default, unsaid; unless OpenTelemetry's own variables show traces were wanted.
    assert check_traces_with({}, OFF) is None
    off = check_traces_with({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, OFF)
    assert (off.mark, off.text, off.fix) == (
        "warn", "traces off (GITEA_MCP_TRACES), though OTEL_EXPORTER_OTLP_ENDPOINT is set: no spans are made",
        "set GITEA_MCP_TRACES=true to export them, or unset it",
    )  # fmt: skip


def test_without_the_extra_serve_and_check_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracing, "sdk_missing", lambda: True)
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: trace.ProxyTracerProvider())
    with pytest.raises(ConfigError) as said:
        tracing.configure(ON, {})
    assert str(said.value) == (
        "GITEA_MCP_TRACES is on but OpenTelemetry's SDK is not installed: pip install 'gitea-issues-mcp[otel]'"
    )
    line = check_traces_with({}, ON)
    assert (line.mark, line.fix) == ("fail", "pip install 'gitea-issues-mcp[otel]'")


def test_the_sdk_is_the_extras_alone() -> None:
    assert not tracing.sdk_missing()  # the gate installs it (dev pins it)


def test_the_setting_is_read_as_a_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from gitea_mcp.cli.main import parse_args, settings_from

    monkeypatch.setenv("GITEA_MCP_TRACES", "true")
    ns = parse_args(["--url", "https://gitea.test", "--allowed-owners", "acme"])
    assert settings_from(ns).traces
    monkeypatch.setenv("GITEA_MCP_TRACES", "treu")
    with pytest.raises(ConfigError, match="GITEA_MCP_TRACES='treu' is not true or false"):
        settings_from(ns)
    monkeypatch.delenv("GITEA_MCP_TRACES")
    assert not settings_from(ns).traces
    assert Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), token=SecretStr("t")).traces is False
