"""What every tool shares (toolkit/base.py): the error boundary, one deadline per call, the tool as tools/list shows
it, and the output schema the server holds its own answers to."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
import responses
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.client import GiteaClient
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.toolkit import envelope
from gitea_mcp.toolkit.arguments import Arguments, input_schema
from gitea_mcp.toolkit.base import Deps, ToolDefinition, failed_inside, guard, output_schema
from gitea_mcp.toolkit.spec import ToolSpec
from tests.support.gitea_json import API, api_error
from tests.support.results import failed, ok

ISSUES = f"{API}/repos/acme/widgets/issues"
WRITER = ToolSpec("t", "d.", "issues", True, ("write:issue", "read:user"), order=1, budget=100, listed_budget=200)
READER = ToolSpec.reading("t", "d.", "read:issue", toolset="issues", order=1, budget=100, listed_budget=200)
NO_SCOPE = "token does not have at least one of required scope(s)"


def asks_gitea(deps: Deps) -> Callable[[], CallToolResult]:
    """A tool body that lists the issues and would answer with their count: the failures come from Gitea's answer."""

    def body() -> CallToolResult:
        deps.client.get(["repos", "acme", "widgets", "issues"])
        return envelope.error("not reached")

    return body


def bad_argument(result: CallToolResult) -> bool:
    return bool((result.meta or {}).get(envelope.BAD_ARGUMENT))


# -- guard: every failure an isError sentence --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "tool", "sentence"),
    [
        pytest.param(
            {"status": 403, "json": api_error(f"{NO_SCOPE}, required=[read:user], token scope=read:issue")},
            WRITER,
            "The token lacks write:issue and read:user, which t needs (403; it has read:issue). Create a token with "
            "write:issue and read:user and set GITEA_TOKEN.",
            id="scope-1.25-names-the-tokens-own",
        ),
        pytest.param(
            {"status": 403, "json": api_error(f"{NO_SCOPE}: [read:user]")},
            WRITER,
            "The token lacks read:user (403), and t needs write:issue and read:user. Create a token with write:issue "
            "and read:user and set GITEA_TOKEN.",
            id="scope-1.22-names-one",
        ),
        pytest.param(
            {"status": 403, "json": api_error(f"{NO_SCOPE}: [read:issue]")},
            READER,
            "The token lacks read:issue, which t needs (403). Create a token with read:issue and set GITEA_TOKEN.",
            id="scope-the-only-one-needed",
        ),
        pytest.param(
            {"status": 301, "headers": {"Location": "/api/v1/repos/acme/gizmos/issues"}},
            READER,
            "call again with owner=acme name=gizmos.",
            id="moved-within-the-allowlist",
        ),
        pytest.param(
            {"status": 301, "headers": {"Location": "/api/v1/repos/elsewhere/gizmos/issues"}},
            READER,
            "Its new owner is outside GITEA_ALLOWED_OWNERS, so this server cannot work with it there; ask the operator "
            "to allow that owner if it should.",
            id="moved-outside-the-allowlist",
        ),
    ],
)
def test_gitea_refusals_are_said_in_the_tools_words(
    mocked: responses.RequestsMock, deps: Deps, answer: dict[str, Any], tool: ToolSpec, sentence: str
) -> None:
    mocked.get(ISSUES, **answer)
    result = guard(asks_gitea(deps), tool, deps)
    said = failed(result)
    assert said.endswith(sentence) and not bad_argument(result)
    assert "elsewhere" not in said and "gizmos/issues" not in said, "a place outside the allowlist is never named"


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        pytest.param({"status": 403, "json": api_error("write permission is required")}, "write permission", id="403"),
        pytest.param({"status": 422, "json": api_error("invalid since")}, "Gitea said: invalid since", id="422"),
        pytest.param({"status": 500, "json": api_error("")}, "server error (500)", id="500"),
    ],
)
def test_any_other_gitea_failure_is_its_own_sentence_as_it_is(
    mocked: responses.RequestsMock, deps: Deps, answer: dict[str, Any], said: str
) -> None:
    mocked.get(ISSUES, **answer)
    with pytest.raises(GiteaError) as raised:
        asks_gitea(deps)()
    mocked.calls.reset()
    result = guard(asks_gitea(deps), READER, deps)
    assert failed(result) == str(raised.value) and said in str(raised.value)
    assert not bad_argument(result)


