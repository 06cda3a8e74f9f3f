"""toolkit/dependencies: references as agents write them, and the cycle walk over Gitea's dependency lists."""

from __future__ import annotations

import pytest
import responses

from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.toolkit import dependencies
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.dependencies import Ref
from tests.support.gitea_json import API, api_error, issue

HERE = Ref("acme", "widgets", 7)


@pytest.mark.parametrize(
    ("given", "ref"),
    [
        pytest.param("5", Ref("acme", "widgets", 5), id="number"),
        pytest.param(" #5 ", Ref("acme", "widgets", 5), id="hash"),
        pytest.param("acme/lib#2", Ref("acme", "lib", 2), id="other-repository"),
        pytest.param("ACME/Widgets#9", Ref("ACME", "Widgets", 9), id="case-kept"),
    ],
)
def test_references(deps: Deps, given: str, ref: Ref) -> None:
    assert dependencies.parse(deps, HERE, given) == ref


@pytest.mark.parametrize(
    ("given", "error"),
    [
        pytest.param("other/x#1", ToolFailure, id="outside-the-allowlist"),
        pytest.param("acme/widgets#7", BadArgument, id="itself"),
        pytest.param("0", BadArgument, id="zero"),
        pytest.param("acme/lib", BadArgument, id="no-number"),
        pytest.param("a/b/c#1", BadArgument, id="three-parts"),
    ],
)
def test_refused_references(deps: Deps, given: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        dependencies.parse(deps, HERE, given)


def test_the_walk_finds_the_chain_and_a_404_is_a_dead_end(mocked: responses.RequestsMock, deps: Deps) -> None:
    """5 is blocked by lib#6 and by 8 (dependencies off there: 404); lib#6 by 7, the issue itself."""
    mocked.get(f"{API}/repos/acme/widgets/issues/5/dependencies",
               json=[issue(6, owner="acme", repo="lib"), issue(8)])  # fmt: skip
    mocked.get(f"{API}/repos/acme/widgets/issues/8/dependencies", status=404, json=api_error("not found"))
    mocked.get(f"{API}/repos/acme/lib/issues/6/dependencies", json=[issue(7)])
    found = dependencies.walk(deps, HERE, Ref("acme", "widgets", 5))
    assert found == dependencies.Walk([Ref("acme", "widgets", 5), Ref("acme", "lib", 6)], cut=False)


def test_the_walk_without_a_cycle(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/repos/acme/widgets/issues/5/dependencies", json=[issue(6)])
    mocked.get(f"{API}/repos/acme/widgets/issues/6/dependencies", json=[issue(5)])  # a cycle elsewhere: walked once
    assert dependencies.walk(deps, HERE, Ref("acme", "widgets", 5)) == dependencies.Walk(None, cut=False)


@pytest.mark.parametrize(
    ("given", "read"),
    [
        pytest.param(5, ["5"], id="a-number"),
        pytest.param([5, "acme/lib#2"], ["5", "acme/lib#2"], id="a-list"),
        pytest.param("5, #6", ["5", "#6"], id="comma-separated"),
        pytest.param([True], [True], id="a-boolean-is-left-to-be-refused"),
    ],
)
def test_references_as_given(given: object, read: object) -> None:
    assert dependencies._texts(given) == read
