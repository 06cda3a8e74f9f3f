"""The web address template of a listing (tools/table.py): every row's address as Gitea sent it, or none at all."""

from __future__ import annotations

import pytest

from gitea_mcp.tools.table import Place, WebUrls, address, web_urls

ROOT = "https://gitea.test/sub"  # Gitea may serve under a sub-path: the root is whatever precedes owner/name
ISSUE = Place("acme/widgets", 12, False, f"{ROOT}/acme/widgets/issues/12")
PULL = Place("acme/widgets", 7, True, f"{ROOT}/acme/widgets/pulls/7")
ELSEWHERE = Place("acme/gadgets", 3, False, f"{ROOT}/acme/gadgets/issues/3")


@pytest.mark.parametrize(
    ("places", "one_repository", "expected"),
    [
        pytest.param(
            [ISSUE, PULL],
            True,
            WebUrls(issue=f"{ROOT}/acme/widgets/issues/{{number}}", pull=f"{ROOT}/acme/widgets/pulls/{{number}}"),
            id="one-repository",
        ),
        pytest.param(
            [PULL, ELSEWHERE],
            False,
            WebUrls(issue=f"{ROOT}/{{repository}}/issues/{{number}}", pull=f"{ROOT}/{{repository}}/pulls/{{number}}"),
            id="across-repositories",
        ),
        pytest.param([ISSUE, ELSEWHERE], True, None, id="another-repository-does-not-fit-one"),
        pytest.param(
            [ISSUE, Place("acme/widgets", 9, False, "https://other.test/acme/widgets/issues/9")],
            True,
            None,
            id="another-root",
        ),
        pytest.param([Place("acme/widgets", 12, False, "")], True, None, id="no-url-sent"),
        pytest.param([Place("acme/widgets", 12, True, f"{ROOT}/acme/widgets/issues/12")], True, None, id="pr-as-issue"),
        pytest.param([], True, None, id="no-rows"),
    ],
)
def test_one_template_or_none(places: list[Place], one_repository: bool, expected: WebUrls | None) -> None:
    urls = web_urls(places, one_repository)
    assert urls == expected
    if urls is not None:  # the template gives back every address exactly, as an agent fills it in
        assert [address(urls, p.repository, p.number, p.is_pull) for p in places] == [p.html_url for p in places]
