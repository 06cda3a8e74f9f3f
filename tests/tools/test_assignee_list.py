"""assignee_list against a mocked Gitea: one unpaged request, rows by login, full names shown when they say more,
and the refusals (no read:repository, no token, a missing repository)."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import assignee_list
from tests.support.gitea_json import API, ROOT, api_error, user
from tests.support.mocks import sent_params
from tests.support.results import failed, ok

URL = f"{API}/repos/acme/widgets/assignees"
NO_REPO_SCOPE = (
    "token does not have at least one of required scope(s), required=[read:repository], "
    "token scope=write:issue,read:user"
)


def named(login: str, uid: int, full_name: str) -> dict[str, Any]:
    return {**user(login, uid), "full_name": full_name}


def run(deps: Deps, **kw: Any) -> Any:
    return assignee_list.TOOL.call(deps, {"owner": kw.pop("owner", "acme"), "name": kw.pop("name", "widgets"), **kw})


def test_one_request_and_the_rows_by_login(mocked: responses.RequestsMock, deps: Deps) -> None:
    # As Gitea sends them: the writers by name, then a user owner appended.
    mocked.get(URL, json=[named("bob", 2, "Bob Builder"), named("carol", 3, ""), named("Alice", 1, "Alice Liddell")])
    text, data = ok(run(deps))
    assert sent_params(mocked) == {}  # Gitea neither pages nor counts this list
    assert data == {
        "assignees": [
            {"login": "Alice", "full_name": "Alice Liddell"},
            {"login": "bob", "full_name": "Bob Builder"},
            {"login": "carol", "full_name": ""},
        ],
        "total": 3,
    }
    assert text == "acme/widgets: 3 users can be assigned: @Alice (Alice Liddell), @bob (Bob Builder), @carol"


@pytest.mark.parametrize(
    ("full_name", "shown"),
    [
        ("", "@dave"),
        ("Dave", "@dave"),  # the login again, in another case: says nothing more
        ("Dave Smith", "@dave (Dave Smith)"),
        ("Dave @admin [ops]", '@dave ("Dave @admin [ops]")'),  # could pass for another user or a label: quoted
        ("Dave\u202eevil", "@dave (Daveevil)"),  # bidi controls scrubbed
    ],
)
def test_a_full_name_is_shown_only_when_it_says_more(
    mocked: responses.RequestsMock, deps: Deps, full_name: str, shown: str
) -> None:
    mocked.get(URL, json=[named("dave", 4, full_name)])
    text, _ = ok(run(deps))
    assert text == f"acme/widgets: 1 user can be assigned: {shown}"


def test_nobody(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, json=[])
    text, data = ok(run(deps))
    assert data == {"assignees": [], "total": 0}
    assert text.splitlines()[0] == "acme/widgets: 0 users can be assigned"


def test_a_token_without_read_repository_is_told_to_add_it(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, status=403, json=api_error(NO_REPO_SCOPE))
    said = failed(run(deps))
    assert said.startswith("The token lacks read:repository, which assignee_list needs (403; it has write:issue,")


def test_a_missing_repository_is_named(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, status=404, json=api_error("not found"))
    assert (
        failed(run(deps)) == "repository acme/widgets not found, or this token cannot see it; check the owner and name."
    )


def test_without_a_token_gitea_refuses_even_a_public_repository(mocked: responses.RequestsMock) -> None:
    mocked.get(URL, status=401, json=api_error("token is required"))
    anonymous = Deps(
        GiteaClient(ROOT, None, timeout=5, retry=RetryPolicy(attempts=1)), Policy(frozenset({"acme"})), Catalog()
    )
    said = failed(run(anonymous))
    assert said.startswith("Gitea lists who can be assigned only to a token, even for a public repository (401)")
    assert said.endswith("set GITEA_TOKEN to a token with read:repository.")


def test_a_refused_token_is_not_said_to_be_missing(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(URL, status=401, json=api_error("invalid username, password or token"))
    assert "only to a token" not in failed(run(deps))


def test_an_owner_outside_the_allowlist_is_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    assert "allow" in failed(run(deps, owner="evil")).lower()
    assert not mocked.calls
