"""`call`: one tool run over the real MCP path, its text on stdout, errors on stderr, arguments typed by schema."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import responses

from gitea_mcp.cli.call import UsageError, parse_arguments
from gitea_mcp.cli.main import main
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import registry
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT, api_error, comment, issue
from tests.support.mocks import sent_params

ISSUE = f"{API}/repos/acme/widgets/issues/7"
SCHEMAS = {
    tool.name: tool.input_schema
    for tool in asyncio.run(build_server(Settings(url=ROOT, allowed_owners=frozenset({"acme"}))).list_tools())
}


READ_TOOLS = ", ".join(spec.name for spec in registry.offered(read_only=True))


@pytest.fixture(autouse=True)
def configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_URL", ROOT)
    monkeypatch.setenv("GITEA_TOKEN", TOKEN)
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "acme")
    monkeypatch.delenv("GITEA_READ_ONLY", raising=False)


def call(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["call", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def serve_issue(mocked: responses.RequestsMock) -> None:
    mocked.get(ISSUE, json=issue(7, "Crash on login", comments=1))
    mocked.get(f"{ISSUE}/comments", json=[comment(1, "I see it too")])


def test_prints_the_text_an_agent_reads(mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str]) -> None:
    serve_issue(mocked)
    code, out, err = call(capfd, "issue_get", "owner=acme", "name=widgets", "number=7")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "acme/widgets#7 (open issue) Crash on login"
    assert '<untrusted source="comment 1 at 2026-11-21T10:00:00Z by @bob">' in out


def test_json_prints_the_structured_content(mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str]) -> None:
    serve_issue(mocked)
    code, out, _ = call(capfd, "issue_get", "owner=acme", "name=widgets", "number=7", "--json")
    data = json.loads(out)
    assert code == 0 and data["number"] == 7 and data["comments"][0]["body"] == "I see it too"
    assert out.isascii(), "escaped JSON reads the same whatever the console's code page"


def test_typed_arguments_reach_gitea(mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str]) -> None:
    mocked.get(f"{API}/repos/acme/widgets/issues", json=[issue(7)], headers={"X-Total-Count": "1"})
    code, out, _ = call(capfd, "issue_list", "owner=acme", "name=widgets", "limit=5", "page=2", "state=closed")
    assert code == 0 and "acme/widgets" in out
    assert sent_params(mocked).items() >= {"limit": "5", "page": "2", "state": "closed"}.items()


@pytest.mark.parametrize(
    ("argv", "phrases"),
    [
        pytest.param(["issue_get", "owner=other", "name=widgets", "number=7"], ["'other' is not allowed"], id="policy"),
        pytest.param(["issue_get", "owner=acme", "name=../x", "number=7"], ["not a valid Gitea name"], id="bad-name"),
    ],
)
def test_error_results_go_to_stderr_before_gitea(
    mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str], argv: list[str], phrases: list[str]
) -> None:
    code, out, err = call(capfd, *argv)
    assert (code, out) == (1, ""), "stdout holds results only"
    for phrase in phrases:
        assert phrase in err
    assert len(mocked.calls) == 0


# A bad argument is a command-line mistake (exit 2, as docs/settings.md's exit-code table says), worded exactly as the
# tool's own error result an agent reads over MCP.
BAD_ARGUMENTS = [
    pytest.param(["issue_list", "owner=acme", "name=widgets", "limit=abc"], id="limit-word"),
    pytest.param(["issue_list", "owner=acme", "name=widgets", "state=opened"], id="state-unknown"),
    pytest.param(["issue_get", "owner=acme", "name=widgets", "number=abc"], id="number-word"),
    pytest.param(["issue_get", "owner=acme", "name=widgets"], id="missing-argument"),
    pytest.param(["issue_get", "ownr=acme", "name=widgets", "number=7"], id="unknown-argument"),
    pytest.param(["issue_list", "owner=acme", "name=widgets", "limt=5"], id="unknown-argument-list"),
    pytest.param(["issue_list", "owner=acme", "name=widgets", "since=yesterday"], id="not-a-date"),
    pytest.param(["issue_search", "query=crash"], id="search-without-owner"),
    pytest.param(["issue_search", "query=crash sort:votes", "owner=acme"], id="query-refused"),
    pytest.param(["issue_create", "owner=acme", "name=widgets", "title= "], id="empty-title"),
    pytest.param(["issue_comment", "owner=acme", "name=widgets", "number=7", "body="], id="empty-body"),
    pytest.param(["issue_update", "owner=acme", "name=widgets", "number=7"], id="nothing-to-change"),
]


def agent_reads(tool: str, arguments: dict[str, Any]) -> str:
    """The text of the error result the tool gives an agent for these arguments over MCP."""
    from mcp import Client

    async def once() -> str:
        async with Client(build_server(Settings(url=ROOT, allowed_owners=frozenset({"acme"})))) as client:
            result = await client.call_tool(tool, arguments)
        assert result.is_error
        return "".join(getattr(block, "text", "") for block in result.content)

    return asyncio.run(once())


@pytest.mark.parametrize("argv", BAD_ARGUMENTS)
def test_a_bad_argument_exits_2_with_the_agents_sentence(
    mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    tool, pairs = argv[0], argv[1:]
    sentence = agent_reads(tool, parse_arguments(pairs, SCHEMAS[tool]))
    code, out, err = call(capfd, *argv)
    assert (code, out, err) == (2, "", f"gitea-issues-mcp call: {sentence}\n")
    code, out, err = call(capfd, *argv, "--json")
    assert (code, err, json.loads(out)) == (2, "", {"error": sentence, "tool": tool})
    assert len(mocked.calls) == 0


@pytest.mark.parametrize(
    ("argv", "phrase"),
    [
        pytest.param(["issue_get", "owner=other", "name=widgets", "number=7"], "'other' is not allowed", id="policy"),
        pytest.param(["issue_get", "owner=acme", "name=../x", "number=7"], "not a valid Gitea name", id="bad-name"),
    ],
)
def test_json_error_results_are_json_on_stdout(
    mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str], argv: list[str], phrase: str
) -> None:
    code, out, err = call(capfd, *argv, "--json")
    assert (code, err) == (1, ""), "a script reading --json finds the error where it reads"
    data = json.loads(out)
    assert data["tool"] == "issue_get" and phrase in data["error"] and set(data) == {"error", "tool"}
    assert len(mocked.calls) == 0


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_gitea_failure_is_the_tools_error(
    mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str], as_json: bool
) -> None:
    mocked.get(ISSUE, status=404, json=api_error("issue does not exist"))
    mocked.get(f"{ISSUE}/comments", status=404, json=api_error("issue does not exist"))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[])
    code, out, err = call(capfd, "issue_get", "owner=acme", "name=widgets", "number=7", *(["--json"] * as_json))
    said = json.loads(out)["error"] if as_json else err
    assert code == 1 and (err if as_json else out) == ""
    assert "acme/widgets has no issue or pull request #7" in said


@pytest.mark.parametrize("name", ["GITEA_MCP_TRANSPORT", "GITEA_MCP_HTTP_SECRET", "GITEA_MCP_PORT"])
def test_the_http_settings_of_the_environment_do_not_reach_call(
    mocked: responses.RequestsMock, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A shell set up for an HTTP server: call acts with GITEA_TOKEN all the same (it serves nothing)."""
    monkeypatch.setenv(name, {"GITEA_MCP_TRANSPORT": "http", "GITEA_MCP_PORT": "99999"}.get(name, "s3cret"))
    serve_issue(mocked)
    code, out, err = call(capfd, "issue_get", "owner=acme", "name=widgets", "number=7")
    assert (code, err) == (0, "") and "Crash on login" in out
    assert {c.request.headers.get("Authorization") for c in mocked.calls} == {f"token {TOKEN}"}


