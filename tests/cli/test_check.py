"""`check` against mocked Gitea answers shaped like the real ones: each probe, its verdict, its fix."""

from __future__ import annotations

import json
import ssl
from typing import Any

import pytest
import requests
import responses
import urllib3
from pydantic import SecretStr
from responses import matchers

from gitea_mcp.cli.check import PROBE_REPO, limits_line, render, run_checks
from gitea_mcp.cli.lines import Line
from gitea_mcp.cli.main import main
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy, display_url
from gitea_mcp.gitea.release import ServerInfo
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import registry
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT, api_error, issue, user
from tests.support.gitea_spec import operation, query_parameters, validate_definition
from tests.support.mocks import optional, refused_connection
from tests.support.toolsets import with_other_toolsets

SEARCH = f"{API}/repos/issues/search"
PROBE = f"{API}/repos/acme/{PROBE_REPO}/issues"
API_SETTINGS = {
    "max_response_items": 50,
    "default_paging_num": 30,
    "default_git_trees_per_page": 1000,
    "default_max_blob_size": 10485760,
    "default_max_response_size": 104857600,
}
SCOPE_403 = "token does not have at least one of required scope(s), required=[{scope}], token scope=read:user"
READER_403 = {"status": 403, "json": api_error("user should have a permission to write to a repo")}


def scope_error(scope: str) -> dict[str, Any]:
    return {"status": 403, "json": api_error(SCOPE_403.format(scope=scope))}


