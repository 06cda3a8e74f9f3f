"""The tool definitions as client SDKs nobody here wrote read them, with those SDKs' own code (issue 34).

google-genai converts every tool of an MCP session before each call; openai-agents in strict mode makes every
argument required, so a model there sends null for each argument it does not mean; a draft-07 and a 2020-12
validator read every schema and check real results. All in process, on the definitions the server lists: no network,
no API key. The SDKs are the `interop` extra, which the README's test command installs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Iterator
from typing import Any

import jsonschema
import pytest
from agents import Agent, FunctionTool, RunContextWrapper, set_tracing_disabled
from agents.mcp import MCPServer, MCPUtil
from agents.tool_context import ToolContext
from google.genai import _extra_utils
from google.genai import types as genai
from mcp import Client
from mcp.server.mcpserver import MCPServer as AppServer
from mcp.types import CallToolResult, GetPromptResult, ListPromptsResult, Tool

from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.standin import DEMO_ALL_TOKEN, DEMO_TOKEN, StandIn, store
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.arguments import NULL_NOT_GIVEN
from tests.support import tool_cases
from tests.support.results import answered

DRAFTS = [
    pytest.param(jsonschema.Draft7Validator, id="draft-07"),
    pytest.param(jsonschema.Draft202012Validator, id="2020-12"),
]
# Keywords that mean the same to a draft-07 and a 2020-12 validator (`items` only as one schema: an array of
# schemas is a tuple in draft-07 and invalid in 2020-12, whose tuple is `prefixItems`, unknown to draft-07).
SAME_IN_BOTH = {"type", "properties", "required", "items", "enum", "anyOf", "default", "description", "minimum",
                "maximum", "minItems", "maxItems", "additionalProperties"}  # fmt: skip
NAMES = [spec.name for spec in registry.offered(read_only=False)]
APP = build_server(Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"})))
SERVED: dict[str, Tool] = {tool.name: tool for tool in asyncio.run(APP.list_tools())}

# Each tool's call without its optional arguments: the required ones filled, and what it takes to answer (issue_search
# needs whose issues, issue_get an issue, issue_update a change).
# Each tool's plain call (tests/support/tool_cases.py: its required arguments and those the vocabulary names).
BASE: dict[str, dict[str, Any]] = {name: tool_cases.sample(registry.definition(name)) for name in NAMES}


def test_every_tool_has_a_base_call_with_its_required_arguments() -> None:
    assert set(BASE) == set(NAMES)
    for name, call in BASE.items():
        assert set(SERVED[name].input_schema.get("required", [])) <= set(call), name


# -- the schemas, under both drafts ------------------------------------------------------------------------------


def _schemas() -> list[Any]:
    inputs = [pytest.param(SERVED[name].input_schema, id=f"{name}-input") for name in NAMES]
    return inputs + [pytest.param(SERVED[name].output_schema, id=f"{name}-output") for name in NAMES]


@pytest.mark.parametrize("validator", DRAFTS)
@pytest.mark.parametrize("schema", _schemas())
def test_every_schema_is_valid_under_both_drafts(schema: dict[str, Any], validator: Any) -> None:
    validator.check_schema(schema)


@pytest.mark.parametrize("schema", _schemas())
def test_every_schema_uses_only_keywords_that_mean_the_same_in_both_drafts(schema: dict[str, Any]) -> None:
    assert _keywords(schema) <= SAME_IN_BOTH, _keywords(schema) - SAME_IN_BOTH
    assert all(isinstance(items, dict) for items in _values_of("items", schema))


def _keywords(node: Any, names: bool = False) -> set[str]:
    """Every keyword a schema uses; the keys of `properties` are names, not keywords."""
    if isinstance(node, dict):
        here = set() if names else set(node)
        return here.union(*(_keywords(v, names=k == "properties" and not names) for k, v in node.items()))
    return set().union(*(_keywords(v) for v in node)) if isinstance(node, list) else set()


def _values_of(keyword: str, node: Any) -> list[Any]:
    if isinstance(node, list):
        return [found for item in node for found in _values_of(keyword, item)]
    if not isinstance(node, dict):
        return []
    here = [node[keyword]] if keyword in node else []
    return here + [found for value in node.values() for found in _values_of(keyword, value)]


@pytest.mark.parametrize("name", NAMES)
def test_each_optional_argument_admits_null_and_the_description_says_what_it_means(name: str) -> None:
    schema = SERVED[name].input_schema
    required = set(schema.get("required", []))
    for validator in (jsonschema.Draft7Validator, jsonschema.Draft202012Validator):
        for argument in schema["properties"]:
            admits_null = validator(schema).is_valid({**BASE[name], argument: None})
            assert admits_null is (argument not in required), (name, argument)
    assert "additionalProperties" not in schema  # google-genai cannot read `false`; the server refuses by name
    # Said once where some argument is optional; a tool whose every argument is required has no null to explain.
    optional = set(schema["properties"]) - required
    assert (SERVED[name].description or "").count(NULL_NOT_GIVEN) == (1 if optional else 0)


def test_an_unknown_argument_is_still_refused_with_the_closest_name() -> None:
    """Leaving `additionalProperties` out of the schema loses nothing: the server refuses the name itself."""
    result = answered(asyncio.run(APP.call_tool("issue_list", {"owner": "acme", "name": "widgets", "lables": "bug"})))
    assert result.is_error and "has no argument 'lables'; did you mean labels?" in str(result.content[0])


# -- google-genai: the conversion its MCP support runs before each call -----------------------------------------


def _gemini_declarations() -> dict[str, genai.FunctionDeclaration]:
    async def converted() -> list[genai.Tool]:
        async with Client(APP) as client:
            config = genai.GenerateContentConfig(tools=[client.session])
            parsed, _ = await _extra_utils.parse_config_for_mcp_sessions(config)
            assert parsed is not None and parsed.tools is not None
            return [tool for tool in parsed.tools if isinstance(tool, genai.Tool)]

    tools = asyncio.run(converted())
    return {fd.name or "": fd for tool in tools for fd in tool.function_declarations or []}


def test_google_genai_converts_every_served_tool() -> None:
    declarations = _gemini_declarations()
    assert list(declarations) == NAMES
    for name, declaration in declarations.items():
        # What it built holds to its own types: re-validated, nothing it let through unchecked (a null in an enum).
        again = genai.FunctionDeclaration.model_validate(declaration.model_dump(exclude_none=True))
        assert again == declaration, name


@pytest.mark.parametrize("name", NAMES)
def test_google_genai_keeps_each_arguments_meaning(name: str) -> None:
    """Type, null, enum, bounds, default and description of every argument, as Gemini's schema says them."""
    served = SERVED[name].input_schema
    parameters = _gemini_declarations()[name].parameters
    assert parameters is not None and parameters.properties is not None
    required = served.get("required", [])
    assert (parameters.required or []) == required
    assert list(parameters.properties) == list(served["properties"])
    for argument, prop in served["properties"].items():
        assert _gemini_meaning(parameters.properties[argument]) == _json_meaning(prop, argument not in required)