@pytest.mark.parametrize(
    ("exc", "sentence", "marked"),
    [
        pytest.param(ToolFailure("label 'x' does not exist."), "label 'x' does not exist.", False, id="ours"),
        pytest.param(BadArgument("limit=0 is not valid."), "limit=0 is not valid.", True, id="bad-argument"),
        pytest.param(ToolFailure("a title\nwith a newline"), "a title ⏎ with a newline", False, id="one-line"),
        pytest.param(
            KeyError("rows"),
            "t failed inside gitea_mcp (KeyError); the server log has details.",
            False,
            id="unexpected",
        ),
    ],
)
def test_our_refusals_as_they_are_anything_else_generic(
    deps: Deps, exc: Exception, sentence: str, marked: bool
) -> None:
    def body() -> CallToolResult:
        raise exc

    result = guard(body, READER, deps)
    assert failed(result) == sentence and bad_argument(result) is marked


def test_an_unexpected_failure_leaves_its_traceback_in_the_log_only(
    deps: Deps, caplog: pytest.LogCaptureFixture
) -> None:
    def body() -> CallToolResult:
        raise ZeroDivisionError("the internal detail")

    said = failed(guard(body, READER, deps))
    assert "the internal detail" not in said
    (record,) = [r for r in caplog.records if r.name == "gitea_mcp.tools"]
    assert record.getMessage() == "t failed unexpectedly" and record.exc_info is not None


def test_a_result_passes_the_boundary_untouched(deps: Deps) -> None:
    answer = CallToolResult(content=[TextContent(type="text", text="ok")], structured_content={"total": 1})
    assert guard(lambda: answer, READER, deps) is answer


def test_failed_inside_names_the_tool_and_the_kind_only() -> None:
    said = failed(failed_inside("issue_list", ValueError("secret detail")))
    assert said == "issue_list failed inside gitea_mcp (ValueError); the server log has details."


# -- one deadline per call -------------------------------------------------------------------------------------------


def test_until_binds_the_client_alone_and_leaves_the_original_unbound(deps: Deps) -> None:
    deadline = time.monotonic() + 30
    bound = deps.until(deadline)
    assert bound.client.deadline == deadline and deps.client.deadline is None
    assert (bound.policy, bound.catalog, bound.now, bound.flights, bound.granted) == (
        deps.policy,
        deps.catalog,
        deps.now,
        deps.flights,
        deps.granted,
    )


class _Count(Arguments):
    count: int = Field(default=1, ge=1)


class _Total(BaseModel):
    total: int


def _tool(seen: list[tuple[Deps, Any]], spec: ToolSpec = READER) -> ToolDefinition:
    def run(deps: Deps, args: _Count) -> CallToolResult:
        seen.append((deps, args))
        return envelope.result(f"{args.count} counted.", _Total(total=args.count))

    return ToolDefinition(spec, _Count, _Total, run)


def test_a_call_without_a_deadline_opens_one_its_budget_ahead(deps: Deps) -> None:
    seen: list[tuple[Deps, Any]] = []
    before = time.monotonic()
    ok(_tool(seen).call(deps, {"count": 3}))
    after = time.monotonic()
    (given, args), budget = seen[0], deps.client.call_budget
    assert args == _Count(count=3)
    assert given.client.deadline is not None and before + budget <= given.client.deadline <= after + budget


def test_a_call_keeps_the_deadline_it_was_given(deps: Deps) -> None:
    seen: list[tuple[Deps, Any]] = []
    deadline = time.monotonic() + 2.5  # when the call arrived: the server opens it then
    ok(_tool(seen).call(deps, {}, deadline))
    assert seen[0][0].client.deadline == deadline


