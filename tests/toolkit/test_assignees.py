"""The nearest login to an assignee Gitea refused, read from the repository's assignee list only on a refusal."""

from __future__ import annotations

import pytest
import responses

from gitea_mcp.toolkit.assignees import CANNOT_LIST, nearest
from gitea_mcp.toolkit.base import Deps
from tests.support.gitea_json import API, api_error, user

URL = f"{API}/repos/acme/widgets/assignees"
WRITERS = [user("alice", 1), user("Bob", 2), user("demo", 3)]


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (["alcie"], "Not assignable in acme/widgets: 'alcie', nearest @alice. assignee_list names all 3."),
        (["bob", "dmeo"], "Not assignable in acme/widgets: 'dmeo', nearest @demo. assignee_list names all 3."),
        (["zzzzzz"], "Not assignable in acme/widgets: 'zzzzzz', none near it. assignee_list names all 3."),
        (
            ["ALICEE", "carol"],
            "Not assignable in acme/widgets: 'ALICEE', nearest @alice; 'carol', none near it. "
            "assignee_list names all 3.",
        ),
        (["BOB"], "Check the usernames with assignee_list."),  # assignable now: refused for another reason
    ],
)
def test_each_refused_login_with_its_nearest(
    mocked: responses.RequestsMock, deps: Deps, asked: list[str], said: str
) -> None:
    mocked.get(URL, json=WRITERS)
    assert nearest(deps, "acme", "widgets", asked) == said


@pytest.mark.parametrize("status", [403, 404, 500])
def test_without_the_list_it_says_where_to_look(mocked: responses.RequestsMock, deps: Deps, status: int) -> None:
    """The documented token lacks read:repository: the list answers 403, and the refusal stays as it was."""
    mocked.get(URL, status=status, json=api_error("token does not have at least one of required scope(s)"))
    assert nearest(deps, "acme", "widgets", ["alcie"]) == CANNOT_LIST