def _json_meaning(prop: dict[str, Any], optional: bool) -> dict[str, Any]:
    plain = next((branch for branch in prop.get("anyOf", []) if branch != {"type": "null"}), prop)
    kinds = plain["type"] if isinstance(plain["type"], list) else [plain["type"]]
    said = {**plain, **{key: prop[key] for key in ("default", "description") if key in prop}}
    return {
        "type": next(kind for kind in kinds if kind != "null").upper(),
        "nullable": optional,
        "items": said["items"]["type"].upper() if "items" in said else None,
        **{key: said.get(key) for key in ("enum", "minimum", "maximum", "default", "description")},
    }


def _gemini_meaning(schema: genai.Schema) -> dict[str, Any]:
    return {
        "type": schema.type.value if schema.type else None,
        "nullable": bool(schema.nullable),
        "items": schema.items.type.value if schema.items and schema.items.type else None,
        "enum": schema.enum,
        "minimum": schema.minimum,
        "maximum": schema.maximum,
        "default": schema.default,
        "description": schema.description,
    }


# -- openai-agents: strict mode, and a strict call -----------------------------------------------------------------


class InProcess(MCPServer):
    """Our server, as openai-agents reaches an MCP server, in process: listing and calling as the SDK asks."""

    def __init__(self, app: AppServer) -> None:
        super().__init__()
        self.app = app
        self.results: list[CallToolResult] = []

    async def connect(self) -> None:
        pass

    @property
    def name(self) -> str:
        return "gitea"

    async def cleanup(self) -> None:
        pass

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[Tool]:
        return await self.app.list_tools()

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        result = answered(await self.app.call_tool(tool_name, arguments or {}))
        self.results.append(result)
        return result

    async def list_prompts(self) -> ListPromptsResult:
        raise NotImplementedError

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> GetPromptResult:
        raise NotImplementedError