@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        pytest.param({"cout": 2}, "t has no argument 'cout'", id="unknown"),
        pytest.param({"count": 0}, "count=0", id="out-of-range"),
        pytest.param({"count": "many"}, "count='many'", id="wrong-type"),
    ],
)
def test_wrong_arguments_are_refused_before_the_tool_runs(deps: Deps, arguments: dict[str, Any], sentence: str) -> None:
    seen: list[tuple[Deps, Any]] = []
    result = _tool(seen).call(deps, arguments)
    assert sentence in failed(result) and bad_argument(result)
    assert seen == []


# -- the tool as tools/list shows it ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "hints"),
    [
        pytest.param(READER, (True, False, True), id="reads"),
        pytest.param(
            ToolSpec.written_once("t", "d.", "write:issue", toolset="issues", order=1, budget=100, listed_budget=200),
            (False, False, False),
            id="files-once",
        ),
        pytest.param(
            ToolSpec("t", "d.", "issues", True, ("write:issue",), 1, 100, 200, destructive=True),
            (False, True, True),
            id="edits",
        ),
    ],
)
def test_the_listing_hints_follow_the_spec(spec: ToolSpec, hints: tuple[bool, bool, bool]) -> None:
    listed = _tool([], spec).listing()
    annotations = listed.annotations
    assert annotations is not None
    said = (annotations.read_only_hint, annotations.destructive_hint, annotations.idempotent_hint)
    assert said == hints and annotations.open_world_hint is True
    assert listed.name == "t" and listed.input_schema == input_schema(_Count)
    assert listed.output_schema == output_schema(_Total)


class _Row(BaseModel):
    """A row: this prose is for the model's readers, never sent."""

    number: int = Field(description="the issue's number")
    name: str | None = None


class _Note(BaseModel):
    """A note."""

    text: str = Field(description="what it says")


class _Rows(BaseModel):
    """The rows."""

    rows: list[_Row]
    note: _Note | None = None


def _nodes(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [found for item in node for found in _nodes(item)]
    if not isinstance(node, dict):
        return []
    return [node, *(found for value in node.values() for found in _nodes(value))]


def test_the_output_schema_is_inlined_without_prose_and_made_once() -> None:
    schema = output_schema(_Rows)
    keys = {key for node in _nodes(schema) for key in node}
    assert not keys & {"description", "$defs", "$ref", "title"}
    assert schema["properties"]["rows"]["items"]["properties"]["number"] == {"type": "integer"}
    assert schema["properties"]["note"] == {
        "anyOf": [
            {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            {"type": "null"},
        ]
    }
    assert output_schema(_Rows) is schema, "computed once: every tools/list sends it"


# -- served: an answer off its schema is our bug ---------------------------------------------------------------------


class _NoArguments(Arguments):
    pass


def _answering(content: dict[str, Any] | None, error: bool = False) -> ToolDefinition:
    def run(deps: Deps, args: _NoArguments) -> CallToolResult:
        if error:
            return envelope.error("Gitea said no.")
        return CallToolResult(content=[TextContent(type="text", text="ok")], structured_content=content)

    return ToolDefinition(READER, _NoArguments, _Total, run)


def test_content_that_does_not_fit_the_output_schema_is_our_bug_said_as_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The SDK checked structured content against the output model; the check is ours now, and still made."""
    tool = _answering({"total": "many"})
    deps = Deps(client=GiteaClient("http://127.0.0.1:9", None, timeout=1), policy=Policy(frozenset({"acme"})))
    assert failed(tool.served(deps, {})) == "t failed inside gitea_mcp (ValidationError); the server log has details."
    assert tool.call(deps, {}).is_error is False  # `call` alone does not check: only the server
    assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records if r.name == "gitea_mcp.tools")


@pytest.mark.parametrize(
    ("tool", "is_error"),
    [
        pytest.param(_answering({"total": 2}), False, id="fits"),
        pytest.param(_answering(None, error=True), True, id="an-error-has-no-content-to-check"),
    ],
)
def test_a_fitting_answer_or_an_error_is_served_as_called(deps: Deps, tool: ToolDefinition, is_error: bool) -> None:
    served = tool.served(deps, {})
    assert served.is_error is is_error
    assert served.model_dump() == tool.call(deps, {}).model_dump()
