"""gitea_mcp.server.audit: one JSON line per tool call, for every tool (its plain call, tests/support/tool_cases.py),
through the server as a client reaches it; and under the hostile-input suite's arguments, never a token, a body, a
title or a comment in any line."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from pydantic import SecretStr

import gitea_mcp.observe as observe
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.server import audit
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import ConfigError, Settings
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit.base import ToolDefinition
from tests.support import TOKEN, tool_cases
from tests.support.gitea_json import ROOT
from tests.test_hostile_input import answer, calls

WRITE_ID = re.compile(r"[0-9a-f]{16}")


@pytest.fixture(scope="module")
def forge() -> Iterator[StandIn]:
    with StandIn() as standin:
        yield standin


def known(forge: StandIn) -> None:
    """Whose the token is, learnt as the gate or the tools' first read of /user learn it."""
    Catalog().me(GiteaClient(forge.url, DEMO_TOKEN, 5))


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


def serve(url: str, token: str, log: Path, **extra: Any) -> Any:
    settings = Settings(
        url=url, token=SecretStr(token), allowed_owners=frozenset({"acme"}), audit_log=str(log), **extra
    )
    return build_server(settings, GiteaClient(url, token, 5, retry=RetryPolicy(attempts=1)))


def call(server: Any, tool: str, arguments: Any) -> CallToolResult | None:
    try:
        result = asyncio.run(server.call_tool(tool, arguments))
    except MCPError:
        return None
    assert isinstance(result, CallToolResult)
    return result


@pytest.mark.parametrize("tool", tool_cases.tools(), ids=tool_cases.name_of)
def test_each_tools_call_is_one_line_naming_who_what_where_and_how_it_ended(
    tool: ToolDefinition, forge: StandIn, tmp_path: Path
) -> None:
    log = tmp_path / "audit.log"
    known(forge)
    arguments = tool_cases.sample(tool)
    result = call(serve(forge.url, DEMO_TOKEN, log), tool.spec.name, arguments)
    assert result is not None
    [line] = lines(log)
    assert tuple(line) == audit.FIELDS
    assert line["tool"] == tool.spec.name and line["user"] == "demo"
    assert line["repository"] == "acme/widgets"
    assert line["issue"] == (3 if "number" in arguments else None)
    assert line["outcome"] == ("tool_error" if result.is_error else "ok")
    if "allow_duplicate" in tool_cases.arguments_of(tool):  # it files something new, once: the guard's key is its id
        assert WRITE_ID.fullmatch(line["write_id"] or ""), "a write names the write guard's key"
    else:  # a read, or an update that only sets values (no guard: calling it again is safe; with a comment, below)
        assert line["write_id"] is None
    assert isinstance(line["duration_ms"], float) and 0 <= line["duration_ms"] < 60_000
    assert datetime.fromisoformat(line["time"]).utcoffset() is not None
    for said in ("title", "body", "comment", "query"):
        if said in arguments:
            assert str(arguments[said]) not in json.dumps(line), f"the {said} is never written"