@pytest.mark.parametrize(
    ("argv", "env", "phrase"),
    [
        pytest.param(["issue_nope"], {}, "no tool 'issue_nope'; the tools are: issue_list, issue_search", id="tool"),
        pytest.param(
            ["issue_create", "owner=acme"],
            {"GITEA_READ_ONLY": "true"},
            f"the tools are: {READ_TOOLS} (GITEA_READ_ONLY hides the write tools)",
            id="read-only",
        ),
        pytest.param(["issue_get", "owner"], {}, "'owner' is not KEY=VALUE", id="no-equals"),
        pytest.param(["issue_get", "=acme"], {}, "'=acme' is not KEY=VALUE", id="no-key"),
        pytest.param(["issue_get", "number=1", "number=2"], {}, "number is given twice", id="twice"),
        pytest.param(["issue_create", 'labels=["bug"'], {}, "is not valid JSON", id="bad-json"),
    ],
)
def test_command_line_mistakes_exit_2_and_send_nothing(
    mocked: responses.RequestsMock,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: dict[str, str],
    phrase: str,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code, out, err = call(capfd, *argv)
    assert (code, out) == (2, "")
    assert phrase in err
    code, out, err = call(capfd, *argv, "--json")
    assert (code, err) == (2, ""), "with --json a usage error is JSON on stdout too"
    assert phrase in json.loads(out)["error"] and json.loads(out)["tool"] == argv[0]
    assert len(mocked.calls) == 0


@pytest.mark.parametrize(
    ("tool", "pairs", "expected"),
    [
        pytest.param(
            "issue_get",
            ["owner=acme", "name=widgets", "number=7", "max_chars=0"],
            {"owner": "acme", "name": "widgets", "number": 7, "max_chars": 0},
            id="integers",
        ),
        pytest.param("issue_get", ["number=abc"], {"number": "abc"}, id="not-an-integer-left-to-the-sdk"),
        pytest.param("issue_update", ["number=-1"], {"number": -1}, id="negative-left-to-the-sdk"),
        pytest.param("issue_create", ["labels=bug, ui"], {"labels": ["bug", "ui"]}, id="comma-list"),
        pytest.param("issue_create", ['labels=["a,b", "c"]'], {"labels": ["a,b", "c"]}, id="json-list"),
        pytest.param("issue_update", ["labels="], {"labels": []}, id="empty-list"),
        pytest.param("issue_create", ["title=[WIP] crash"], {"title": "[WIP] crash"}, id="bracketed-string"),
        pytest.param("issue_create", ["title=42"], {"title": "42"}, id="numeric-string"),
        pytest.param("issue_create", ["title=true"], {"title": "true"}, id="boolean-looking-string"),
        pytest.param("issue_create", ["allow_duplicate=true"], {"allow_duplicate": True}, id="true"),
        pytest.param("issue_create", ["allow_duplicate=False"], {"allow_duplicate": False}, id="false"),
        pytest.param("issue_create", ["allow_duplicate=yes"], {"allow_duplicate": "yes"}, id="not-a-boolean"),
        pytest.param("issue_create", ["body=a=b"], {"body": "a=b"}, id="equals-in-value"),
        pytest.param("issue_update", ["milestone="], {"milestone": ""}, id="empty-string"),
        pytest.param(
            "issue_list", ["labels=bug,ui", "limit=50"], {"labels": ["bug", "ui"], "limit": 50}, id="list-everywhere"
        ),
        pytest.param("issue_search", ["query=crash label:bug"], {"query": "crash label:bug"}, id="query"),
    ],
)
def test_arguments_are_typed_by_the_schema(tool: str, pairs: list[str], expected: dict[str, Any]) -> None:
    assert parse_arguments(pairs, SCHEMAS[tool]) == expected


def test_json_is_only_for_non_string_arguments() -> None:
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_arguments(["assignees=[bob"], SCHEMAS["issue_create"])
    assert parse_arguments(["body={not json"], SCHEMAS["issue_create"]) == {"body": "{not json"}
