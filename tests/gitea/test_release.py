"""gitea/release.py: what `GET /version` says about the server, and what each release means for the tools. Each
property is a behaviour the contract suite verified on real releases (docs/server-behaviour.md); these cases hold
the boundaries, one release either side."""

from __future__ import annotations

import pytest

from gitea_mcp.gitea.release import ServerInfo


@pytest.mark.parametrize(
    ("raw", "flavor", "number", "mode", "drops_assignee", "org_names"),
    [
        ("1.22.6", "Gitea", (1, 22, 6), "phrase", True, False),
        ("1.25.4", "Gitea", (1, 25, 4), "phrase", True, True),
        ("1.26.0", "Gitea", (1, 26, 0), "phrase", False, True),
        ("11.0.15+gitea-1.22.0", "Forgejo", (11, 0, 15), "words", True, True),
        ("15.0.3+gitea-1.22.0", "Forgejo", (15, 0, 3), "words", False, True),
        ("10.0.1+gitea-1.22.0", "Forgejo", (10, 0, 1), "phrase", True, True),
        ("main", "Gitea", (1, 25, 0), "phrase", True, True),
    ],
)
def test_server_info(
    raw: str, flavor: str, number: tuple[int, int, int], mode: str, drops_assignee: bool, org_names: bool
) -> None:
    info = ServerInfo.parse(raw)
    assert (info.flavor, info.number, info.keyword_mode) == (flavor, number, mode)
    assert info.keyword_drops_assignee == drops_assignee and info.org_labels_by_name == org_names


@pytest.mark.parametrize(
    ("raw", "shown", "understood"),
    [
        ("1.25.4", "Gitea 1.25.4", True),
        ("v1.21", "Gitea 1.21.0", True),
        (" 1.24.2\n", "Gitea 1.24.2", True),  # read stripped
        ("12.0.4+gitea-1.22.0", "Forgejo 12.0.4", True),
        ("9.0.0", "Forgejo 9.0.0", True),  # no +gitea- part, yet no Gitea release is numbered 7 or more
        ("", "Gitea 1.25.0", False),
        ("nightly", "Gitea 1.25.0", False),
    ],
)
def test_a_version_is_read_or_taken_for_the_newest_gitea_verified(raw: str, shown: str, understood: bool) -> None:
    info = ServerInfo.parse(raw)
    assert (str(info), info.understood, info.raw) == (shown, understood, raw)


# release -> (keyword_finds_number, numeric_keyword_from_db, search_filters_author, cuts_titles_by_width,
#             narrows_oauth_scopes)
BEHAVIOURS = {
    "1.22.6": (False, False, False, False, False),
    "1.23.0": (True, True, False, False, True),
    "1.23.8": (True, True, False, False, True),
    "1.24.0": (True, True, False, True, True),
    "1.25.4": (True, True, False, True, True),
    "1.26.0": (True, True, True, True, True),
    "11.0.3+gitea-1.22.0": (False, False, False, False, False),
    "12.0.4+gitea-1.22.0": (True, False, False, False, False),
    "15.0.0+gitea-1.22.0": (True, False, False, False, False),
}


@pytest.mark.parametrize(("raw", "expected"), BEHAVIOURS.items(), ids=list(BEHAVIOURS))
def test_each_behaviour_turns_at_its_release(raw: str, expected: tuple[bool, ...]) -> None:
    info = ServerInfo.parse(raw)
    said = (
        info.keyword_finds_number,
        info.numeric_keyword_from_db,
        info.search_filters_author,
        info.cuts_titles_by_width,
        info.narrows_oauth_scopes,
    )
    assert said == expected


@pytest.mark.parametrize(
    ("raw", "api"),
    [
        ("1.25.4", (1, 25, 4)),  # Gitea speaks its own
        ("11.0.1+gitea-1.22.0", (1, 22, 0)),
        ("7.0.5+gitea-1.21", (1, 21, 0)),
        ("9.0.0", None),  # a Forgejo that names none
    ],
)
def test_the_gitea_api_a_server_speaks(raw: str, api: tuple[int, int, int] | None) -> None:
    assert ServerInfo.parse(raw).gitea_api == api
