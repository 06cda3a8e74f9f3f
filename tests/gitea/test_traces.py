"""A span for each request to the forge, its trace context sent on, named by route; nothing when traces are off."""

from __future__ import annotations

import pytest
import requests
import responses
from opentelemetry import trace

from gitea_mcp.gitea import traces
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import GiteaError
from tests.support.gitea_json import API, ROOT
from tests.support.spans import recording

TOKEN = "4f0c6d5e8a7b9c1d2e3f405162738495a6b7c8d9"


@pytest.mark.parametrize(
    ("segments", "route", "repository"),
    [
        (["repos", "acme", "widgets", "issues"], "/repos/{owner}/{repo}/issues", "acme/widgets"),
        (["repos", "acme", "widgets", "issues", 7, "comments"], "/repos/{owner}/{repo}/issues/{number}/comments",
         "acme/widgets"),
        (["repos", "acme", "widgets", "labels", 12], "/repos/{owner}/{repo}/labels/{id}", "acme/widgets"),
        (["repos", "issues", "search"], "/repos/issues/search", None),
        (["orgs", "acme", "labels"], "/orgs/{name}/labels", None),
        (["users", "search"], "/users/search", None),
        (["user"], "/user", None),
        (["version"], "/version", None),
        (["login", "oauth", "access_token"], "/login/oauth/access_token", None),
        # Not a name Gitea allows: no repository named, and the route's placeholders never quote it.
        (["repos", "ac me", "w<id>gets", "issues"], "/repos/{owner}/{repo}/issues", None),
        (["repos", "acme", "widgets", "milestones", "Release 1.0"], "/repos/{owner}/{repo}/milestones/{name}",
         "acme/widgets"),
    ],
)  # fmt: skip
def test_a_route_names_the_api_words_only(segments: list[str | int], route: str, repository: str | None) -> None:
    assert traces.route(segments) == (route, repository)


def client() -> GiteaClient:
    return GiteaClient(ROOT, TOKEN, 5.0, retry=RetryPolicy(attempts=2, base_delay=0.0))


@responses.activate
def test_each_request_is_a_child_span_and_sends_its_trace_on() -> None:
    issues = responses.get(f"{API}/repos/acme/widgets/issues", json=[])
    with recording() as exporter:
        with trace.get_tracer("test").start_as_current_span("caller") as caller:
            client().get(["repos", "acme", "widgets", "issues"], {"q": "secret words"})
        parent = caller.get_span_context()
    [span] = [s for s in exporter.get_finished_spans() if s.name != "caller"]
    assert span.name == "GET /repos/{owner}/{repo}/issues"
    assert span.kind is trace.SpanKind.CLIENT
    assert span.parent is not None and span.parent.span_id == parent.span_id
    assert span.context.trace_id == parent.trace_id
    assert dict(span.attributes or {}) == {
        "http.request.method": "GET", "url.template": "/repos/{owner}/{repo}/issues", "server.address": "gitea.test",
        "gitea.repository": "acme/widgets", "http.response.status_code": 200,
    }  # fmt: skip
    sent = issues.calls[0].request.headers
    flags = int(span.context.trace_flags)
    assert sent["traceparent"] == f"00-{span.context.trace_id:032x}-{span.context.span_id:016x}-{flags:02x}"
    assert sent["Authorization"] == f"token {TOKEN}"


@responses.activate
def test_a_retried_read_is_a_span_per_attempt_and_a_failure_names_its_kind() -> None:
    url = f"{API}/repos/acme/widgets/issues/3"
    responses.get(url, status=503, json={"message": "busy"})
    responses.get(url, status=404, json={"message": f"no issue, token {TOKEN}"})
    with recording() as exporter, pytest.raises(GiteaError):
        client().get(["repos", "acme", "widgets", "issues", 3])
    first, second = exporter.get_finished_spans()
    assert first.attributes is not None and second.attributes is not None
    assert (first.attributes["http.response.status_code"], first.attributes["error.type"]) == (503, "ServerFailed")
    assert "http.request.resend_count" not in first.attributes
    assert (second.attributes["http.response.status_code"], second.attributes["error.type"]) == (404, "NotFound")
    assert second.attributes["http.request.resend_count"] == 1
    assert second.status.status_code is trace.StatusCode.ERROR and not second.status.description
    assert TOKEN not in repr([dict(first.attributes), dict(second.attributes)])


@responses.activate
def test_no_connection_is_a_failed_span() -> None:
    responses.get(f"{API}/version", body=requests.ConnectTimeout("no connection"))
    with recording() as exporter, pytest.raises(GiteaError):
        GiteaClient(ROOT, TOKEN, 1.0, retry=RetryPolicy(attempts=1)).get(["version"])
    [span] = exporter.get_finished_spans()
    assert span.attributes is not None and span.attributes["error.type"] == "NotSent"
    assert "http.response.status_code" not in span.attributes


@responses.activate
def test_reads_at_once_on_worker_threads_keep_the_callers_span() -> None:
    for number in (1, 2, 3):
        responses.get(f"{API}/repos/acme/widgets/issues/{number}", json={})
    forge = client()
    with recording() as exporter:
        with trace.get_tracer("test").start_as_current_span("caller") as caller:
            forge.parallel(*(lambda n=n: forge.get(["repos", "acme", "widgets", "issues", n]) for n in (1, 2, 3)))
        parent = caller.get_span_context().span_id
    spans = [s for s in exporter.get_finished_spans() if s.name != "caller"]
    assert len(spans) == 3 and all(s.parent is not None and s.parent.span_id == parent for s in spans)


@responses.activate
def test_off_no_span_and_no_traceparent() -> None:
    issues = responses.get(f"{API}/repos/acme/widgets/issues", json=[])
    with recording() as exporter:
        traces.switch(False)
        with trace.get_tracer("test").start_as_current_span("caller"):
            client().get(["repos", "acme", "widgets", "issues"])
    assert [s.name for s in exporter.get_finished_spans()] == ["caller"]
    assert "traceparent" not in issues.calls[0].request.headers


@responses.activate
def test_a_page_outside_the_api_is_traced_too() -> None:
    token = responses.post(f"{ROOT}/login/oauth/access_token", json={"access_token": "x"})
    with recording() as exporter:
        status, _ = client().site("POST", "/login/oauth/access_token", {"code": "the-code", "client_secret": "s3cret"})
    [span] = exporter.get_finished_spans()
    assert status == 200 and span.name == "POST /login/oauth/access_token"
    assert "traceparent" in token.calls[0].request.headers
    assert "the-code" not in repr(dict(span.attributes or {})) and "s3cret" not in repr(dict(span.attributes or {}))