def answers(**changes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What each endpoint answers by default (a healthy Gitea 1.22 and a full token), with changes."""
    return {
        "version": {"json": {"version": "1.22.3"}},
        "user": {"json": user("alice")},
        "read": {"json": [issue(1)], "headers": {"X-Total-Count": "12"}},
        "write": {"status": 422, "json": api_error("[Title]: Required")},
        # GET of the probe repository: 404 when the token has read:repository, 403 naming the scope when not.
        "repository": {"status": 404, "json": api_error("not found")},
        "owner": {"json": [issue(1)], "headers": {"X-Total-Count": "7"}},
        # The write-access probe: a label without a name, refused after the write-access check (a writer's 422).
        "access": {"status": 422, "json": api_error("[Name]: Required")},
        "settings": {"json": API_SETTINGS},
        **changes,
    }


def ssl_error(verify_message: str) -> requests.exceptions.SSLError:
    """What requests raises for a refused certificate: OpenSSL's error inside urllib3's inside requests'."""
    refused = ssl.SSLCertVerificationError(
        1, f"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: {verify_message} (_ssl.c:1006)"
    )
    refused.verify_message = verify_message
    wrapped = urllib3.exceptions.MaxRetryError(None, "/api/v1/version", urllib3.exceptions.SSLError(refused))  # type: ignore[arg-type]
    return requests.exceptions.SSLError(wrapped)


def serve(rsps: responses.RequestsMock, answer: dict[str, dict[str, Any]], owners: tuple[str, ...] = ("acme",)) -> None:
    optional(rsps).get(f"{API}/version", **answer["version"])
    optional(rsps).get(f"{API}/user", **answer["user"])
    optional(rsps).get(SEARCH, match=[matchers.query_param_matcher({"limit": "1", "type": "issues"})], **answer["read"])
    for owner in owners:
        params = {"owner": owner, "limit": "50", "type": "issues", "state": "all"}
        found = answer.get(f"owner:{owner}", answer["owner"])
        optional(rsps).get(SEARCH, match=[matchers.query_param_matcher(params)], **found)
        listed = found.get("json")
        rows = listed if isinstance(listed, list) else []
        for full_name in {row["repository"]["full_name"] for row in rows}:
            access = answer.get(f"access:{full_name}", answer["access"])
            optional(rsps).post(f"{API}/repos/{full_name}/labels", **access)
    optional(rsps).post(PROBE, **answer["write"])
    optional(rsps).get(f"{API}/repos/acme/{PROBE_REPO}", **answer["repository"])
    optional(rsps).get(f"{API}/settings/api", **answer["settings"])


def settings(**changes: Any) -> Settings:
    values: dict[str, Any] = {"url": ROOT, "token": SecretStr(TOKEN), "allowed_owners": frozenset({"acme"})}
    return Settings(**{**values, **changes})


def client(token: str | None = TOKEN) -> GiteaClient:
    return GiteaClient(ROOT, token, timeout=5, retry=RetryPolicy(attempts=1))


def report(mocked: responses.RequestsMock, answer: dict[str, dict[str, Any]], **changes: Any) -> tuple[str, int]:
    chosen = settings(**changes)
    owners = tuple(sorted(chosen.allowed_owners - {"*"}))
    serve(mocked, answer, owners)
    lines = run_checks(chosen, client(chosen.token_value()))
    return render(lines, chosen, "utf-8"), sum(line.mark == "fail" for line in lines)


@pytest.mark.parametrize(
    ("answer", "changes", "expected", "fails"),
    [
        pytest.param(
            answers(),
            {},
            [
                "✓ Gitea 1.22.3 at https://gitea.test",
                "✓ token valid: acts as @alice",
                "✓ read:user: issue_create and issue_comment find your earlier writes (no duplicates), issue_search "
                "takes @me",
                "✓ read:issue: 12 open issues visible across every repository it can read",
                "✓ write:issue (probed with an empty title Gitea refuses; nothing was created)",
                "✓ read:repository (optional): issue_get shows pull request reviews with their state and inline "
                "comments",
                "✓ owner acme: 7 issues (open and closed) visible in its repositories",
                "✓ owner acme: @alice can change issues in widgets (write access; probed, nothing changed)",
                "✓ max_response_items=50: Gitea serves up to 50 issues a page, the most a tool asks for (limit is "
                "capped at 50), so every page arrives whole; further rows come with page=2, page=3 and so on",
                "\nready",
            ],
            0,
            id="healthy",
        ),
        pytest.param(
            answers(repository=scope_error("read:repository")),
            {},
            [
                "- no read:repository (optional): issue_get shows a pull request's reviews without their state or "
                "inline comments; add it to the token to see them",
                "\nready",
            ],
            0,
            id="without-the-optional-read-repository",
        ),
        pytest.param(
            answers(repository={"status": 404, "body": "404 page not found\n", "content_type": "text/plain"}),
            {},
            ["✓ write:issue (probed", "✓ owner acme: 7 issues"],
            0,
            id="read-repository-unknown-says-nothing",
        ),
        pytest.param(
            answers(access=READER_403),
            {},
            [
                "✗ owner acme: @alice may only read widgets: issue_update is refused (403) on issues others filed, "
                "and issue_create drops labels, milestone, assignees and due date",
                "fix: give @alice write access to acme's repositories (a collaborator with Write, or a team with "
                "write to Issues), or set GITEA_READ_ONLY=true",
                "not ready: 1 problem",
            ],
            1,
            id="reader-only",
        ),
        pytest.param(
            answers(
                owner={"json": [issue(1), issue(2, repo="gadgets"), issue(3)], "headers": {"X-Total-Count": "3"}},
                **{"access:acme/gadgets": READER_403},
            ),
            {},
            [
                "! owner acme: @alice can change issues in widgets, but may only read gadgets: issue_update is "
                "refused (403) there on issues others filed",
                "fix: give @alice write access to gadgets",
                "ready, with 1 warning",
            ],
            0,
            id="writer-in-some-repositories",
        ),
        pytest.param(
            answers(
                owner={"json": [issue(1), issue(2, repo="gadgets")], "headers": {"X-Total-Count": "2"}},
                access=READER_403,
                **{"access:acme/gadgets": {"status": 405, "body": ""}},
            ),
            {},
            [
                "! owner acme: @alice may only read widgets: issue_update is refused (403) there on issues others "
                "filed; could not tell whether @alice can change issues in gadgets: This server does not offer",
                "fix: give @alice write access to widgets",
            ],
            0,
            id="reader-in-one-repository-and-unknown-in-another",
        ),
        pytest.param(
            answers(access={"status": 405, "body": ""}),
            {},
            ["! owner acme: could not tell whether @alice can change issues in widgets: ", "ready, with 1 warning"],
            0,
            id="write-access-probe-proves-nothing",
        ),
        pytest.param(
            answers(user=scope_error("read:user"), access=READER_403),
            {"read_only": False},
            ["✗ owner acme: the token's user may only read widgets"],
            2,
            id="reader-without-read-user",
        ),
        pytest.param(
            answers(owner={"json": [], "headers": {"X-Total-Count": "0"}}),
            {},
            [
                "! owner acme: exists, but this token sees no issues there, so whether @alice may change issues "
                "there is not known"
            ],
            0,
            id="write-access-unknown-without-issues",
        ),
        pytest.param(
            answers(version={"json": {"version": "11.0.1+gitea-1.22.0"}}),
            {},
            ["✓ Forgejo 11.0.1+gitea-1.22.0 (Gitea 1.22.0 API) at https://gitea.test"],
            0,
            id="forgejo",
        ),
        pytest.param(
            answers(version={"json": {"version": "1.15.7"}}),
            {},
            ["! Gitea 1.15.7 at https://gitea.test is older than Gitea 1.16", "fix: upgrade Gitea", "ready, with 1"],
            0,
            id="before-totals",
        ),
        pytest.param(
            answers(version={"json": {"version": "main"}}),
            {},
            ["! Gitea main at https://gitea.test: version not understood"],
            0,
            id="odd-version",
        ),
        pytest.param(
            answers(version={"status": 404, "body": "404 page not found"}),
            {},
            [
                "✗ https://gitea.test/api/v1/version answers 404: the URL does not look like a Gitea or Forgejo API",
                "fix: set GITEA_URL to the address of Gitea's home page",
                "- other checks skipped",
            ],
            1,
            id="not-gitea",
        ),
        pytest.param(
            answers(version={"body": "<html><body>Sign in</body></html>", "content_type": "text/html"}),
            {},
            ["✗ no Gitea API answers", "an HTML page instead of JSON", "fix: set GITEA_URL"],
            1,
            id="html-page",
        ),
        pytest.param(
            answers(version={"status": 502, "body": "<html>Bad Gateway</html>", "content_type": "text/html"}),
            {},
            [
                "✗ no Gitea API answers at https://gitea.test/api/v1: Gitea failed with a server error (502)",
                "fix: the server at GITEA_URL answers, but fails (502): check that Gitea (and the proxy in front of "
                "it) is running and read its log, then run check again",
            ],
            1,
            id="server-error",
        ),
        pytest.param(
            answers(version={"json": {"name": "something else"}}),
            {},
            [
                "✗ https://gitea.test/api/v1/version answers without a version: the URL does not look like a Gitea",
                "fix: set",
            ],
            1,
            id="other-json",
        ),
        pytest.param(
            answers(version={"body": refused_connection()}),
            {},
            [
                "✗ cannot reach Gitea at https://gitea.test: connection refused",
                "fix: nothing listens on port 443 of gitea.test: start Gitea, or correct the port in GITEA_URL",
                "- other checks skipped",
            ],
            1,
            id="unreachable",
        ),
        pytest.param(
            answers(version={"body": ssl_error("self-signed certificate")}),
            {},
            [
                "✗ TLS with https://gitea.test failed: certificate verify failed: self-signed certificate\n",
                "    fix: If Gitea's certificate comes from a private CA, set GITEA_CA_BUNDLE=/path/to/ca.pem",
                "GITEA_INSECURE=true turns verification off, for test instances only.",
            ],
            1,
            id="private-ca",
        ),
        pytest.param(
            answers(user={"status": 401, "json": api_error("invalid username, password or token")}),
            {},
            ["✗ Gitea refused the token (401)", "/user/settings/applications", "- other checks skipped: the token"],
            1,
            id="bad-token",
        ),
        pytest.param(
            answers(user=scope_error("read:user")),
            {},
            [
                "✗ the token lacks read:user: issue_create, issue_comment cannot check for your earlier writes",
                "fix: create a token at https://gitea.test/user/settings/applications with write:issue and read:user",
                "✓ write:issue",
                "not ready: 1 problem",
            ],
            1,
            id="token-without-read-user",
        ),
        pytest.param(
            answers(user=scope_error("read:user")),
            {"read_only": True},
            ["✓ token accepted (its user is not shown without read:user; the offered tools need none)", "\nready"],
            0,
            id="read-only-token-without-read-user",
        ),
        pytest.param(
            answers(user={"json": {**user("root"), "is_admin": True}}),
            {},
            ["! @root is a site administrator", "fix: use a token of a dedicated user"],
            0,
            id="admin-token",
        ),
        pytest.param(
            answers(read=scope_error("read:issue")),
            {},
            [
                "✗ the token lacks read:issue: no tool can read issues\n    fix: create a token at "
                "https://gitea.test/user/settings/applications with write:issue and read:user, set GITEA_TOKEN",
                "- owners not checked",
            ],
            1,
            id="no-read-scope",
        ),
        pytest.param(
            answers(write=scope_error("write:issue")),
            {},
            [
                "✗ the token lacks write:issue: issue_create, issue_update, issue_comment would fail",
                "fix: create a token at https://gitea.test/user/settings/applications with write:issue and read:user, "
                "set GITEA_TOKEN, or set GITEA_READ_ONLY=true to hide them from agents",
                "not ready: 1 problem",
            ],
            1,
            id="no-write-scope",
        ),
        pytest.param(
            answers(write={"status": 404, "json": api_error("The target couldn't be found.")}),
            {},
            ["✓ write:issue"],
            0,
            id="write-scope-probe-repo-missing",
        ),
        pytest.param(
            answers(write={"status": 500, "json": api_error("")}),
            {},
            ["! could not tell whether the token has write:issue"],
            0,
            id="write-probe-server-error",
        ),
        *(
            pytest.param(
                answers(write=write_answer),
                {},
                ["! could not tell whether the token has write:issue", "fix: "],
                0,
                id=f"write-probe-{name}-proves-nothing",
            )
            for name, write_answer in (
                ("proxy-405", {"status": 405, "body": ""}),
                ("router-plain-404", {"status": 404, "body": "404 page not found\n", "content_type": "text/plain"}),
                ("redirect-307", {"status": 307, "headers": {"Location": "https://sso.gitea.test/login"}}),
                ("proxy-403-page", {"status": 403, "body": "<html>denied</html>", "content_type": "text/html"}),
                ("bad-request", {"status": 400, "json": api_error("bad request")}),
            )
        ),
        pytest.param(
            answers(),
            {"read_only": True},
            [
                "✓ read:user: issue_search takes @me",
                "✓ read-only mode (GITEA_READ_ONLY): issue_create, issue_update, issue_comment hidden",
            ],
            0,
            id="read-only",
        ),
        pytest.param(
            answers(),
            {"token": None},
            ["! no GITEA_TOKEN: anonymous reads", "✗ without a token issue_create, issue_update, issue_comment fail"],
            1,
            id="anonymous",
        ),
        pytest.param(
            answers(),
            {"token": None, "transport": "http"},
            ["! no GITEA_TOKEN: anonymous reads", "! without a token issue_create, issue_update, issue_comment fail"],
            0,
            id="anonymous-over-http",
        ),
        pytest.param(
            answers(**{"owner:ghost": {"status": 400, "json": api_error("user does not exist [uid: 0, name: ghost]")}}),
            {"allowed_owners": frozenset({"acme", "ghost"})},
            [
                "✓ owner acme: 7 issues (open and closed) visible in its repositories",
                "✗ owner ghost: no such user or organisation",
                "GITEA_ALLOWED_OWNERS",
            ],
            1,
            id="unknown-owner",
        ),
        pytest.param(
            answers(
                read={"json": [issue(1)], "headers": {"X-Total-Count": "1"}},
                owner={"json": [issue(1)], "headers": {"X-Total-Count": "1"}},
            ),
            {},
            [
                "✓ read:issue: 1 open issue visible across every repository it can read",
                "✓ owner acme: 1 issue (open and closed) visible in its repositories",
            ],
            0,
            id="one-issue-in-the-singular",
        ),
        pytest.param(
            answers(owner={"json": [], "headers": {"X-Total-Count": "0"}}),
            {},
            ["! owner acme: exists, but this token sees no issues there", "give the token's user access"],
            0,
            id="owner-with-nothing-visible",
        ),
        pytest.param(
            answers(),
            {"allowed_owners": frozenset({"*"})},
            [
                "! GITEA_ALLOWED_OWNERS='*': every owner this token can see is allowed, and whether @alice may "
                "change issues is checked for none of them"
            ],
            0,
            id="every-owner",
        ),
        pytest.param(
            answers(settings={"json": {**API_SETTINGS, "max_response_items": 20}}),
            {},
            [
                "! max_response_items=20: Gitea serves at most 20 issues a page, fewer than the 50 a tool may ask for: "
                "a larger limit comes back as pages of 20 (the tools say so)",
                "MAX_RESPONSE_ITEMS",
            ],
            0,
            id="small-pages",
        ),
        pytest.param(
            answers(settings={"status": 404, "json": api_error("not found")}),
            {},
            ["! could not read max_response_items"],
            0,
            id="no-api-settings",
        ),
    ],
)
def test_checks(
    mocked: responses.RequestsMock,
    answer: dict[str, dict[str, Any]],
    changes: dict[str, Any],
    expected: list[str],
    fails: int,
) -> None:
    text, failed = report(mocked, answer, **changes)
    for phrase in expected:
        assert phrase in text, text
    if changes == {} and answer["repository"].get("content_type") == "text/plain":
        assert "read:repository" not in text, "a proxy's answer proves nothing about the scope"
    assert failed == fails, text
    assert text.count("✗") == fails and text.count("fix:") >= fails, "every failure comes with its fix"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(
            answers(),
            "✓ anonymous reads (no token): 12 open issues visible in public repositories",
            id="public-issues",
        ),
        pytest.param(
            answers(owner={"json": [], "headers": {"X-Total-Count": "0"}}),
            "! owner acme: exists, but no issues of its repositories are visible without a token (public "
            "repositories only)\n"
            "    fix: if its repositories are private, set GITEA_TOKEN to a token of a user who can see them",
            id="nothing-public",
        ),
    ],
)
def test_without_a_token_no_line_speaks_of_one(
    mocked: responses.RequestsMock, answer: dict[str, dict[str, Any]], expected: str
) -> None:
    """Anonymous reads are no scope of a token: check says that no token is set and what that allows."""
    text, _ = report(mocked, answer, token=None)
    assert expected in text, text
    assert "✓ read:issue" not in text and "this token" not in text and "token's user" not in text, text


