"""Property tests: whatever an agent sends, every call ends in a result or a clear tool error, and no request
ever reaches Gitea for an owner outside the allowlist, or with a path Gitea would read as another owner's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import CallToolResult, TextContent

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.toolkit.arguments import argument_schemas
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.toolkit.lockdown import Lockdown
from tests.support import TOKEN, tool_cases
from tests.support.gitea_json import API, LABELS, ROOT, comment, issue, user

ALLOWED = {"acme"}

# Strings an agent (or an injected prompt) might produce: traversal, encodings, unicode, controls, huge.
hostile = st.one_of(
    st.sampled_from(
        [
            "acme",
            "ACME",
            "other",
            "..",
            ".",
            "../other",
            "acme/../other",
            "%2e%2e",
            "acme%2fother",
            "a\x00b",
            "a\nb",
            "ａｃｍｅ",
            "acme ",
            " acme",
            "acme\u200b",
            "*",
            "",
            "..%2f",
            "~",
            "acme?x=1",
        ]
    ),
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=200, max_size=2000),
)
names = st.one_of(
    st.sampled_from(["widgets", "..", "../../other/secret", "w%2e%2e", "widgets#1"]), st.text(max_size=30)
)
words = st.one_of(st.none(), hostile)
numbers = st.integers(min_value=-(2**63), max_value=2**63)
# Whatever an agent sends for a number: most of these must be refused with a sentence, before any request.
anything = st.one_of(numbers, st.booleans(), st.text(max_size=10), st.none(), st.floats(allow_nan=True))


def answer(request: Any) -> tuple[int, dict[str, str], str]:
    """A plausible Gitea answer for any path, so the tools run to the end."""
    import json

    path = urlsplit(request.url).path
    if request.method == "POST" and path.endswith("/comments"):
        return 201, {}, json.dumps(comment(9, "x", "demo"))
    if request.method in ("POST", "PATCH"):
        return 201, {}, json.dumps(issue(9, author="demo"))
    if path.endswith("/user"):
        return 200, {}, json.dumps(user("demo", 5))
    if path.endswith("/labels"):
        return 200, {"X-Total-Count": "3"}, json.dumps(LABELS)
    if re.search(r"/issues/\d+$", path):
        return 200, {}, json.dumps(issue(9))
    if path.endswith(("/issues", "/search", "/milestones", "/comments")):
        return 200, {"X-Total-Count": "1"}, json.dumps([issue(9)] if "milestones" not in path else [])
    return 200, {}, "{}"


def check(call: Callable[[Deps], CallToolResult], lockdown: Lockdown | None = None) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        for method in ("GET", "POST", "PATCH", "PUT", "DELETE"):
            rsps.add_callback(method, re.compile(re.escape(ROOT) + ".*"), callback=answer)
        client = GiteaClient(ROOT, TOKEN, 5, retry=RetryPolicy(attempts=1))
        deps = Deps(client, Policy(frozenset(ALLOWED)), Catalog(), lockdown=lockdown)
        result = call(deps)
        assert isinstance(result, CallToolResult)
        block = result.content[0]
        assert isinstance(block, TextContent) and block.text.strip()
        assert TOKEN not in block.text and "Traceback" not in block.text
        assert not re.search(r"validation error|pydantic|\[type=|input_value", block.text), block.text
        assert "\n" not in block.text or not result.is_error, "an error is one sentence"
        assert result.is_error or result.structured_content is not None
        for sent in rsps.calls:
            path = urlsplit(sent.request.url or "").path.removeprefix(urlsplit(API).path)
            segments = [unquote(s) for s in path.split("/")]
            assert ".." not in segments and "." not in segments, path
            if segments[1:2] == ["repos"] and segments[1:4] != ["repos", "issues", "search"]:
                # Anything else under /repos/ names an owner — including what urllib3 makes of a `..` segment.
                assert segments[2].lower() in ALLOWED, f"request for a refused owner: {path}"
            if "owner" in (
                params := dict(p.split("=", 1) for p in (urlsplit(sent.request.url or "").query or "x=y").split("&"))
            ):
                assert unquote(params["owner"]).lower() in ALLOWED


fast = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# An argument by its name where the name says more than its type; else by its type (tests/support/tool_cases.py
# gives every tool's arguments from its declaration, so a new tool is covered with no edit here).
BY_NAME: dict[str, st.SearchStrategy[Any]] = {
    "owner": hostile,
    "name": names,
    "query": hostile,
    "number": st.one_of(st.just(9), anything),  # often a plain number, so that the call goes on to Gitea
}
BY_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "string": hostile,
    "integer": numbers,
    "boolean": anything,
    "array": st.one_of(st.lists(hostile, max_size=3), hostile),
}


def calls(tool: ToolDefinition) -> st.SearchStrategy[dict[str, Any]]:
    """Any call of `tool`: each required argument hostile, each optional one hostile, null, or left out."""
    schema = tool_cases.arguments_of(tool)
    required = set(argument_schemas(tool.args).get("required", []))

    def strategy(name: str) -> st.SearchStrategy[Any]:
        found = BY_NAME.get(name, BY_TYPE.get(schema[name].get("type", "string"), hostile))
        return found if name in required else st.one_of(st.none(), found)

    return st.fixed_dictionaries(
        {name: strategy(name) for name in schema if name in required},
        optional={name: strategy(name) for name in schema if name not in required},
    )


@pytest.mark.parametrize("tool", tool_cases.tools(), ids=tool_cases.name_of)
@fast
@given(data=st.data())
def test_every_tool(tool: ToolDefinition, data: st.DataObject) -> None:
    args = data.draw(calls(tool), label="arguments")
    check(lambda deps: tool.call(deps, args))


# Under lockdown (GITEA_LOCKDOWN) the same holds, and the answer still fits the tool's output schema (`served`):
# this Gitea answers lockdown's reads with nothing it can confirm, so every author's text is withheld.
@pytest.mark.parametrize("tool", tool_cases.tools(), ids=tool_cases.name_of)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_tool_under_lockdown(tool: ToolDefinition, data: st.DataObject) -> None:
    args = data.draw(calls(tool), label="arguments")
    check(lambda deps: tool.served(deps, args), Lockdown())
