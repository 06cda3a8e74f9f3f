"""Without a token: every message says that no token is set and what that means, never "this token".

Against the stand-in, which answers anonymous requests as Gitea 1.25.4 does (checked with curl): a private
repository is 404 `not found`, a write is 401 `token is required`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import StandIn
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.tools import issue_comment, issue_create, issue_get, issue_list, issue_update
from tests.support.results import failed

PRIVATE = (
    "repository demo/notes not found, or it is private: no GITEA_TOKEN is set, and without a token only public "
    "repositories can be seen; check the owner and name, or set GITEA_TOKEN."
)
NO_WRITES = (
    "Gitea requires a token for this (401). Gitea said: token is required. No GITEA_TOKEN is set: without a token "
    "only public repositories can be read and nothing can be written; set GITEA_TOKEN to a token with write:issue "
    "and read:user."
)


@pytest.fixture(scope="module")
def anonymous() -> Iterator[Deps]:
    with StandIn() as standin:
        client = GiteaClient(standin.url, None, timeout=5, retry=RetryPolicy(attempts=1))
        yield Deps(client=client, policy=Policy(frozenset({"acme", "demo"})), catalog=Catalog())


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        pytest.param(issue_list.TOOL, {"owner": "demo", "name": "notes"}, PRIVATE, id="list-private"),
        pytest.param(issue_get.TOOL, {"owner": "demo", "name": "notes", "number": 1}, PRIVATE, id="get-private"),
        pytest.param(
            issue_create.TOOL, {"owner": "acme", "name": "widgets", "title": "t", "body": "b"}, NO_WRITES, id="create"
        ),
        pytest.param(
            issue_comment.TOOL, {"owner": "acme", "name": "widgets", "number": 1, "body": "b"}, NO_WRITES, id="comment"
        ),
        pytest.param(
            issue_update.TOOL,
            {"owner": "acme", "name": "widgets", "number": 1, "state": "open"},
            NO_WRITES,
            id="update",
        ),
    ],
)
def test_no_token_is_said(anonymous: Deps, tool: ToolDefinition, arguments: dict[str, Any], expected: str) -> None:
    text = failed(tool.call(anonymous, arguments))
    assert text == expected
