"""Every tool through `python -m gitea_mcp` over stdio against the stand-in, and what never reaches Gitea."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from gitea_mcp.domain.toolsets import Toolset
from gitea_mcp.standin import DEMO_READ_TOKEN, Fault, StandIn
from gitea_mcp.toolkit import registry
from tests.e2e.conftest import env_for, over_stdio, text
from tests.support.results import rows_of

READ_TOOLS = {spec.name for spec in registry.every() if not spec.writes}
WRITE_TOOLS = {spec.name for spec in registry.every() if spec.writes}


def test_every_tool_happy_path(forge: StandIn) -> None:
    async def scenario(session: Any) -> None:
        assert {t.name for t in (await session.list_tools()).tools} == READ_TOOLS | WRITE_TOOLS

        listed = await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "limit": 50})
        assert not listed.is_error and len(rows_of(listed.structured_content)) == 50
        rows = rows_of(listed.structured_content)
        assert all("is_pull" not in row and "/issues/" in row["html_url"] for row in rows), "PRs excluded by default"
        assert text(listed).startswith("acme/widgets issues (state=open): ")

        found = await session.call_tool(
            "issue_search", {"query": "crash label:bug", "owner": "acme", "name": "widgets"}
        )
        assert not found.is_error and found.structured_content["total"] > 1
        assert "number=<number>" in text(found)

        got = await session.call_tool("issue_get", {"owner": "acme", "name": "widgets", "number": 77})
        assert got.structured_content["comments_total"] == 40 and len(got.structured_content["comments"]) == 20

        created = await session.call_tool(
            "issue_create", {"owner": "acme", "name": "widgets", "title": "E2E filed", "body": "b", "labels": ["bug"]}
        )
        number = created.structured_content["number"]
        assert created.structured_content["labels"] == ["bug"] and created.structured_content["outcome"] == "created"

        updated = await session.call_tool(
            "issue_update",
            {
                "owner": "acme",
                "name": "widgets",
                "number": number,
                "state": "closed",
                "add_labels": ["ui"],
                "milestone": "v1.1",
            },
        )
        assert not updated.is_error, text(updated)
        assert updated.structured_content["state"] == "closed" and updated.structured_content["milestone"] == "v1.1"
        assert sorted(updated.structured_content["labels"]) == ["bug", "ui"]

        commented = await session.call_tool(
            "issue_comment", {"owner": "acme", "name": "widgets", "number": number, "body": "done"}
        )
        assert commented.structured_content["issue_comments"] == 1

    over_stdio(env_for(forge), scenario)
    issue = forge.store.get_issue("acme", "widgets", 331)
    assert issue is not None and issue.title == "E2E filed"


def test_refused_owner_and_traversal_never_reach_gitea(forge: StandIn) -> None:
    async def scenario(session: Any) -> None:
        for name, args in [
            ("issue_list", {"owner": "other", "name": "secret"}),
            ("issue_get", {"owner": "OTHER", "name": "secret", "number": 1}),
            ("issue_search", {"query": "repo:other/secret token"}),
            ("issue_list", {"owner": "acme", "name": "../../other/secret"}),
            ("issue_get", {"owner": "acme", "name": "..", "number": 1}),
            ("issue_create", {"owner": "other", "name": "secret", "title": "x"}),
        ]:
            result = await session.call_tool(name, args)
            assert result.is_error, (name, args)
            assert "not allowed" in text(result) or "not a valid Gitea name" in text(result)

    over_stdio(env_for(forge), scenario)
    assert forge.requests == [], "nothing may be sent for a refused owner or a path-shaped name"


def test_gitea_errors_become_tool_errors(forge: StandIn) -> None:
    async def scenario(session: Any) -> None:
        missing = await session.call_tool("issue_get", {"owner": "acme", "name": "widgets", "number": 99999})
        assert missing.is_error and "has no issue or pull request #99999" in text(missing)
        no_repo = await session.call_tool("issue_list", {"owner": "acme", "name": "nope"})
        assert no_repo.is_error and "repository acme/nope not found" in text(no_repo)
        no_user = await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "created_by": "ghost"})
        assert text(no_user) == "created_by='ghost': no Gitea user by that name; check the username."
        moved = await session.call_tool("issue_list", {"owner": "acme", "name": "old-widgets"})
        assert moved.is_error and "owner=acme name=widgets" in text(moved)
        bad_state = await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "state": "opened"})
        assert bad_state.is_error and "use one of: open, closed, all" in text(bad_state)

    over_stdio(env_for(forge), scenario)


def test_read_only_token_names_the_scope(forge: StandIn) -> None:
    async def scenario(session: Any) -> None:
        result = await session.call_tool(
            "issue_update", {"owner": "acme", "name": "widgets", "number": 1, "title": "A title no issue has"}
        )
        assert result.is_error and "write:issue" in text(result)

    over_stdio(env_for(forge, DEMO_READ_TOKEN), scenario)


def test_read_only_mode_offers_no_write_tools(forge: StandIn) -> None:
    async def scenario(session: Any) -> None:
        assert {t.name for t in (await session.list_tools()).tools} == READ_TOOLS
        with pytest.raises(MCPError) as hidden:  # not served: the protocol's -32602, saying why (issue 34)
            await session.call_tool("issue_create", {"owner": "acme", "name": "widgets", "title": "x"})
        assert hidden.value.error.code == INVALID_PARAMS and "read-only" in hidden.value.error.message

    over_stdio(env_for(forge, GITEA_READ_ONLY="true"), scenario)
    assert not any(r.method == "POST" for r in forge.requests)


def test_lost_answers_are_resolved_without_duplicates(forge: StandIn) -> None:
    args = {"owner": "acme", "name": "widgets", "title": "Lost in transit", "body": "once"}

    async def scenario(session: Any) -> None:
        forge.inject(Fault("commit_then_drop", method="POST", path_contains="/issues"))
        first = await session.call_tool("issue_create", args)
        assert first.structured_content["outcome"] == "created_after_lost_answer", text(first)
        retry = await session.call_tool("issue_create", args)
        assert retry.structured_content["outcome"] == "already_existed"
        assert retry.structured_content["number"] == first.structured_content["number"]

        comment = {"owner": "acme", "name": "widgets", "number": 3, "body": "seen here too"}
        forge.inject(Fault("commit_then_drop", method="POST", path_contains="/comments"))
        lost = await session.call_tool("issue_comment", comment)
        assert lost.structured_content["outcome"] == "created_after_lost_answer", text(lost)
        again = await session.call_tool("issue_comment", comment)
        assert again.structured_content["outcome"] == "already_existed"

        forge.inject(Fault("drop", method="POST", path_contains="/issues"))
        dropped = await session.call_tool("issue_create", {**args, "title": "Never arrived"})
        assert dropped.is_error and "The outcome of the issue is unknown" in text(dropped)
        assert "Look with issue_list owner=acme name=widgets state=all before retrying" in text(dropped)

    over_stdio(env_for(forge), scenario)
    repo = forge.store.find_repo("acme", "widgets")
    commented = forge.store.get_issue("acme", "widgets", 3)
    assert repo is not None and commented is not None
    titles = [issue.title for issue in forge.store.issues_of(repo)]
    posts = [r for r in forge.requests if r.method == "POST" and r.path.endswith("/issues")]
    assert len(posts) == 2, "each create sent once; the retry sent nothing"
    assert titles.count("Lost in transit") == 1 and "Never arrived" not in titles
    assert [c.body for c in forge.store.comments_of(commented)].count("seen here too") == 1


def test_faults_from_gitea(forge: StandIn) -> None:
    listing = {"owner": "acme", "name": "widgets", "limit": 5}

    async def scenario(session: Any) -> None:
        forge.inject(Fault("status", status=503, method="GET"))
        retried = await session.call_tool("issue_list", listing)
        assert not retried.is_error, "a 503 on a read is retried"

        forge.inject(Fault("status", status=500, method="GET", times=5))
        failed = await session.call_tool("issue_list", listing)
        assert failed.is_error and "server error (500)" in text(failed)
        forge.clear_faults()

        forge.inject(Fault("html_error", status=502, method="GET", times=5))
        proxy = await session.call_tool("issue_list", listing)
        assert proxy.is_error and ("502" in text(proxy) or "HTML" in text(proxy))
        forge.clear_faults()

        forge.inject(Fault("malformed_json", method="GET"))
        broken = await session.call_tool("issue_list", listing)
        assert broken.is_error and "malformed JSON" in text(broken)

        forge.inject(Fault("strip_headers", method="GET"))
        degraded = await session.call_tool("issue_list", listing)
        assert degraded.structured_content["total"] is None and degraded.structured_content["has_more"] is True

    over_stdio(env_for(forge), scenario)


def test_the_toolsets_named_are_served_and_listed_alone(forge: StandIn) -> None:
    """GITEA_TOOLSETS through the process: tools/list holds the tools of the toolsets named, read-only dropping the
    writes among them, and the first call works."""
    issues: tuple[Toolset, ...] = ("issues",)
    served = [spec.name for spec in registry.offered(True, issues)]

    async def scenario(session: Any) -> None:
        assert [tool.name for tool in (await session.list_tools()).tools] == served
        listed = await session.call_tool("issue_list", {"owner": "acme", "name": "widgets", "limit": 1})
        assert not listed.is_error, text(listed)

    over_stdio({**env_for(forge), "GITEA_TOOLSETS": "Issues", "GITEA_READ_ONLY": "true"}, scenario)


def test_an_unknown_toolset_stops_the_process_naming_the_nearest(forge: StandIn) -> None:
    clean = {name: value for name, value in os.environ.items() if not name.startswith("GITEA_")}
    finished = subprocess.run(
        [sys.executable, "-m", "gitea_mcp", "--toolsets", "issues,lables"],
        env={**clean, **env_for(forge)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert (finished.returncode, finished.stdout) == (2, b"")
    assert finished.stderr.decode().startswith(
        "gitea-issues-mcp: --toolsets entry 'lables' is not a toolset; did you mean labels? (name one or more of "
    ), finished.stderr
