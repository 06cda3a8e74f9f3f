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


@pytest.mark.parametrize(
    ("path", "location", "expected"),
    [
        pytest.param(
            "/repos/acme/widgets/issues", "/api/v1/repos/acme/gizmos/issues",
            "The repository acme/widgets has moved: Gitea redirected GET /repos/acme/widgets/issues (301) and "
            "nothing was done.",
            id="renamed",
        ),
        pytest.param(
            "/repos/acme/widgets/issues", "https://gitea.test/api/v1/repos/other/widgets/issues",
            "The repository acme/widgets has moved: Gitea redirected GET /repos/acme/widgets/issues (301) and "
            "nothing was done.",
            id="transferred-absolute-same-host",
        ),
        pytest.param(
            "/repos/acme/widgets/issues", "https://evil.example/api/v1/repos/acme/gizmos/issues",
            "Gitea redirected GET /repos/acme/widgets/issues (301); nothing was done. It points at "
            "https://evil.example, not at GITEA_URL=https://gitea.test: if Gitea has moved, update GITEA_URL.",
            id="other-host",
        ),
        pytest.param(
            "/repos/acme/widgets/issues", "/api/v1/repos/ACME/Widgets/issues",
            "Gitea redirected GET /repos/acme/widgets/issues (301); nothing was done. A proxy in front of Gitea may "
            "be rewriting requests; check GITEA_URL.",
            id="same-names-no-loop",
        ),
        pytest.param(
            "/repos/issues/search", "/api/v1/repos/issues/search?page=2",
            "Gitea redirected GET /repos/issues/search (301); nothing was done. A proxy in front of Gitea may be "
            "rewriting requests; check GITEA_URL.",
            id="search-is-no-repository",
        ),
    ],
)  # fmt: skip
def test_redirects_name_a_move_or_say_what_they_are(path: str, location: str, expected: str) -> None:
    from gitea_mcp.gitea.errors import redirected

    assert str(redirected(301, location, "GET", path, "https://gitea.test")) == expected


OUTSIDE = (
    "Its new owner is outside GITEA_ALLOWED_OWNERS, so this server cannot work with it there; ask the operator to "
    "allow that owner if it should."
)


@pytest.mark.parametrize(
    ("location", "allowed", "ending"),
    [
        pytest.param("/api/v1/repos/acme/gizmos/issues", {"acme"}, "It is now acme/gizmos: call again with "
                     "owner=acme name=gizmos.", id="renamed"),
        pytest.param("/api/v1/repos/Other/widgets/issues", {"acme", "other"}, "It is now Other/widgets: call again "
                     "with owner=Other name=widgets.", id="transferred-inside"),
        pytest.param("/api/v1/repos/other/widgets/issues", {"acme"}, OUTSIDE, id="transferred-outside"),
        pytest.param("/api/v1/repos/other/widgets/issues", {"*"}, "It is now other/widgets: call again with "
                     "owner=other name=widgets.", id="any-owner"),
    ],
)  # fmt: skip
def test_a_move_is_named_only_inside_the_allowlist(location: str, allowed: set[str], ending: str) -> None:
    from gitea_mcp.domain.policy import Policy
    from gitea_mcp.gitea.errors import Moved, redirected

    moved = redirected(301, location, "GET", "/repos/acme/widgets/issues", "https://gitea.test")
    assert isinstance(moved, Moved)
    said = moved.advice(Policy(frozenset(allowed)).allows)
    assert said == f"{moved} {ending}"
    if ending == OUTSIDE:
        assert "other" not in said.lower().replace("gitea_allowed_owners", "")


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "Rejected"), (422, "Rejected"), (401, "Unauthorized"), (403, "Forbidden"), (404, "NotFound"),
     (500, "ServerFailed"), (503, "ServerFailed"), (409, "GiteaError"), (423, "GiteaError")],
)  # fmt: skip
def test_each_status_is_a_kind(status: int, kind: str) -> None:
    """Tools tell failures apart by their class, never by a magic status value or Gitea's prose."""
    assert type(from_status(status, "", "GET", "/x")).__name__ == kind


def test_no_answer_and_redirects_are_kinds_of_their_own() -> None:
    import requests
    import responses

    from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
    from gitea_mcp.gitea.errors import Moved, NoAnswer, redirected

    assert isinstance(redirected(301, "/api/v1/repos/a/b", "GET", "/repos/a/c", "https://gitea.test"), Moved)
    with responses.RequestsMock() as rsps:
        rsps.post("https://gitea.test/api/v1/repos/a/b/issues", body=requests.ConnectionError())
        client = GiteaClient("https://gitea.test", "t", timeout=5, retry=RetryPolicy(attempts=1))
        with pytest.raises(NoAnswer, match="may or may not have been applied"):
            client.write("POST", ["repos", "a", "b", "issues"], {"title": "x"})


