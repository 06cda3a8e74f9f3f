"""Names and the owner allowlist: the checks every tool passes through."""

from __future__ import annotations

import pytest

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.policy import Policy, validate_name


@pytest.mark.parametrize("name", ["acme", "a", "my-repo", "my_repo", "repo.js", "A1.b-c_d", "x" * 100])
def test_valid_names(name: str) -> None:
    assert validate_name(name, "name") == name


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "../x", "a/b", "a\\b", "a b", "%2e%2e", "a?b", "a#b", "é", "a\nb", "x" * 101, "~user", "a:b"],
)
def test_invalid_names(name: str) -> None:
    with pytest.raises(ToolFailure, match="not a valid Gitea name"):
        validate_name(name, "name")


@pytest.mark.parametrize(
    ("allowed", "owner", "ok"),
    [
        ({"acme"}, "acme", True),
        ({"acme"}, "ACME", True),
        ({"acme", "alice"}, "Alice", True),
        ({"acme"}, "other", False),
        ({"acme"}, "acme2", False),
        ({"*"}, "anyone", True),
        ({"*"}, "..", False),
    ],
)
def test_allowlist(allowed: set[str], owner: str, ok: bool) -> None:
    policy = Policy(frozenset(allowed))
    if ok:
        assert policy.check_owner(owner) == owner
    else:
        with pytest.raises(ToolFailure):
            policy.check_owner(owner)
