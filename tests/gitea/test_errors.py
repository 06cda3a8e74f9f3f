"""Gitea's error answers read as each release words them (texts taken from real servers)."""

from __future__ import annotations

import pytest

from gitea_mcp.gitea.errors import from_status


@pytest.mark.parametrize(
    ("message", "scope"),
    [
        pytest.param(
            "token does not have at least one of required scope(s), required=[read:user], token scope=write:issue",
            "read:user",
            id="gitea-1.25",
        ),
        pytest.param(
            "token does not have at least one of required scope(s): [read:organization]",
            "read:organization",
            id="gitea-1.22-forgejo",
        ),
        pytest.param("user should have permission to write issue", None, id="not-a-scope"),
    ],
)
def test_missing_scope_in_every_wording(message: str, scope: str | None) -> None:
    error = from_status(403, message, "GET", "/user")
    assert error.missing_scope == scope
    if scope:
        assert (
            str(error) == f"The token lacks the {scope} scope (403). Create a token with {scope} and set GITEA_TOKEN."
        )


@pytest.mark.parametrize(
    ("status", "message", "errors", "user"),
    [
        pytest.param(404, "not found", ("user does not exist [uid: 0, name: Ghost]",), "Ghost", id="list-1.25"),
        pytest.param(404, "The target couldn't be found.", ("user does not exist [uid: 0, name: x]",), "x", id="1.22"),
        pytest.param(400, "user does not exist [uid: 0, name: ghost]", (), "ghost", id="search-owner"),
        pytest.param(404, "The target couldn't be found.", (), None, id="missing-repository"),
        pytest.param(500, "user does not exist [uid: 0, name: x]", (), None, id="not-a-lookup-status"),
    ],
)
def test_unknown_user(status: int, message: str, errors: tuple[str, ...], user: str | None) -> None:
    assert from_status(status, message, "GET", "/x", errors).unknown_user == user
