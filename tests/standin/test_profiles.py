"""What differs by release: the stand-in answering as each profile (the contract suite states the same per release)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from gitea_mcp.standin import DEMO_TOKEN, DEMO_USER_TOKEN, PROFILES, Profile, StandIn
from tests.standin.conftest import Client

ISSUES = "/repos/acme/widgets/issues"


@pytest.fixture(scope="module", params=sorted(PROFILES))
def each(request: pytest.FixtureRequest) -> Iterator[Client]:
    """The seeded stand-in as each release the contract suite covers (read-only tests)."""
    with StandIn(profile=PROFILES[request.param]) as standin:
        yield Client(standin)


def _profile(client: Client) -> Profile:
    return client.standin.profile


def test_version_and_settings(each: Client) -> None:
    assert each.json("/version", token=None) == {"version": _profile(each).version}
    assert each.json("/settings/api")["max_response_items"] == _profile(each).max_response_items


GITEA_122, GITEA_1236, GITEA_1237 = Profile("1.22.6"), Profile("1.23.6"), Profile("1.23.7")
FORGEJO_11, FORGEJO_12 = Profile("11.0.3+gitea-1.22.0"), Profile("12.0.4+gitea-1.22.0")


def _of(name: str, *profiles: Profile) -> list[object]:
    return [getattr(p, name) for p in profiles]


def test_profile_properties_by_release() -> None:
    assert Profile().version == "1.25.4" and Profile().not_found_message == "not found"
    assert FORGEJO_11.is_forgejo and FORGEJO_11.number == (11, 0, 3) and not GITEA_122.is_forgejo
    redirects = _of("redirect_status", GITEA_122, GITEA_1236, GITEA_1237, FORGEJO_11, FORGEJO_12)
    assert redirects == [307, 307, 301, 307, 301]
    assert _of("keyword_mode", GITEA_122, Profile(indexer="db"), FORGEJO_11) == ["phrase", "substring", "words"]
    assert _of("missing_issue_comments_status", GITEA_122, Profile(), FORGEJO_11) == [500, 500, 404]
    numbers = _of("keyword_matches_number", GITEA_122, GITEA_1236, FORGEJO_11, FORGEJO_12)
    assert numbers == [False, True, False, True]
    assert _of("org_labels_by_name", GITEA_122, GITEA_1236, FORGEJO_11) == [False, True, True]
    assert GITEA_122.not_found_message == FORGEJO_12.not_found_message == "The target couldn't be found."


def test_times_are_rendered_in_the_servers_zone(each: Client) -> None:
    issue = each.json(f"{ISSUES}/1")
    stored = each.standin.store.get_issue("acme", "widgets", 1)
    assert stored is not None
    created = datetime.fromisoformat(issue["created_at"])
    assert created == stored.created_at  # the same instant
    assert created.utcoffset() == timedelta(minutes=_profile(each).utc_offset_minutes)
    assert issue["created_at"].endswith("Z") == (_profile(each).utc_offset_minutes == 0)


def test_a_missing_scope_is_worded_as_the_release_words_it(each: Client) -> None:
    message = each.get(ISSUES, token=DEMO_USER_TOKEN).json()["message"]
    if _profile(each).scope_error_shows_token_scope:
        expected = "token does not have at least one of required scope(s), required=[read:issue], token scope=read:user"
    else:
        expected = "token does not have at least one of required scope(s): [read:issue]"
    assert message == expected


def test_a_404_is_worded_as_the_release_words_it(each: Client) -> None:
    missing = each.get(f"{ISSUES}/9999")
    assert missing.status_code == 404 and missing.json()["message"] == _profile(each).not_found_message
    user = each.get(ISSUES, created_by="nobody").json()
    assert user["message"] == _profile(each).not_found_message
    assert user["errors"] == ["user does not exist [uid: 0, name: nobody]"]


def test_comments_of_a_missing_issue(each: Client) -> None:
    status = _profile(each).missing_issue_comments_status
    assert each.get(f"{ISSUES}/9999/comments").status_code == status
    # Writing is refused before anything happens, with the same status.
    assert each.call("POST", f"{ISSUES}/9999/comments", json={"body": "x"}).status_code == status


def test_a_renamed_repository(each: Client) -> None:
    response = each.get("/repos/acme/old-widgets/issues")
    assert response.status_code == _profile(each).redirect_status
    assert response.headers["Location"] == "/api/v1/repos/acme/widgets/issues"


def test_keyword_by_indexer(each: Client) -> None:
    mode = _profile(each).keyword_mode

    def found(q: str) -> bool:
        return each.total(ISSUES, state="all", q=q) > 0

    assert found("dark mode") and found("Größenangaben")
    assert found("Größenang") == (mode == "substring")  # part of a word
    assert found("mode dark") == (mode == "words")  # words out of order
    assert found('"dark mode"') == (mode != "substring")  # quotes: ignored, a phrase, or literal
    assert found("zzzunknown dark") == (mode == "words")  # any one word suffices on Forgejo


def test_numeric_keyword(each: Client) -> None:
    numbers = [i["number"] for i in each.json(ISSUES, state="all", q="42", limit=50)]
    assert (42 in numbers) == _profile(each).keyword_matches_number


def test_keyword_with_an_assignee(each: Client) -> None:
    store = each.standin.store
    assigned = next(i for i in store.issues.values() if i.repo_id == 1 and "alice" in i.assignees and i.title)
    word = assigned.title.split()[-1]
    found = [i["number"] for i in each.json(ISSUES, state="all", q=word, assigned_by="alice", limit=50)]
    assert (assigned.number in found) == (not _profile(each).keyword_ignores_assignee)


def test_page_sizes(each: Client) -> None:
    limit = _profile(each).max_response_items
    assert len(each.json(ISSUES, state="all", limit=1000)) == limit  # clamped
    assert len(each.json(ISSUES, state="all", limit=0)) == 30  # DEFAULT_PAGING_NUM, not clamped
    search = each.json("/repos/issues/search", state="all", limit=0)
    assert len(search) == _profile(each).search_default_limit


def test_catalogues_come_whole_without_page() -> None:
    with StandIn(profile=Profile(max_response_items=3)) as standin:
        client = Client(standin)
        assert len(client.json("/repos/acme/widgets/labels", limit=50)) == 8  # no page: everything
        assert len(client.json("/repos/acme/widgets/labels", limit=50, page=1)) == 3
        assert len(client.json("/repos/acme/widgets/labels", limit=50, page=3)) == 2
        assert len(client.json("/repos/acme/widgets/milestones", state="all", limit=1)) == 3
        assert len(client.json("/repos/acme/widgets/milestones", state="all", limit=1, page=2)) == 1
        assert len(client.json(ISSUES, state="all", limit=0)) == 30


def test_a_token_is_checked_everywhere(each: Client) -> None:
    assert each.get(ISSUES, token="0" * 40).status_code == 401
    assert each.get(ISSUES, token=DEMO_TOKEN).status_code == 200


def _basic(login: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


@pytest.mark.parametrize(
    ("header", "named"),
    [
        ("token " + "0" * 40, None),
        ("Bearer not-a-token", None),
        (_basic("demo", "wrong-password"), "demo"),  # a user that exists: its password was wrong
        (_basic("ghost", "x"), "ghost"),
        (_basic("", "0" * 40), ""),
    ],
)
def test_a_bad_credential_is_worded_as_the_release_words_it(each: Client, header: str, named: str | None) -> None:
    """Gitea 1.22 names the user the attempt ended on (measured on 1.22.6); later releases one sentence for all."""
    answer = each.session.get(f"{each.standin.url}/api/v1/user", headers={"Authorization": header}, timeout=10)
    user = each.standin.store.user(named)
    if _profile(each).version != "1.22.6":
        expected = "invalid username, password or token"
    elif user is not None:
        expected = f"user's password is invalid [uid: {user.id}, name: {user.login}]"
    else:
        expected = f"user does not exist [uid: 0, name: {named or ''}]"
    assert answer.status_code == 401 and answer.json()["message"] == expected
