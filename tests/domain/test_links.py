"""Pasted links: which pages of which server are understood, and the one-sentence refusal for everything else."""

from __future__ import annotations

import pytest

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.links import IssueLink, ListLink, looks_like_link, parse, with_params

SERVER = "https://git.example.com"
SUBPATH = "https://example.com/gitea/"


@pytest.mark.parametrize(
    ("link", "server", "expected"),
    [
        pytest.param(f"{SERVER}/acme/widgets/issues/7", SERVER, IssueLink("acme", "widgets", 7), id="issue"),
        pytest.param(f"{SERVER}/acme/widgets/pulls/12", SERVER, IssueLink("acme", "widgets", 12), id="pull"),
        pytest.param(f"{SERVER}/acme/widgets/issues/7/", SERVER, IssueLink("acme", "widgets", 7), id="slash"),
        pytest.param(
            f"{SERVER}/acme/widgets/issues/7#issuecomment-4521",
            SERVER,
            IssueLink("acme", "widgets", 7, 4521),
            id="comment-anchor",
        ),
        pytest.param(
            f"{SERVER}/acme/widgets/issues/7#event-3", SERVER, IssueLink("acme", "widgets", 7), id="other-anchor"
        ),
        pytest.param("HTTPS://GIT.example.com:443/acme/widgets/issues/7", SERVER, IssueLink("acme", "widgets", 7),
                     id="case-and-default-port"),
        pytest.param(f"{SERVER}/acme/my%20repo/issues/7", SERVER, IssueLink("acme", "my repo", 7), id="escaped"),
        pytest.param(f"{SERVER}/acme/widgets/issues/{'0' * 5000}7#issuecomment-{'0' * 5000}9", SERVER,
                     IssueLink("acme", "widgets", 7, 9), id="leading-zeros-as-go-reads-them"),
        pytest.param(f"{SERVER}/acme/widgets/issues", SERVER, ListLink("acme", "widgets", False), id="list"),
        pytest.param(
            f"{SERVER}/acme/widgets/pulls?state=closed&labels=12,13&labels=99&q=crash",
            SERVER,
            ListLink("acme", "widgets", True, {"state": "closed", "labels": "12,13", "q": "crash"}),
            id="list-first-value-wins",
        ),
        pytest.param(
            "https://example.com/gitea/acme/widgets/issues/3", SUBPATH, IssueLink("acme", "widgets", 3), id="sub-path"
        ),
        pytest.param(
            "http://127.0.0.1:3000/acme/widgets/issues/3",
            "http://127.0.0.1:3000",
            IssueLink("acme", "widgets", 3),
            id="port",
        ),
    ],
)  # fmt: skip
def test_understood(link: str, server: str, expected: IssueLink | ListLink) -> None:
    assert looks_like_link(link)
    assert parse(link, server) == expected


@pytest.mark.parametrize(
    ("link", "server", "sentence"),
    [
        pytest.param(
            "https://evil.example.net/acme/widgets/issues/7",
            SERVER,
            "the link is not on this server: it points at 'https://evil.example.net', and only links to "
            "https://git.example.com can be read here.",
            id="other-host",
        ),
        pytest.param(
            "http://git.example.com/acme/widgets/issues/7",
            SERVER,
            "the link is not on this server: it points at 'http://git.example.com', and only links to "
            "https://git.example.com can be read here.",
            id="other-scheme",
        ),
        pytest.param(
            "https://git.example.com:8443/acme/widgets/issues/7",
            SERVER,
            "the link is not on this server: it points at 'https://git.example.com:8443', and only links to "
            "https://git.example.com can be read here.",
            id="other-port",
        ),
        pytest.param(
            "https://example.com/acme/widgets/issues/3",
            SUBPATH,
            "the link is outside this server's address: it must start with https://example.com/gitea/.",
            id="outside-sub-path",
        ),
        pytest.param(
            "https://example.com/gitea2/acme/widgets/issues/3",
            SUBPATH,
            "the link is outside this server's address: it must start with https://example.com/gitea/.",
            id="sub-path-prefix-only",
        ),
        pytest.param(f"{SERVER}/acme/widgets", SERVER, "", id="repository-page"),
        pytest.param(f"{SERVER}/acme/widgets/issues/seven", SERVER, "", id="not-a-number"),
        pytest.param(
            f"{SERVER}/acme/widgets/issues/0",
            SERVER,
            "the issue number '0' in the link is not valid; use a whole number from 1 to 2147483647.",
            id="zero",
        ),
        pytest.param(f"{SERVER}/acme/widgets/wiki/Home", SERVER, "", id="wiki"),
        pytest.param(f"{SERVER}/acme/widgets/pulls/7/files/x", SERVER, "", id="deeper"),
    ],
)
def test_refused(link: str, server: str, sentence: str) -> None:
    with pytest.raises(ToolFailure) as refused:
        parse(link, server)
    unknown_page = (
        "the link is not an issue, pull request or issue list page; use a link like "
        f"{server.rstrip('/')}/OWNER/REPO/issues/NUMBER or …/OWNER/REPO/issues?state=closed."
    )
    assert str(refused.value) == (sentence or unknown_page)


@pytest.mark.parametrize("text", ["crash label:bug", "git.example.com/acme/widgets/issues/7", "ftp://x/y"])
def test_a_query_is_not_a_link(text: str) -> None:
    assert not looks_like_link(text)


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        pytest.param(f"{SERVER}/a/b/issues?milestone=1", f"{SERVER}/a/b/issues?milestone=1&state=all", id="added"),
        pytest.param(f"{SERVER}/a/b/issues?state=&q=x", f"{SERVER}/a/b/issues?state=all&q=x", id="empty-replaced"),
        pytest.param(f"{SERVER}/a/b/issues?state=open&state=closed", f"{SERVER}/a/b/issues?state=all", id="repeats"),
        pytest.param(
            f"{SERVER}/a/b/issues?page=3&q=a%20b+c", f"{SERVER}/a/b/issues?q=a+b+c&state=all", id="page-dropped"
        ),
        pytest.param(f"{SERVER}/a/b/issues", f"{SERVER}/a/b/issues?state=all", id="no-query"),
    ],
)
def test_a_link_with_its_state_pinned_and_page_dropped(link: str, expected: str) -> None:
    pinned = with_params(link, {"state": "all"}, drop=("page",))
    assert pinned == expected