def test_write_probes_cannot_create_anything(mocked: responses.RequestsMock) -> None:
    report(mocked, answers())
    writes = {call.request.url: json.loads(call.request.body or b"{}") for call in mocked.calls
              if call.request.method != "GET"}  # fmt: skip
    assert writes == {
        PROBE: {"title": ""},  # an empty title: Gitea refuses it after the scope check
        f"{API}/repos/acme/widgets/labels": {"name": "", "color": ""},  # refused after the write-access check
    }


def test_write_access_is_probed_once_per_repository(mocked: responses.RequestsMock) -> None:
    rows = [issue(n, repo=repo) for n, repo in enumerate(["widgets", "gadgets", "widgets", "gadgets"], 1)]
    report(mocked, answers(owner={"json": rows, "headers": {"X-Total-Count": "4"}}))
    probed = [url for call in mocked.calls if (url := call.request.url or "").endswith("/labels")]
    assert probed == [f"{API}/repos/acme/widgets/labels", f"{API}/repos/acme/gadgets/labels"]


def test_no_write_access_probe_without_the_write_scope(mocked: responses.RequestsMock) -> None:
    text, _ = report(mocked, answers(write=scope_error("write:issue")))
    assert not [call for call in mocked.calls if (call.request.url or "").endswith("/labels")]
    assert "can change issues" not in text and "may only read" not in text


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"read_only": True}, id="read-only"),
        pytest.param({"token": None}, id="anonymous"),
    ],
)
def test_no_write_probe_when_writes_are_off(mocked: responses.RequestsMock, changes: dict[str, Any]) -> None:
    report(mocked, answers(), **changes)
    assert all(call.request.method == "GET" for call in mocked.calls)