def test_an_update_that_comments_has_the_guards_write_id_and_two_alike_share_it(forge: StandIn, tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    known(forge)
    server = serve(forge.url, DEMO_TOKEN, log)
    closing = {"owner": "acme", "name": "widgets", "number": 4, "state": "closed", "comment": "Fixed in the nightly."}
    call(server, "issue_update", closing)
    call(server, "issue_update", {**closing, "state": "open"})
    first, second = lines(log)
    assert WRITE_ID.fullmatch(first["write_id"] or "") and first["write_id"] == second["write_id"]
    assert "nightly" not in log.read_text()


@pytest.mark.parametrize(
    ("tool", "arguments", "outcome", "repository", "issue"),
    [
        ("issue_get", {"owner": "acme", "name": "widgets", "number": "x"}, "bad_argument", "acme/widgets", None),
        ("issue_get", {"owner": "other", "name": "w", "number": 7}, "tool_error", "other/w", 7),
        ("issue_get", {"owner": "../etc", "name": "w", "number": 7}, "tool_error", None, 7),
        ("issue_get", {"owner": TOKEN, "name": "w", "number": 7}, "tool_error", None, 7),
        ("issue_get", {"owner": "acme", "name": TOKEN[:12], "number": 7}, "tool_error", None, 7),
        ("issue_get", {"owner": "a" * 40 + "0" * 32, "name": "w", "number": 7}, "tool_error", None, 7),
        ("issue_get", {"owner": "acme", "name": "widgets", "number": True}, "bad_argument", "acme/widgets", None),
        ("issue_lsit", {"owner": "acme", "name": "widgets"}, "unserved", None, None),  # no tool: nothing quoted
        ("label_list", {"owner": "acme"}, "bad_argument", "acme", None),
    ],
)
def test_refusals_are_lines_too_with_only_what_is_safe_to_quote(
    tmp_path: Path, tool: str, arguments: dict[str, Any], outcome: str, repository: str | None, issue: int | None
) -> None:
    log = tmp_path / "audit.log"
    server = serve("http://127.0.0.1:9", TOKEN, log)  # nothing listens: nothing here reaches a forge
    call(server, tool, arguments)
    [line] = lines(log)
    assert (line["outcome"], line["repository"], line["issue"]) == (outcome, repository, issue)
    assert line["tool"] == (None if outcome == "unserved" else tool)
    assert TOKEN not in log.read_text()


def test_a_refusal_before_the_call_runs_is_refused(tmp_path: Path) -> None:
    """A limit (the limiter says observe.limit_refused) makes the call's outcome `refused`."""
    log = tmp_path / "audit.log"
    server = serve("http://127.0.0.1:9", TOKEN, log)
    noted = observe.Notes()
    token = observe.CALL.set(noted)
    try:
        observe.limit_refused("calls")
    finally:
        observe.CALL.reset(token)
    assert noted.refused
    call(server, "issue_get", {"owner": "acme", "name": "widgets", "number": "x"})
    assert lines(log)[0]["outcome"] == "bad_argument", "another call's refusal is not this one's"


def test_off_stderr_or_a_file(tmp_path: Path) -> None:
    assert audit.open_log(None) is None and audit.open_log("off") is None and audit.open_log(" OFF ") is None
    said = audit.open_log("stderr")
    assert said is not None and said.where == "stderr"
    made = audit.open_log(str(tmp_path / "a.log"))
    assert made is not None and (tmp_path / "a.log").stat().st_mode & 0o777 == 0o600
    with pytest.raises(ConfigError, match=r"^GITEA_MCP_AUDIT_LOG='/nonexistent/dir/a.log' cannot be opened for "):
        audit.open_log("/nonexistent/dir/a.log")


def test_lines_are_appended_whole(tmp_path: Path) -> None:
    """Two logs on one file (two workers) append whole lines, each one write."""
    path = tmp_path / "a.log"
    first, second = audit.open_log(str(path)), audit.open_log(str(path))
    assert first is not None and second is not None
    for n in range(50):
        (first if n % 2 else second).write({"n": n, "pad": "x" * 3000})
    assert [line["n"] for line in lines(path)] == list(range(50))


# -- the hostile-input suite's arguments, with the audit log on --------------------------------------------------

SECRET_FIELDS = ("title", "body", "comment", "query")
fast = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def planted(tool: ToolDefinition) -> st.SearchStrategy[dict[str, Any]]:
    """The suite's calls of `tool`, with the token itself sometimes as the owner or the name, and each of the texts
    that must never be written marked, so that finding one is certain."""
    schema = tool_cases.arguments_of(tool)

    def mark(arguments: dict[str, Any], token_at: str | None, texts: list[str]) -> dict[str, Any]:
        marked = dict(arguments)
        if token_at in schema:
            marked[token_at] = TOKEN
        for name, text in zip(SECRET_FIELDS, texts, strict=True):
            if name in schema:
                marked[name] = f"SECRET-{name}-{text}"
        return marked

    return st.builds(
        mark,
        calls(tool),
        st.sampled_from([None, "owner", "name"]),
        st.lists(st.text(max_size=20), min_size=len(SECRET_FIELDS), max_size=len(SECRET_FIELDS)),
    )


@pytest.mark.parametrize("tool", tool_cases.tools(), ids=tool_cases.name_of)
@fast
@given(data=st.data())
def test_no_line_holds_a_token_a_body_a_title_or_a_comment(tool: ToolDefinition, data: st.DataObject) -> None:
    arguments = data.draw(planted(tool), label="arguments")
    import tempfile

    with tempfile.TemporaryDirectory() as folder, responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        for method in ("GET", "POST", "PATCH", "PUT", "DELETE"):
            rsps.add_callback(method, re.compile(re.escape(ROOT) + ".*"), callback=answer)
        log = Path(folder) / "audit.log"
        call(serve(ROOT, TOKEN, log), tool.spec.name, arguments)
        written = log.read_text(encoding="ascii")
    [line] = [json.loads(text) for text in written.splitlines()]
    assert tuple(line) == audit.FIELDS
    assert TOKEN not in written and "SECRET-" not in written
    for name in SECRET_FIELDS:
        value = arguments.get(name)
        assert not isinstance(value, str) or value not in written
