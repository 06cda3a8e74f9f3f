"""A token without a scope a tool needs is told the whole set that tool needs, not one missing scope at a time.

Against the stand-in with tokens of exactly the scopes in question, as Gitea words their 403s: 1.25 names the
token's own scopes (so the missing set is exact), 1.22 and Forgejo only the one the route requires. The same calls
were made on a real Gitea 1.25.4 with tokens of these scopes (see the commit).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.standin import PROFILES, StandIn
from gitea_mcp.standin.data import DEMO_READ_TOKEN, DEMO_USER_TOKEN
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.tools import issue_comment, issue_create, issue_list, issue_update
from tests.support.results import failed

COMMENT = (issue_comment.TOOL, {"owner": "acme", "name": "widgets", "number": 2, "body": "b"})
CREATE = (issue_create.TOOL, {"owner": "acme", "name": "widgets", "title": "t", "body": "b"})
UPDATE = (issue_update.TOOL, {"owner": "acme", "name": "widgets", "number": 2, "title": "t2"})
LIST = (issue_list.TOOL, {"owner": "acme", "name": "widgets"})
WRITERS = "Create a token with write:issue and read:user and set GITEA_TOKEN."


@pytest.fixture(scope="module", params=["gitea-1.25", "gitea-1.22"])
def forge(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    with StandIn(profile=PROFILES[request.param]) as standin:
        yield request.param, standin.url


def call(url: str, token: str, tool: tuple[ToolDefinition, dict[str, Any]]) -> str:
    client = GiteaClient(url, token, timeout=5, retry=RetryPolicy(attempts=1))
    return failed(tool[0].call(Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog()), tool[1]))


@pytest.mark.parametrize(
    ("token", "tool", "on_1_25", "on_1_22"),
    [
        pytest.param(
            DEMO_READ_TOKEN,
            COMMENT,
            f"The token lacks write:issue and read:user, which issue_comment needs (403; it has read:issue). {WRITERS}",
            f"The token lacks read:user (403), and issue_comment needs write:issue and read:user. {WRITERS}",
            id="read-issue-token-comments",
        ),
        pytest.param(
            DEMO_READ_TOKEN,
            CREATE,
            f"The token lacks write:issue and read:user, which issue_create needs (403; it has read:issue). {WRITERS}",
            f"The token lacks read:user (403), and issue_create needs write:issue and read:user. {WRITERS}",
            id="read-issue-token-creates",
        ),
        pytest.param(
            DEMO_READ_TOKEN,
            UPDATE,
            "The token lacks write:issue, which issue_update needs (403; it has read:issue). Create a token with "
            "write:issue and set GITEA_TOKEN.",
            "The token lacks write:issue, which issue_update needs (403). Create a token with write:issue and set "
            "GITEA_TOKEN.",
            id="read-issue-token-updates",
        ),
        pytest.param(
            DEMO_USER_TOKEN,
            COMMENT,
            f"The token lacks write:issue, which issue_comment needs (403; it has read:user). {WRITERS}",
            f"The token lacks read:issue (403), and issue_comment needs write:issue and read:user. {WRITERS}",
            id="read-user-token-comments",
        ),
        pytest.param(
            DEMO_USER_TOKEN,
            LIST,
            "The token lacks read:issue, which issue_list needs (403; it has read:user). Create a token with "
            "read:issue and set GITEA_TOKEN.",
            "The token lacks read:issue, which issue_list needs (403). Create a token with read:issue and set "
            "GITEA_TOKEN.",
            id="read-user-token-lists",
        ),
    ],
)
def test_the_whole_set_is_named(
    forge: tuple[str, str], token: str, tool: tuple[ToolDefinition, dict[str, Any]], on_1_25: str, on_1_22: str
) -> None:
    release, url = forge
    assert call(url, token, tool) == (on_1_25 if release == "gitea-1.25" else on_1_22)