def test_a_subset_of_toolsets_is_said_with_the_tools_it_leaves_out(mocked: responses.RequestsMock) -> None:
    left = ", ".join(spec.name for spec in registry.every() if spec.toolset != "issues")
    text, _ = report(mocked, answers(), toolsets=("issues",))
    said = f"✓ toolsets (GITEA_TOOLSETS): issues served; not offered: {left or 'no tool (the others have none)'}"
    assert said in text.splitlines(), text


def test_every_toolset_served_is_not_a_line(mocked: responses.RequestsMock) -> None:
    text, _ = report(mocked, answers())
    assert "GITEA_TOOLSETS" not in text, text


def test_no_write_probe_when_no_toolset_served_has_a_write_tool(
    mocked: responses.RequestsMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_other_toolsets(monkeypatch)  # labels: one read tool
    text, failed = report(mocked, answers(), toolsets=("labels",))
    assert all(call.request.method == "GET" for call in mocked.calls)
    assert "✓ no write tool in the toolsets served (GITEA_TOOLSETS): write:issue not needed" in text, text
    assert "✓ toolsets (GITEA_TOOLSETS): labels served; not offered: issue_list" in text and failed == 0, text


def test_bad_token_still_shows_the_version(mocked: responses.RequestsMock) -> None:
    """Gitea answers 401 to a wrong token on every route; the version is asked again anonymously."""
    refused = {"status": 401, "json": api_error("invalid username, password or token")}
    mocked.get(f"{API}/version", match=[matchers.header_matcher({"Authorization": f"token {TOKEN}"})], **refused)
    mocked.get(f"{API}/version", json={"version": "1.22.3"})
    mocked.get(f"{API}/user", **refused)
    lines = run_checks(settings(), client())
    text = render(lines, settings(), "utf-8")
    assert "✓ Gitea 1.22.3" in text and "✗ Gitea refused the token (401)" in text


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.22.3", ("Gitea", (1, 22, 3))),
        ("1.23.0+dev-512-gabcdef0", ("Gitea", (1, 23, 0))),
        ("v1.21", ("Gitea", (1, 21, 0))),
        ("11.0.1+gitea-1.22.0", ("Forgejo", (1, 22, 0))),
        ("7.0.5+gitea-1.21.11", ("Forgejo", (1, 21, 11))),
        ("12.0.0-123-abcdef+gitea-1.22.0", ("Forgejo", (1, 22, 0))),
        ("9.0.0", ("Forgejo", None)),  # check used to call this Gitea 9.0.0, where the tools saw Forgejo
        ("development", ("Gitea", None)),
    ],
)
def test_check_reads_the_version_as_the_tools_do(version: str, expected: tuple[str, tuple[int, ...] | None]) -> None:
    """One reading of /version (gitea.server.ServerInfo) for check and the tools alike."""
    server = ServerInfo.parse(version)
    assert (server.flavor, server.gitea_api if server.understood else None) == expected


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://gitea.test", "https://gitea.test"),
        ("https://bob:hunter2@gitea.test:3000/sub", "https://gitea.test:3000/sub"),
        ("http://[::1]:3000", "http://[::1]:3000"),
    ],
)
def test_display_url_drops_credentials(url: str, shown: str) -> None:
    assert display_url(url) == shown