@pytest.mark.parametrize(
    ("status", "permanent"),
    [(405, True), (501, True), (500, False), (502, False), (503, False), (429, False)],
)
def test_a_permanent_refusal_never_says_try_again(status: int, permanent: bool) -> None:
    text = str(from_status(status, "", "PUT", "/repos/acme/widgets/issues/7/lock"))
    assert ("trying again will not help" in text) is permanent
    assert ("Try again later" in text or "try again" in text.lower()) is not permanent or "will not help" in text
    if permanent:
        assert text == (
            f"This server does not offer PUT /repos/acme/widgets/issues/7/lock ({status}). It may be an older release "
            "or have the feature turned off, or a proxy may block the method; trying again will not help."
        )


READER_REMEDY = (
    "make the user a collaborator with Write (or a member of a team with write to Issues), or use a token of such a "
    "user"
)


@pytest.mark.parametrize(
    ("method", "path", "message", "expected"),
    [  # the texts Gitea 1.22.6 and 1.25.4 answer a read collaborator and a non-member of a public repository
        pytest.param(
            "POST", "/repos/acme/widgets/issues/7/labels", "write permission is required",
            "Gitea refused POST /repos/acme/widgets/issues/7/labels (403: write permission is required): the token's "
            "user may only read acme/widgets, and changing an issue's labels, milestone or assignees needs write "
            "access to its issues, even on an issue the user filed (whose title, body and state it may change); "
            + READER_REMEDY + ".",
            id="add-labels",
        ),
        pytest.param(
            "DELETE", "/repos/acme/widgets/issues/7/labels/3", "",
            "Gitea refused DELETE /repos/acme/widgets/issues/7/labels/3 (403): the token's user may only read "
            "acme/widgets, and changing an issue's labels, milestone or assignees needs write access to its issues, "
            "even on an issue the user filed (whose title, body and state it may change); " + READER_REMEDY + ".",
            id="remove-a-label-bare",
        ),
        pytest.param(
            "PATCH", "/repos/acme/widgets/issues/7", "",
            "Gitea refused PATCH /repos/acme/widgets/issues/7 (403): the token's user may only read acme/widgets, "
            "and changing another's issue (or the labels, milestone or assignees of any) needs write access to its "
            "issues; " + READER_REMEDY + ".",
            id="edit-anothers-issue-bare",
        ),
        pytest.param(
            "POST", "/repos/acme/widgets/labels", "user should have a permission to write to a repo",
            "Gitea refused POST /repos/acme/widgets/labels (403: user should have a permission to write to a repo): "
            "the token's user may only read acme/widgets, and this needs write access to its issues; "
            + READER_REMEDY + ".",
            id="create-a-label",
        ),
    ],
)  # fmt: skip
def test_a_refusal_to_a_user_who_may_only_read_names_write_access(
    method: str, path: str, message: str, expected: str
) -> None:
    """A 403 from a repository route is never "no access": an invisible repository answers 404
    (docs/server-behaviour.md)."""
    error = from_status(403, message, method, path)
    assert (str(error), error.write_refused, error.missing_scope) == (expected, True, None)


@pytest.mark.parametrize(
    ("method", "path", "message", "words"),
    [
        pytest.param(
            "PATCH", "/repos/acme/widgets/issues/7",
            "token does not have at least one of required scope(s), required=[write:issue], token scope=read:issue",
            "The token lacks the write:issue scope (403).", id="scope-1.25",
        ),
        pytest.param(
            "POST", "/repos/acme/widgets/issues/7/comments", "You cannot comment on a locked issue.",
            "Gitea refused POST /repos/acme/widgets/issues/7/comments (403): the issue is locked, and only users with "
            "write access to acme/widgets may comment on it; ask one of them to unlock it.", id="locked",
        ),
        pytest.param(
            "GET", "/repos/issues/search", "", "Gitea forbade GET /repos/issues/search (403).", id="not-a-repository",
        ),
    ],
)  # fmt: skip
def test_other_refusals_are_not_taken_for_a_missing_write_permission(
    method: str, path: str, message: str, words: str
) -> None:
    error = from_status(403, message, method, path)
    assert str(error).startswith(words) and not error.write_refused, str(error)


def test_the_gitea_layer_raises_its_own_errors_not_the_tools() -> None:
    """gitea/ knows nothing of tools: its failures are GiteaError, which the tools' boundary turns into a sentence;
    the call's deadline coming before a request could be sent is one of them (OutOfTime), never a ToolFailure."""
    from gitea_mcp.domain.failures import ToolFailure
    from gitea_mcp.gitea.errors import GiteaError, NotSent, OutOfTime

    assert not issubclass(GiteaError, ToolFailure)
    assert issubclass(OutOfTime, NotSent)