@pytest.fixture(autouse=True)
def no_tracing() -> Iterator[None]:
    """openai-agents traces tool calls and exports the traces to OpenAI: never from a test."""
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


def _strict_tools(server: InProcess) -> dict[str, FunctionTool]:
    listed = asyncio.run(MCPUtil.get_function_tools(server, True, RunContextWrapper(context=None), Agent(name="agent")))
    return {tool.name: tool for tool in listed if isinstance(tool, FunctionTool)}


@pytest.mark.parametrize("name", NAMES)
def test_openai_agents_converts_every_served_tool_in_strict_mode(name: str) -> None:
    """Strict, not its fallback; every argument required; each one's schema as served (its meaning kept)."""
    tool = _strict_tools(InProcess(APP))[name]
    served = SERVED[name].input_schema
    assert tool.strict_json_schema is True
    assert tool.params_json_schema["required"] == list(served["properties"])
    assert tool.params_json_schema["properties"] == served["properties"]


@pytest.fixture
def frozen_forge_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two fresh stand-ins that write the same thing stamp it with the same time."""
    at = store.utcnow()
    monkeypatch.setattr(store, "utcnow", lambda: at)


@pytest.mark.usefixtures("frozen_forge_clock")
@pytest.mark.parametrize("name", NAMES)
def test_a_strict_call_with_every_optional_argument_null_answers_as_the_call_without_them(name: str) -> None:
    """What a strict model sends (every argument; null for each optional one it does not mean), through
    openai-agents' own invocation, on a fresh stand-in; the call without them on another: the same answer, and
    structured content that fits the output schema under both drafts."""
    strict = _strict_tools(InProcess(APP))[name].params_json_schema
    every = {**{argument: None for argument in strict["properties"]}, **BASE[name]}
    for validator in (jsonschema.Draft7Validator, jsonschema.Draft202012Validator):
        assert validator(strict).is_valid(every) and validator(SERVED[name].input_schema).is_valid(every)
    with_nulls, without = _called(name, every), _called(name, BASE[name])
    assert not without[1].is_error, without[0]
    assert with_nulls[0] == without[0]
    assert with_nulls[1].structured_content == without[1].structured_content
    _fits_output_schema(name, with_nulls[1].structured_content)


def _called(name: str, arguments: dict[str, Any]) -> tuple[str, CallToolResult]:
    """The tool called as openai-agents calls it, on a fresh stand-in: what the model reads (the stand-in's URL
    written as <forge>) and the result the server sent."""
    with StandIn() as forge:
        token = DEMO_ALL_TOKEN if name in tool_cases.NEEDS_READ_REPOSITORY else DEMO_TOKEN
        client = GiteaClient(forge.url, token, timeout=5, retry=RetryPolicy(attempts=1))
        server = InProcess(build_server(Settings(url=forge.url, allowed_owners=frozenset({"acme"})), client))
        tool = _strict_tools(server)[name]
        sent = json.dumps(arguments)
        context = ToolContext(context=None, tool_name=name, tool_call_id="call-1", tool_arguments=sent)
        read: Any = asyncio.run(_awaited(tool.on_invoke_tool(context, sent)))
        (result,) = server.results
        shown = json.dumps(read, ensure_ascii=False).replace(forge.url, "<forge>")
        if result.structured_content is not None:
            structured = json.loads(json.dumps(result.structured_content).replace(forge.url, "<forge>"))
            result = result.model_copy(update={"structured_content": structured})
        return shown, result


async def _awaited(pending: Awaitable[Any]) -> Any:
    return await pending


def _fits_output_schema(name: str, content: dict[str, Any] | None) -> None:
    """A real result fits its tool's output schema under both drafts, and the check can fail: without one of its
    required keys it does not fit."""
    schema = SERVED[name].output_schema
    assert content is not None and schema is not None
    first_required = schema["required"][0]
    cut = {key: value for key, value in content.items() if key != first_required}
    for validator in (jsonschema.Draft7Validator, jsonschema.Draft202012Validator):
        assert validator(schema).is_valid(content), list(validator(schema).iter_errors(content))[:1]
        assert not validator(schema).is_valid(cut)