@pytest.mark.parametrize(
    ("encoding", "ok_mark"),
    [("utf-8", "✓ "), ("UTF-8", "✓ "), ("cp1252", "[ok] "), ("ascii", "[ok] "), (None, "[ok] ")],
)
def test_marks_fall_back_to_ascii(mocked: responses.RequestsMock, encoding: str | None, ok_mark: str) -> None:
    serve(mocked, answers())
    text = render(run_checks(settings(), client()), settings(), encoding)
    assert f"\n{ok_mark}Gitea 1.22.3" in text
    text.encode(encoding or "ascii")


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        pytest.param(answers(), 0, id="usable"),
        pytest.param(answers(user={"json": {**user("root"), "is_admin": True}}), 0, id="warnings-only"),
        pytest.param(answers(write=scope_error("write:issue")), 1, id="write-tools-would-fail"),
        pytest.param(answers(read=scope_error("read:issue")), 1, id="unusable"),
    ],
)
def test_command_exit_code(
    mocked: responses.RequestsMock,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    answer: dict[str, dict[str, Any]],
    code: int,
) -> None:
    monkeypatch.setenv("GITEA_TOKEN", TOKEN)
    serve(mocked, answer)
    assert main(["check", "--url", ROOT, "--allowed-owners", "acme"]) == code
    out, err = capfd.readouterr()
    assert out.startswith("gitea-issues-mcp check: https://gitea.test\n") and TOKEN not in out + err


@pytest.mark.parametrize(
    ("definition", "document"),
    [
        ("ServerVersion", answers()["version"]["json"]),
        ("GeneralAPISettings", API_SETTINGS),
        ("User", answers()["user"]["json"]),
        ("CreateIssueOption", {"title": ""}),
        ("CreateLabelOption", {"name": "", "color": ""}),
        ("APIError", scope_error("write:issue")["json"]),
    ],
)
def test_mocks_and_probe_match_the_spec(definition: str, document: Any) -> None:
    validate_definition(definition, document)


def test_probes_use_only_documented_endpoints() -> None:
    assert {"owner", "limit", "type", "state"} <= query_parameters("/repos/issues/search")
    assert {"403", "404", "422"} <= set(operation("/repos/{owner}/{repo}/issues", "post")["responses"])
    # The spec omits the label route's 403 (no write access); the contract suite pins it.
    assert {"404", "422"} <= set(operation("/repos/{owner}/{repo}/labels", "post")["responses"])
    for path in ("/version", "/user", "/settings/api"):
        assert operation(path)


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        (
            {},
            "limits: 600 tool calls a minute per user on stdio (GITEA_MCP_CALLS_PER_MINUTE); 600 requests a minute to "
            "Gitea for the whole deployment (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE); kept in this process: each replica "
            "its own (GITEA_MCP_REDIS_URL shares them)",
        ),
        (
            {"transport": "http", "redis_url": "redis://:s3cret-pw@redis.internal:6380/0"},
            "limits: 60 tool calls a minute per user over HTTP (GITEA_MCP_CALLS_PER_MINUTE); 600 requests a minute to "
            "Gitea for the whole deployment (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE); kept in Redis at "
            "redis://redis.internal:6380, shared by every replica",
        ),
        (
            {"calls_per_minute": 0, "forge_requests_per_minute": 0},
            "limits: no limit of tool calls per user (GITEA_MCP_CALLS_PER_MINUTE=0); no budget of requests to Gitea "
            "(GITEA_MCP_FORGE_REQUESTS_PER_MINUTE=0); kept in this process: each replica its own (GITEA_MCP_REDIS_URL "
            "shares them)",
        ),
    ],
)
def test_check_says_the_limits_in_force_and_where_they_are_kept(changes: dict[str, Any], line: str) -> None:
    settings = Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), **changes)
    assert limits_line(settings) == Line("ok", line)
