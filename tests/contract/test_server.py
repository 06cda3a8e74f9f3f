"""What gitea_mcp relies on the server to do: one probe per behaviour, the expected answer stated per release.

Each probe is a request and the property its answer must have. They run against the stand-in in every profile
(in CI) and against a live Gitea or Forgejo (GITEA_LIVE_URL); docs/compatibility.md has the results per release.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tests.contract.lab import (
    DISMISSAL,
    DONE_DUE,
    INLINE,
    MANY_CLOSED,
    MANY_ISSUES,
    MANY_LABELS,
    REVIEW_BODY,
    SCOPED_ORG_LABELS,
    SCOPED_REPO_LABELS,
    Lab,
)
from tests.contract.target import Answer, Http, Target

SCOPE_403 = "token does not have at least one of required scope(s)"


def numbers(answer: Answer) -> set[int]:
    assert answer.status == 200, answer.text
    return {int(item["number"]) for item in answer.body}


def rows(http: Http, lab: Lab, **params: object) -> list[dict[str, Any]]:
    """The cross-repository search as the lab's writer, which must answer 200."""
    answer = http.get("/repos/issues/search", lab.tokens["writer"], **params)
    assert answer.status == 200, answer.text
    assert isinstance(answer.body, list)
    return answer.body


# -- token scopes: per route category ---------------------------------------------------------------------------


def test_own_user_needs_read_user(http: Http, lab: Lab) -> None:
    refused = http.get("/user", lab.tokens["writer_issue_only"])
    assert refused.status == 403 and SCOPE_403 in refused.message and "read:user" in refused.message
    assert http.ok("GET", "/user", lab.tokens["writer"])["login"] == lab.writer


def test_other_users_need_read_user(http: Http, lab: Lab) -> None:
    assert http.get(f"/users/{lab.assignee}", lab.tokens["writer_issue_only"]).status == 403
    assert http.get(f"/users/{lab.assignee}", lab.tokens["writer"]).status == 200


def test_org_labels_need_read_organization(http: Http, lab: Lab) -> None:
    refused = http.get(f"/orgs/{lab.org}/labels", lab.tokens["writer"])
    assert refused.status == 403 and "read:organization" in refused.message
    listed = http.ok("GET", f"/orgs/{lab.org}/labels", lab.tokens["writer_org"])
    assert sorted(x["name"] for x in listed) == ["triage", "untouched"]


def test_repository_needs_read_repository(http: Http, lab: Lab) -> None:
    refused = http.get(lab.path(), lab.tokens["writer"])
    assert refused.status == 403 and "read:repository" in refused.message
    assert http.get(lab.path(), lab.tokens["writer_repo"]).status == 200
    # As for the issue routes, the scope comes first: `check` asks for a repository that does not exist.
    missing = http.get(lab.path(repo="nope"), lab.tokens["writer"])
    assert missing.status == 403 and "read:repository" in missing.message
    assert http.get(lab.path(repo="nope"), lab.tokens["writer_repo"]).status == 404


def test_issue_routes_need_only_the_issue_scope(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer_issue_only"]
    issue = lab.issues["auth"]
    for path in ("issues", "labels", "milestones", f"issues/{issue}", f"issues/{issue}/comments",
                 f"issues/{issue}/labels"):  # fmt: skip
        assert http.get(lab.path(path), token).status == 200, path
    assert http.get("/repos/issues/search", token, owner=lab.org).status == 200


def test_the_scope_is_checked_before_the_repository_is_looked_up(http: Http, lab: Lab) -> None:
    token = lab.tokens["reader"]  # read:issue only: may not write
    assert http.call("POST", lab.path("issues"), token, json={"title": ""}).status == 403
    assert http.call("POST", lab.path("issues", repo="nope"), token, json={"title": ""}).status == 403
    assert http.get(lab.path("issues", repo="nope"), lab.tokens["writer_repo"]).status == 404
    # With the write scope an empty title passes the scope check and fails validation: nothing is created.
    assert http.call("POST", lab.path("issues"), lab.tokens["writer"], json={"title": ""}).status == 422


# -- may the token's user change issues? (what `check` probes, changing nothing) ---------------------------------


def test_creating_a_nameless_label_tells_writers_from_readers(http: Http, lab: Lab) -> None:
    """Gitea checks write access to the repository before it reads the body: 422 for a writer, 403 for a reader or
    a user without access to a public repository, 404 where the repository is invisible; nothing is created."""
    nameless = {"name": "", "color": ""}
    path = lab.path("labels")
    writer = http.call("POST", path, lab.tokens["writer"], json=nameless)
    assert (writer.status, writer.message) == (422, "[Name]: Required")
    for role in ("poster", "outsider"):  # a read collaborator; a user who is no member at all
        refused = http.call("POST", path, lab.tokens[role], json=nameless)
        assert refused.status == 403 and refused.message and SCOPE_403 not in refused.message, (role, refused.text)
    unseen = http.call("POST", lab.path("labels", repo=lab.private_repo), lab.tokens["outsider"], json=nameless)
    assert unseen.status == 404
    no_scope = http.call("POST", path, lab.tokens["reader"], json=nameless)  # read:issue only
    assert no_scope.status == 403 and SCOPE_403 in no_scope.message
    assert all(label["name"] for label in http.ok("GET", path, lab.tokens["writer"])), "nothing was created"


def test_an_empty_edit_tells_writers_from_readers_only_on_an_issue_they_did_not_file(http: Http, lab: Lab) -> None:
    """A PATCH of a number that does not exist is 404 for everybody (the issue is looked up first), so it cannot
    tell; an edit sending nothing can, but only on someone else's issue (a poster may edit their own)."""
    for role in ("writer", "poster", "outsider"):
        assert http.call("PATCH", lab.path("issues", 9999), lab.tokens[role], json={}).status == 404, role
    path = lab.path("issues", create(http, lab, "writer").body["number"])
    before = http.ok("GET", path, lab.tokens["writer"])["updated_at"]
    for role in ("poster", "outsider"):
        assert http.call("PATCH", path, lab.tokens[role], json={}).status == 403, role
    assert http.call("PATCH", path, lab.tokens["writer"], json={}).status == 201
    assert http.ok("GET", path, lab.tokens["writer"])["updated_at"] == before, "an empty edit changes nothing"


WRITE_REFUSED = "write permission is required"


def test_a_user_who_may_only_read_is_refused_in_these_words(target: Target, http: Http, lab: Lab) -> None:
    """What a 403 says to a read collaborator and to a non-member of a public repository (both can read it): adding
    or replacing labels names the missing write permission on Gitea (a bare 403 on Forgejo); editing another's
    issue and removing a label answer a bare 403 without a body; a token without the write scope is named as such.
    Nothing changes."""
    number = lab.issues["auth"]
    before = http.ok("GET", lab.path("issues", number), lab.tokens["writer"])
    labels = lab.path("issues", number, "labels")
    worded = "" if target.version.flavor == "forgejo" else WRITE_REFUSED  # Forgejo 11 and 12 say nothing on labels
    for role in ("poster", "outsider"):
        for method in ("POST", "PUT"):
            answer = http.call(method, labels, lab.tokens[role], json={"labels": [lab.labels["ui"]]})
            assert (answer.status, answer.text and answer.message) == (403, worded), (role, method, answer.text)
        bare = (("PATCH", lab.path("issues", number), {"title": "Edited"}),
                ("DELETE", lab.path("issues", number, "labels", lab.labels["bug"]), None))  # fmt: skip
        for method, path, body in bare:
            answer = http.call(method, path, lab.tokens[role], json=body)
            assert (answer.status, answer.text) == (403, ""), (role, method, answer.text)
    own = lab.path("issues", lab.issues["poster"], "labels")  # a poster may not label even the issue they filed
    answer = http.call("POST", own, lab.tokens["poster"], json={"labels": [lab.labels["ui"]]})
    assert (answer.status, answer.text and answer.message) == (403, worded), answer.text
    no_scope = http.call("POST", labels, lab.tokens["reader"], json={"labels": [lab.labels["ui"]]})  # read:issue
    assert no_scope.status == 403 and SCOPE_403 in no_scope.message and "write:issue" in no_scope.message
    assert http.ok("GET", lab.path("issues", number), lab.tokens["writer"]) == before, "nothing changed"


def test_bad_token_anonymous_reads_and_writes(http: Http, lab: Lab) -> None:
    assert http.get(lab.path("issues"), "0" * 40).status == 401
    assert http.get(lab.path("issues", repo=lab.private_repo)).status == 404  # invisible, not 401
    assert http.get(lab.path("issues")).status == 200  # a public repository reads anonymously
    assert http.call("POST", lab.path("issues"), None, json={"title": "x"}).status == 401


# -- the repository issue list ------------------------------------------------------------------------------------


def test_type_issues_excludes_pulls_and_no_type_mixes_them(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer"]
    only = http.get(lab.path("issues"), token, type="issues", state="all")
    mixed = http.get(lab.path("issues"), token, state="all")
    assert lab.issues["pr"] not in numbers(only) and lab.issues["pr"] in numbers(mixed)
    pulls = [x for x in mixed.body if x["number"] == lab.issues["pr"]]
    assert pulls[0]["pull_request"] is not None
    assert all(x["pull_request"] is None for x in only.body)


def test_total_count_and_link_headers(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer"]
    one_page = http.get(lab.path("issues", repo=lab.private_repo), token)
    assert one_page.total == 1 and "Link" not in one_page.headers  # no Link at all when one page holds everything
    paged = http.get(lab.path("issues", repo=lab.many_repo), token, limit=10, page=1)
    assert paged.total == MANY_ISSUES and 'rel="next"' in paged.headers["Link"] and len(paged.body) == 10


def test_labels_filter_is_all_of_and_drops_unknown_names(http: Http, lab: Lab) -> None:
    """Among the seeded issues (the tool probes, run in the same session, file labelled issues here too)."""
    token, seeded = lab.tokens["writer"], set(lab.issues.values())
    assert numbers(http.get(lab.path("issues"), token, labels="bug,ui")) & seeded == {lab.issues["export"]}
    everything = numbers(http.get(lab.path("issues"), token, limit=50))
    assert numbers(http.get(lab.path("issues"), token, labels="no-such-label", limit=50)) == everything
    assert numbers(http.get(lab.path("issues"), token, labels="bug,no-such-label", limit=50)) & seeded == {
        lab.issues["auth"],
        lab.issues["export"],
    }


def test_labels_and_milestones_are_split_on_commas(http: Http, lab: Lab) -> None:
    """`help, wanted` becomes `help` and ` wanted`; a milestone is found by title, then by id."""
    token, path = lab.tokens["writer"], lab.path("issues", repo=lab.names_repo)
    assert numbers(http.get(path, token, labels="help, wanted", state="all")) == {lab.issues["help"]}
    assert numbers(http.get(path, token, milestones="v3, final", state="all")) == {lab.issues["help"]}
    assert numbers(http.get(path, token, milestones=lab.milestones["v3, final"], state="all")) == {lab.issues["comma"]}


def test_the_list_filters_by_the_repositorys_own_label_names_only(http: Http, lab: Lab) -> None:
    """An organisation's label, or any label's id, is dropped: the whole list comes back."""
    token, path = lab.tokens["writer"], lab.path("issues", repo=lab.names_repo)
    everything = numbers(http.get(path, token, state="all", limit=50))
    assert len(everything) == 4
    assert numbers(http.get(path, token, labels="triage", state="all", limit=50)) == everything
    assert numbers(http.get(path, token, labels=lab.labels["help"], state="all", limit=50)) == everything


def test_a_label_on_an_issue_says_whose_it_is(http: Http, lab: Lab) -> None:
    """An organisation's label carries `…/api/v1/orgs/{org}/labels/{id}`, a repository's `…/repos/{o}/{r}/…`."""
    answer = http.get(lab.path("issues", lab.issues["comma"], repo=lab.names_repo), lab.tokens["writer"])
    urls = {x["name"]: x["url"] for x in answer.body["labels"]}
    assert urls["triage"].endswith(f"/api/v1/orgs/{lab.org}/labels/{lab.labels['triage']}")
    own = f"/api/v1/repos/{lab.org}/{lab.names_repo}/labels/{lab.labels['help, wanted']}"
    assert urls["help, wanted"].endswith(own)


def test_search_finds_an_organisation_label_by_name(http: Http, lab: Lab) -> None:
    """With read:issue alone: the issues that carry `triage` show its id, which the token cannot list."""
    found = rows(http, lab, owner=lab.org, labels="triage", state="all", limit=50)
    assert {row["number"] for row in found if row["repository"]["name"] == lab.names_repo} == {
        lab.issues["comma"], lab.issues["triaged"],
    }  # fmt: skip
    assert {x["id"] for row in found for x in row["labels"] if x["name"] == "triage"} == {lab.labels["triage"]}


def test_search_splits_labels_on_commas(http: Http, lab: Lab) -> None:
    """`help, wanted` searches for `help` or ` wanted`: the issue carrying `help, wanted` itself is not found."""
    found = rows(http, lab, owner=lab.org, labels="help, wanted", state="all", limit=50)
    assert {row["number"] for row in found if row["repository"]["name"] == lab.names_repo} == {lab.issues["help"]}


def test_an_unknown_state_means_open(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer"]
    assert numbers(http.get(lab.path("issues"), token, state="bogus", limit=50)) == numbers(
        http.get(lab.path("issues"), token, state="open", limit=50)
    )


def test_limit_is_clamped_to_max_response_items(http: Http, lab: Lab, max_items: int) -> None:
    token = lab.tokens["writer"]
    assert len(http.get(lab.path("issues", repo=lab.many_repo), token, limit=100).body) == min(MANY_ISSUES, max_items)
    default = http.get(lab.path("issues", repo=lab.many_repo), token, limit=0)
    assert len(default.body) == min(MANY_ISSUES, 30)  # DEFAULT_PAGING_NUM, not clamped


def test_catalogue_pages_are_the_servers_size(http: Http, lab: Lab, max_items: int) -> None:
    """Labels (and milestones) come in pages of at most MAX_RESPONSE_ITEMS, whatever `limit` asks."""
    token = lab.tokens["writer"]
    first = http.get(lab.path("labels", repo=lab.many_repo), token, limit=50, page=1)
    assert first.total == MANY_LABELS and len(first.body) == min(MANY_LABELS, max_items)
    second = http.get(lab.path("labels", repo=lab.many_repo), token, limit=50, page=2)
    assert len(second.body) == max(0, min(MANY_LABELS - max_items, max_items))


def test_a_catalogue_without_page_ignores_limit(http: Http, lab: Lab) -> None:
    """`limit` alone is ignored: every label comes back, past MAX_RESPONSE_ITEMS too; with `page` it is obeyed."""
    token = lab.tokens["writer"]
    assert len(http.ok("GET", lab.path("labels", repo=lab.many_repo), token, params={"limit": 1})) == MANY_LABELS
    assert len(http.ok("GET", lab.path("labels", repo=lab.many_repo), token, params={"limit": 1, "page": 1})) == 1


LABEL_FIELDS = {"id", "name", "exclusive", "is_archived", "color", "description", "url"}


def label_flags(rows: list[dict[str, Any]]) -> list[tuple[str, bool, bool]]:
    """(name, exclusive, archived) of each label, in the order listed; each has exactly Gitea 1.25's fields and a
    colour of six hex digits without '#'."""
    for row in rows:
        assert set(row) == LABEL_FIELDS and len(row["color"]) == 6 and int(row["color"], 16) >= 0, row
    return [(row["name"], row["exclusive"], row["is_archived"]) for row in rows]


def test_labels_say_exclusive_and_archived_and_list_the_archived(http: Http, lab: Lab) -> None:
    """A repository's labels, by name: each says whether it is exclusive (a scope is the name up to its last '/',
    of an exclusive label only) and archived; archived labels are listed with the rest."""
    path = f"/repos/{lab.scoped}/{lab.scoped_repo}/labels"
    listed = http.ok("GET", path, lab.tokens["writer"], params={"page": 1, "limit": 50})
    assert label_flags(listed) == list(SCOPED_REPO_LABELS)


def test_an_archived_label_is_still_put_on_issues(http: Http, lab: Lab) -> None:
    """Archived is no refusal: a new issue keeps an archived label given by id, and one is added by name."""
    repo, token = f"/repos/{lab.scoped}/{lab.scoped_repo}", lab.tokens["writer"]
    rows = http.ok("GET", f"{repo}/labels", token, params={"page": 1, "limit": 50})
    legacy = next(row["id"] for row in rows if row["name"] == "legacy")
    created = http.ok("POST", f"{repo}/issues", token, json={"title": "Contract: archived label", "labels": [legacy]})
    assert [x["name"] for x in created["labels"]] == ["legacy"]
    bare = http.ok("POST", f"{repo}/issues", token, json={"title": "Contract: archived label added"})
    added = http.ok("POST", f"{repo}/issues/{bare['number']}/labels", token, json={"labels": ["legacy"]})
    assert [x["name"] for x in added] == ["legacy"]


def test_organisation_labels_say_exclusive_and_archived(http: Http, lab: Lab) -> None:
    """The same of an organisation's labels, read with read:organization by a user outside the organisation (a
    collaborator on one of its repositories); the URL says they are the organisation's."""
    path = f"/orgs/{lab.scoped}/labels"
    listed = http.ok("GET", path, lab.tokens["writer_org"], params={"page": 1, "limit": 50})
    assert label_flags(listed) == list(SCOPED_ORG_LABELS)
    assert all(f"/api/v1/orgs/{lab.scoped}/labels/" in row["url"] for row in listed)


# -- milestones and assignees: what milestone_list and assignee_list rely on -------------------------------------


def milestone_titles(answer: Answer) -> list[str]:
    assert answer.status == 200, answer.text
    return [m["title"] for m in answer.body]


def every_milestone(target: Target) -> list[str]:
    """The main repository's milestones in the list's order: soonest due first, then by id; `done` alone has a due
    day, and the undated ones come first on Gitea (from 1.23), last on Forgejo."""
    return ["v1", "v2", "done"] if target.version.gitea((1, 23)) else ["done", "v1", "v2"]


def test_milestones_without_a_known_state_are_every_milestone(http: Http, lab: Lab, target: Target) -> None:
    """Unlike the issue list (where no state means open): so milestone_list always sends one."""
    token, path = lab.tokens["writer"], lab.path("milestones")
    assert milestone_titles(http.get(path, token)) == every_milestone(target)
    assert milestone_titles(http.get(path, token, state="bogus")) == every_milestone(target)
    assert milestone_titles(http.get(path, token, state="all")) == every_milestone(target)
    assert milestone_titles(http.get(path, token, state="open")) == ["v1", "v2"]
    assert milestone_titles(http.get(path, token, state="closed")) == ["done"]


def test_milestones_ignore_limit_without_page(http: Http, lab: Lab, target: Target) -> None:
    """So milestone_list always sends `page`; pages carry X-Total-Count and no Link."""
    token, path = lab.tokens["writer"], lab.path("milestones")
    assert milestone_titles(http.get(path, token, state="all", limit=1)) == every_milestone(target)
    second = http.get(path, token, state="all", limit=1, page=2)
    assert milestone_titles(second) == every_milestone(target)[1:2] and second.total == 3
    assert "Link" not in second.headers


def test_a_milestone_carries_its_counts_and_due_instant_but_no_html_url(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer"]
    [archive] = http.get(lab.path("milestones", repo=lab.many_repo), token, state="all").body
    assert (archive["open_issues"], archive["closed_issues"], archive["due_on"]) == (0, MANY_CLOSED, None)
    [done] = http.get(lab.path("milestones"), token, state="closed").body
    assert done["state"] == "closed" and done["closed_at"] and datetime.fromisoformat(done["due_on"]) == DONE_DUE
    assert "html_url" not in archive and "url" not in archive


def test_assignees_need_read_repository_and_a_token(http: Http, lab: Lab) -> None:
    refused = http.get(lab.path("assignees"), lab.tokens["writer"])
    assert refused.status == 403 and SCOPE_403 in refused.message and "read:repository" in refused.message
    assert http.get(lab.path("assignees"), lab.tokens["writer_repo"]).status == 200
    assert http.get(lab.path("assignees")).status == 401  # public, but anonymous callers are refused
    assert http.get(lab.path("assignees", repo="nope"), lab.tokens["writer_repo"]).status == 404


def test_assignees_are_the_users_with_write_access_in_one_list(http: Http, lab: Lab) -> None:
    answer = http.get(lab.path("assignees"), lab.tokens["writer_repo"], limit=1, page=1)
    assert answer.status == 200 and answer.total is None and "Link" not in answer.headers  # one list, unpaged
    logins = [user["login"] for user in answer.body]
    assert {lab.writer, lab.assignee} <= set(logins) and not {lab.poster, lab.outsider, lab.org} & set(logins)
    assert all("full_name" in user for user in answer.body)


def test_a_user_owner_is_an_assignee_listed_after_the_others(http: Http, lab: Lab) -> None:
    """Gitea appends a user owner (never an organisation) after the writers, whatever their names' order."""
    answer = http.get(f"/repos/{lab.new_owner}/{lab.moved_repo}/assignees", lab.tokens["writer_repo"])
    assert answer.status == 200, answer.text
    assert [user["login"] for user in answer.body] == [lab.writer, lab.new_owner]


def test_unknown_user_filter_is_404_with_the_user_named(http: Http, lab: Lab) -> None:
    answer = http.get(lab.path("issues"), lab.tokens["writer"], created_by="nobody-here")
    assert answer.status == 404  # the message varies by release ("not found", "The target couldn't be found.")
    errors = answer.body.get("errors") or [] if isinstance(answer.body, dict) else []
    assert any("user does not exist" in str(e) and "nobody-here" in str(e) for e in errors), answer.text


def test_missing_repository_is_404_without_errors(http: Http, lab: Lab) -> None:
    answer = http.get(lab.path("issues", repo="nope"), lab.tokens["writer"], created_by=lab.writer)
    assert answer.status == 404
    errors = answer.body.get("errors") if isinstance(answer.body, dict) else None
    assert not any("user does not exist" in str(e) for e in errors or [])


def test_since_and_before_filter_on_the_updated_time(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer"]
    future = (datetime.now().astimezone() + timedelta(days=1)).isoformat(timespec="seconds")
    assert http.get(lab.path("issues"), token, since=future).body == []
    assert numbers(http.get(lab.path("issues"), token, before=future, state="all", limit=50))
    assert http.get(lab.path("issues"), token, since="yesterday").status == 422


def test_since_and_before_are_inclusive_whole_seconds(http: Http, lab: Lab) -> None:
    """What gitea_mcp's date rule relies on (domain/dates.py): the updated second itself matches both bounds."""
    token, number = lab.tokens["writer"], lab.issues["closed"]  # closed: nothing writes to it after seeding
    updated = datetime.fromisoformat(http.ok("GET", lab.path("issues", number), token)["updated_at"])

    def found(**bounds: datetime) -> bool:
        given = {key: value.isoformat() for key, value in bounds.items()}
        return number in numbers(http.get(lab.path("issues"), token, state="closed", limit=50, **given))

    second = timedelta(seconds=1)
    assert found(since=updated, before=updated)
    assert not found(before=updated - second) and not found(since=updated + second)


def test_times_carry_the_servers_zone(http: Http, lab: Lab, target: Target) -> None:
    issue = http.ok("GET", lab.path("issues", lab.issues["auth"]), lab.tokens["writer"])
    created = datetime.fromisoformat(issue["created_at"])
    offset = created.utcoffset()
    assert offset == timedelta(minutes=target.utc_offset_minutes), issue["created_at"]


def test_names_are_case_insensitive(http: Http, lab: Lab) -> None:
    path = f"/repos/{lab.org.upper()}/{lab.repo.upper()}/issues/{lab.issues['auth']}"
    assert http.ok("GET", path, lab.tokens["writer"])["number"] == lab.issues["auth"]


def test_a_renamed_repository_redirects(http: Http, lab: Lab, target: Target) -> None:
    answer = http.get(lab.path("issues", repo=lab.renamed_from), lab.tokens["writer"])
    v = target.version
    expected = 307 if v.gitea(high=(1, 23, 6)) or v.forgejo(high=(11,)) else 301
    assert answer.status == expected
    assert answer.headers["Location"].startswith(f"/api/v1/repos/{lab.org}/{lab.renamed_to}/issues")


def test_a_transferred_repository_redirects_and_gitea_tells_even_who_cannot_see_it(
    http: Http, lab: Lab, target: Target
) -> None:
    v = target.version
    expected = 307 if v.gitea(high=(1, 23, 6)) or v.forgejo(high=(11,)) else 301
    answer = http.get(lab.path("issues", repo=lab.moved_repo), lab.tokens["writer"], state="all")
    assert answer.status == expected, answer.text
    assert answer.headers["Location"] == f"/api/v1/repos/{lab.away}/{lab.moved_repo}/issues?state=all"
    # The poster cannot see the (private) repository: Gitea still names its new place, Forgejo answers 404.
    assert http.get(f"/repos/{lab.away}/{lab.moved_repo}/issues", lab.tokens["poster"]).status == 404
    unseen = http.get(lab.path("issues", repo=lab.moved_repo), lab.tokens["poster"], state="all")
    assert unseen.status == (404 if v.forgejo() else expected), unseen.text
    if v.gitea():
        assert unseen.headers["Location"] == answer.headers["Location"]


def test_a_renamed_owner_redirects_with_307_on_every_release(http: Http, lab: Lab) -> None:
    # The owner's old name is resolved before the repository: even the poster, who cannot see it, is redirected.
    for role in ("writer", "poster"):
        answer = http.get(f"/repos/{lab.old_owner}/{lab.moved_repo}/issues", lab.tokens[role], state="all")
        assert answer.status == 307, (role, answer.text)
        assert answer.headers["Location"] == f"/api/v1/repos/{lab.new_owner}/{lab.moved_repo}/issues?state=all"
    assert http.get(f"/repos/{lab.new_owner}/{lab.moved_repo}/issues", lab.tokens["poster"]).status == 404


# -- keyword search -----------------------------------------------------------------------------------------------


def keyword(http: Http, lab: Lab, q: str, **params: str) -> set[int]:
    return numbers(http.get(lab.path("issues"), lab.tokens["writer"], q=q, state="all", **params))


def keyword_mode(target: Target) -> str:
    if target.indexer == "db":
        return "substring"
    return "words" if target.version.forgejo(low=(11,)) else "phrase"


def test_a_whole_word_is_found_by_every_indexer(http: Http, lab: Lab) -> None:
    assert lab.issues["auth"] in keyword(http, lab, "Authentication")
    assert lab.issues["auth"] in keyword(http, lab, "authentication")


def test_part_of_a_word(http: Http, lab: Lab, target: Target) -> None:
    found = lab.issues["auth"] in keyword(http, lab, "Authentica")
    assert found == (keyword_mode(target) == "substring")


def test_words_out_of_order(http: Http, lab: Lab, target: Target) -> None:
    found = lab.issues["auth"] in keyword(http, lab, "reset Authentication")
    assert found == (keyword_mode(target) == "words")


def test_adjacent_words_in_order(http: Http, lab: Lab) -> None:
    assert lab.issues["auth"] in keyword(http, lab, "password reset")


def test_quoted_phrase(http: Http, lab: Lab, target: Target) -> None:
    # Forgejo reads "…" as an exact phrase, Gitea's bleve drops the quotes; the database search matches them.
    found = lab.issues["auth"] in keyword(http, lab, '"password reset"')
    assert found == (keyword_mode(target) != "substring")


def test_keyword_with_assignee(http: Http, lab: Lab, target: Target) -> None:
    found = keyword(http, lab, "Authentication", assigned_by=lab.assignee)
    broken = target.indexer != "db" and (target.version.gitea(high=(1, 25)) or target.version.forgejo(high=(14,)))
    assert (lab.issues["auth"] in found) == (not broken)


def numeric_keyword(target: Target) -> str:
    """How a keyword that is a number (Go's strconv.Atoi reads it) is matched: from Gitea 1.23 always by the database
    (parts of numbers too), whatever the indexer; before that, and on Forgejo, as any other keyword."""
    return "substring" if target.version.gitea(low=(1, 23)) else keyword_mode(target)


def test_numeric_keyword_matches_the_number(http: Http, lab: Lab, target: Target) -> None:
    found = lab.issues["auth"] in keyword(http, lab, str(lab.issues["auth"]))
    assert found == (target.version.gitea(low=(1, 23)) or target.version.forgejo(low=(12,)))


def test_numeric_keyword_matches_part_of_a_number(http: Http, lab: Lab, target: Target) -> None:
    # "21" inside "Build 90210": the database's LIKE finds it, a word index does not (too short to be fuzzy).
    found = lab.issues["build"] in keyword(http, lab, "21")
    assert found == (numeric_keyword(target) == "substring")


def test_numeric_keyword_whole_and_among_words(http: Http, lab: Lab, target: Target) -> None:
    assert lab.issues["build"] in keyword(http, lab, "90210")  # a whole number: every indexer
    # Not a number once words join it: the indexer's own rules again (Forgejo: any one word suffices).
    assert (lab.issues["build"] in keyword(http, lab, "21 fails")) == (keyword_mode(target) == "words")
    assert lab.issues["build"] in keyword(http, lab, "90210 fails")


# -- the cross-repository search -----------------------------------------------------------------------------------


def test_search_scoped_to_owner_with_repository(http: Http, lab: Lab) -> None:
    found = rows(http, lab, owner=lab.org, limit=50, state="all")
    assert found and all(row["repository"]["full_name"].lower().startswith(lab.org.lower() + "/") for row in found)


def test_search_unknown_owner_is_400(http: Http, lab: Lab) -> None:
    answer = http.get("/repos/issues/search", lab.tokens["writer"], owner="nobody-here")
    assert answer.status == 400
    assert "user does not exist [uid: 0, name: nobody-here]" in answer.message


def test_search_created_by(http: Http, lab: Lab, target: Target) -> None:
    found = rows(http, lab, owner=lab.org, created_by=lab.poster,
                   limit=50, type="issues", state="all")  # fmt: skip
    honoured = all(row["user"]["login"] == lab.poster for row in found)
    assert honoured == target.version.gitea(low=(1, 26))


def test_search_limit_zero(http: Http, lab: Lab, target: Target) -> None:
    found = rows(http, lab, owner=lab.org, limit=0, state="all")
    assert len(found) == (30 if target.version.gitea(low=(1, 26)) else 20)


def test_search_labels_are_any_of(http: Http, lab: Lab) -> None:
    found = rows(http, lab, owner=lab.org, labels="bug,ui",
                   state="all", limit=50)  # fmt: skip
    seeded = set(lab.issues.values())  # the tool probes of the same session file labelled issues too
    assert {row["number"] for row in found} & seeded == {lab.issues["auth"], lab.issues["export"], lab.issues["dark"]}


# -- one issue and its comments ---------------------------------------------------------------------------------


def test_issue_shape(http: Http, lab: Lab) -> None:
    issue = http.ok("GET", lab.path("issues", lab.issues["closed"]), lab.tokens["writer"])
    assert issue["labels"] == [] and issue["milestone"] is None and issue["pull_request"] is None
    assert issue["state"] == "closed" and issue["closed_at"]
    pull = http.ok("GET", lab.path("issues", lab.issues["pr"]), lab.tokens["writer"])
    assert pull["pull_request"] is not None and pull["pull_request"]["merged"] is False


def test_comments_have_a_total_and_no_paging(http: Http, lab: Lab) -> None:
    answer = http.get(lab.path("issues", lab.issues["auth"], "comments"), lab.tokens["writer"], limit=1)
    assert answer.status == 200 and len(answer.body) == 2 and answer.total == 2


def test_comments_of_a_missing_issue(http: Http, lab: Lab, target: Target) -> None:
    answer = http.get(lab.path("issues", 9999, "comments"), lab.tokens["writer"])
    assert answer.status == (404 if target.version.forgejo(low=(11,)) else 500)


def test_a_missing_issue_is_404(http: Http, lab: Lab) -> None:
    assert http.get(lab.path("issues", 9999), lab.tokens["writer"]).status == 404


# -- pull request reviews ----------------------------------------------------------------------------------------


def test_pull_reviews_need_read_repository(http: Http, lab: Lab) -> None:
    path = lab.path("pulls", lab.issues["pr"], "reviews")
    refused = http.get(path, lab.tokens["writer"])  # write:issue and read:user: the documented scopes
    assert refused.status == 403 and SCOPE_403 in refused.message and "read:repository" in refused.message
    [review] = [r for r in http.ok("GET", path, lab.tokens["writer_repo"]) if r["id"] == lab.reviews["changes"]]
    assert (review["state"], review["body"], review["user"]["login"]) == ("REQUEST_CHANGES", REVIEW_BODY, lab.assignee)
    assert review["comments_count"] == 1


def test_review_comments_carry_path_and_line(http: Http, lab: Lab) -> None:
    path = lab.path("pulls", lab.issues["pr"], "reviews", lab.reviews["changes"], "comments")
    assert http.get(path, lab.tokens["writer"]).status == 403
    [inline] = http.ok("GET", path, lab.tokens["writer_repo"])
    shown = (inline["path"], inline["position"], inline["body"], inline["user"]["login"])
    assert shown == (INLINE[0], INLINE[1], INLINE[2], lab.assignee)
    assert inline["original_position"] == 0 and inline["pull_request_review_id"] == lab.reviews["changes"]
    assert inline["resolver"] is None


def test_reviews_of_an_issue_or_a_missing_number_are_404(http: Http, lab: Lab) -> None:
    """And 403 first to a token without read:repository: issue_get asks for them ahead and drops either answer."""
    for number in (lab.issues["auth"], 9999):
        answer = http.get(lab.path("pulls", number, "reviews"), lab.tokens["writer_repo"])
        assert answer.status == 404 and answer.message, number
        refused = http.get(lab.path("pulls", number, "reviews"), lab.tokens["writer"])
        assert refused.status == 403 and "read:repository" in refused.message, number


def test_a_pull_requests_comments_leave_out_its_reviews(http: Http, lab: Lab) -> None:
    comments = http.ok("GET", lab.path("issues", lab.issues["pr"], "comments"), lab.tokens["writer"])
    assert not [c for c in comments if c["body"] in (REVIEW_BODY, INLINE[2])]
    assert http.ok("GET", lab.path("issues", lab.issues["pr"]), lab.tokens["writer"])["comments"] == len(comments)


# Every field of a timeline entry, each sent whatever the event (null, "" or 0 where it has none).
TIMELINE_FIELDS = {
    "id", "type", "html_url", "pull_request_url", "issue_url", "user", "body", "created_at", "updated_at",
    "old_project_id", "project_id", "old_milestone", "milestone", "tracked_time", "old_title", "new_title", "old_ref",
    "new_ref", "ref_issue", "ref_comment", "ref_action", "ref_commit_sha", "review_id", "label", "assignee",
    "assignee_team", "removed_assignee", "resolve_doer", "dependent_issue",
}  # fmt: skip


def timeline(http: Http, lab: Lab, number: int, repo: str | None = None, **params: object) -> Answer:
    answer = http.get(lab.path("issues", number, "timeline", repo=repo), lab.tokens["writer"], **params)
    assert answer.status == 200, answer.text
    return answer


def test_the_timeline_carries_each_review_to_an_issue_scoped_token(http: Http, lab: Lab) -> None:
    """With write:issue and read:user, which the review route refuses: each submitted review is a `review` entry
    (author, time, text, review_id; no state), a dismissal a `dismiss_review` entry naming the review, and the
    entry's html_url is the one the review route gives the review. Inline comments (`code`) are never listed."""
    entries = timeline(http, lab, lab.issues["pr"]).body
    by_type = {kind: [e for e in entries if e["type"] == kind] for kind in ("review", "dismiss_review")}
    assert [e["review_id"] for e in by_type["review"]] == [lab.reviews["changes"], lab.reviews["dismissed"]]
    changes, approval = by_type["review"]
    assert (changes["user"]["login"], changes["body"], approval["user"]["login"], approval["body"]) == (
        lab.assignee, REVIEW_BODY, lab.assignee, ""
    )  # fmt: skip
    assert set(changes) == TIMELINE_FIELDS and changes["assignee"] is None and changes["pull_request_url"]
    [dismissal] = by_type["dismiss_review"]
    assert (dismissal["review_id"], dismissal["body"]) == (lab.reviews["dismissed"], DISMISSAL)
    assert all(e["type"] != "code" and e["body"] != INLINE[2] for e in entries)
    given = http.ok("GET", lab.path("pulls", lab.issues["pr"], "reviews"), lab.tokens["writer_repo"])
    anchors = {r["id"]: r["html_url"] for r in given}
    assert [anchors[e["review_id"]] for e in by_type["review"]] == [e["html_url"] for e in by_type["review"]]


def test_a_reviewers_new_verdict_dismisses_their_earlier_one_without_a_timeline_entry(http: Http, lab: Lab) -> None:
    """The lab's reviewer asked for changes, then approved (dismissed by an admin since): the approval dismissed the
    request for changes, silently. So the timeline tells a dismissal only where someone dismissed a review."""
    given = http.ok("GET", lab.path("pulls", lab.issues["pr"], "reviews"), lab.tokens["writer_repo"])
    dismissed = {r["id"]: r["dismissed"] for r in given if r["id"] in lab.reviews.values()}
    assert dismissed == {lab.reviews["changes"]: True, lab.reviews["dismissed"]: True}
    entries = timeline(http, lab, lab.issues["pr"]).body
    assert [e["review_id"] for e in entries if e["type"] == "dismiss_review"] == [lab.reviews["dismissed"]]


def test_the_timeline_is_whole_without_page_and_each_page_counts_what_it_holds(http: Http, lab: Lab) -> None:
    """`page` cuts the issue's rows before the inline comments are left out: the page of the lab's one inline
    comment is empty (`null`). X-Total-Count is the page's own count; no Link header."""
    whole = timeline(http, lab, lab.issues["pr"])
    assert whole.total == len(whole.body) and "Link" not in whole.headers
    pages = [timeline(http, lab, lab.issues["pr"], page=n, limit=1) for n in range(1, len(whole.body) + 3)]
    assert [(p.body, p.total) for p in pages[-1:]] == [(None, 0)], "past the end"
    assert [p.total for p in pages[:-1]].count(0) == 1 and all(p.total == len(p.body or []) for p in pages)
    assert [e["id"] for p in pages for e in p.body or []] == [e["id"] for e in whole.body]


def test_an_issue_without_events_has_a_null_timeline(http: Http, lab: Lab) -> None:
    answer = timeline(http, lab, lab.issues["bare"], repo=lab.names_repo)
    assert (answer.body, answer.total) == (None, 0)


def test_the_timeline_of_a_missing_issue(http: Http, lab: Lab, target: Target) -> None:
    """As its comments: Gitea's handler takes the failed lookup for an internal error."""
    answer = http.get(lab.path("issues", 9999, "timeline"), lab.tokens["writer"])
    assert answer.status == (404 if target.version.forgejo(low=(11,)) else 500)


def test_the_timeline_filters_on_the_updated_time(http: Http, lab: Lab) -> None:
    whole = timeline(http, lab, lab.issues["pr"]).body
    assert timeline(http, lab, lab.issues["pr"], since="2000-01-01T00:00:00Z").body == whole
    assert timeline(http, lab, lab.issues["pr"], before="2000-01-01T00:00:00Z").body is None
    later = (datetime.now().astimezone() + timedelta(days=1)).isoformat(timespec="seconds")
    assert timeline(http, lab, lab.issues["pr"], since=later).body is None
    refused = http.get(lab.path("issues", lab.issues["pr"], "timeline"), lab.tokens["writer"], since="yesterday")
    assert refused.status == 422


# -- writes -----------------------------------------------------------------------------------------------------


def create(http: Http, lab: Lab, role: str, **fields: object) -> Answer:
    return http.call("POST", lab.path("issues"), lab.tokens[role], json={"title": "Probe", **fields})


def test_create_answers_201(http: Http, lab: Lab) -> None:
    answer = create(http, lab, "writer", labels=[lab.labels["bug"]], milestone=lab.milestones["v1"],
                    assignees=[lab.assignee])  # fmt: skip
    assert answer.status == 201
    assert [x["name"] for x in answer.body["labels"]] == ["bug"]
    assert answer.body["milestone"]["title"] == "v1" and answer.body["assignees"][0]["login"] == lab.assignee


def test_text_is_kept_exactly_but_create_trims_the_titles_ends(http: Http, lab: Lab) -> None:
    """Runs of spaces, tabs, invisible characters stay in titles and bodies; only creating trims a title's ends."""
    title, body = " Double  spaced\ttitle\u200b ", "a  b\n\u200b "
    created = create(http, lab, "writer", title=title, body=body)
    assert created.status == 201
    assert (created.body["title"], created.body["body"]) == ("Double  spaced\ttitle\u200b", body)
    edited = http.call("PATCH", lab.path("issues", created.body["number"]), lab.tokens["writer"], json={"title": title})
    assert edited.status == 201 and edited.body["title"] == title


def test_create_silently_drops_unknown_label_and_milestone_ids(http: Http, lab: Lab) -> None:
    answer = create(http, lab, "writer", labels=[999999], milestone=999999)
    assert answer.status == 201 and answer.body["labels"] == [] and answer.body["milestone"] is None


def test_create_with_an_unknown_assignee_is_refused(http: Http, lab: Lab) -> None:
    answer = create(http, lab, "writer", assignees=["nobody-here"])
    assert answer.status == 422


def test_create_by_a_non_writer_drops_labels_milestone_assignees_due_date(http: Http, lab: Lab) -> None:
    answer = create(http, lab, "poster", labels=[lab.labels["bug"]], milestone=lab.milestones["v1"],
                    assignees=[lab.assignee], due_date="2026-03-01T00:00:00Z")  # fmt: skip
    assert answer.status == 201
    body = answer.body
    assert body["labels"] == [] and body["milestone"] is None and not body["assignees"] and body["due_date"] is None


def test_create_with_two_labels_of_one_exclusive_scope_keeps_both(http: Http, lab: Lab) -> None:
    answer = create(http, lab, "writer", labels=[lab.labels["priority/high"], lab.labels["priority/low"]])
    assert answer.status == 201
    assert sorted(x["name"] for x in answer.body["labels"]) == ["priority/high", "priority/low"]


def test_due_date_is_kept_as_the_instant_given(http: Http, lab: Lab) -> None:
    answer = create(http, lab, "writer", due_date="2026-03-01T00:00:00Z")
    assert answer.status == 201
    due = datetime.fromisoformat(answer.body["due_date"])
    assert due == datetime.fromisoformat("2026-03-01T00:00:00+00:00"), answer.body["due_date"]


def test_edit_answers_201_with_the_issue(http: Http, lab: Lab) -> None:
    number = create(http, lab, "writer").body["number"]
    answer = http.call("PATCH", lab.path("issues", number), lab.tokens["writer"], json={"title": "Edited"})
    assert answer.status == 201 and answer.body["title"] == "Edited"


def test_a_poster_who_cannot_write_edits_only_title_body_state(http: Http, lab: Lab) -> None:
    number = create(http, lab, "poster").body["number"]
    answer = http.call("PATCH", lab.path("issues", number), lab.tokens["poster"], json={
        "title": "Poster edit", "assignees": [lab.assignee], "milestone": lab.milestones["v1"],
        "due_date": "2026-03-01T00:00:00Z",
    })  # fmt: skip
    assert answer.status == 201
    body = answer.body
    assert body["title"] == "Poster edit"
    assert not body["assignees"] and body["milestone"] is None and body["due_date"] is None


def test_edit_with_an_unknown_assignee_fails_after_saving_the_title(http: Http, lab: Lab) -> None:
    number = create(http, lab, "writer").body["number"]
    answer = http.call("PATCH", lab.path("issues", number), lab.tokens["writer"],
                       json={"title": "Saved anyway", "assignees": ["nobody-here"]})  # fmt: skip
    assert answer.status == 500
    assert http.ok("GET", lab.path("issues", number), lab.tokens["writer"])["title"] == "Saved anyway"


def test_closing_with_an_open_blocker_is_412_after_saving_the_title(http: Http, lab: Lab, target: Target) -> None:
    blocked, blocker = (create(http, lab, "writer").body["number"] for _ in range(2))
    link = {"owner": lab.org, "repo": lab.repo, "index": blocker}
    added = http.call("POST", lab.path("issues", blocked, "dependencies"), lab.tokens["writer"], json=link)
    assert added.status == 201 and added.body["number"] == blocked
    answer = http.call("PATCH", lab.path("issues", blocked), lab.tokens["writer"],
                       json={"title": "Saved before the refusal", "state": "closed"})  # fmt: skip
    what = "this issue" if target.version.forgejo() else "this issue or pull request"
    assert (answer.status, answer.message) == (412, f"cannot close {what} because it still has open dependencies")
    now = http.ok("GET", lab.path("issues", blocked), lab.tokens["writer"])
    assert (now["title"], now["state"]) == ("Saved before the refusal", "open")


def test_dependencies_are_listed_from_both_sides_and_a_duplicate_or_two_issue_cycle_is_a_blank_500(
    http: Http, lab: Lab
) -> None:
    """POST and DELETE answer 201 with the blocked issue; a duplicate, or the reverse of one (a cycle of two), is a
    500 with an empty message; a longer cycle is accepted; deleting one that is not there is a 500, blank too (to
    all but site admins, who read `issue dependency does not exist [issue id: …, dependency id: …]`)."""
    a, b, c = (create(http, lab, "writer").body["number"] for _ in range(3))
    token = lab.tokens["writer"]

    def link(index: int) -> dict[str, Any]:
        return {"owner": lab.org, "repo": lab.repo, "index": index}

    def numbers(*path: object) -> list[tuple[int, str]]:
        return [(i["number"], i["repository"]["full_name"]) for i in http.ok("GET", lab.path("issues", *path), token)]

    added = http.call("POST", lab.path("issues", a, "dependencies"), token, json=link(b))
    assert (added.status, added.body["number"]) == (201, a)
    here = f"{lab.org}/{lab.repo}"
    assert numbers(a, "dependencies") == [(b, here)] and numbers(b, "blocks") == [(a, here)]
    for blocked, blocker in ((a, b), (b, a)):
        again = http.call("POST", lab.path("issues", blocked, "dependencies"), token, json=link(blocker))
        assert (again.status, again.message) == (500, ""), (blocked, blocker)
    for blocked, blocker in ((b, c), (c, a)):  # a <- b <- c <- a: three issues, accepted
        assert http.call("POST", lab.path("issues", blocked, "dependencies"), token, json=link(blocker)).status == 201
    removed = http.call("DELETE", lab.path("issues", a, "dependencies"), token, json=link(b))
    assert (removed.status, removed.body["number"]) == (201, a) and numbers(a, "dependencies") == []
    gone = http.call("DELETE", lab.path("issues", a, "dependencies"), token, json=link(b))
    assert (gone.status, gone.message) == (500, ""), gone.text


def test_where_dependencies_are_off_they_answer_404_and_blocks_none(http: Http, lab: Lab) -> None:
    """Like a missing issue for GET, POST and DELETE of .../dependencies; `.../blocks` answers an empty list."""
    repo, token = lab.no_dependencies_repo, lab.tokens["writer"]
    number, other = lab.issues["nodeps"], lab.issues["nodeps-other"]
    link = {"owner": lab.org, "repo": repo, "index": other}
    for method in ("GET", "POST", "DELETE"):
        body = None if method == "GET" else link
        answer = http.call(method, lab.path("issues", number, "dependencies", repo=repo), token, json=body)
        assert answer.status == 404, (method, answer.text)
    blocks = http.call("GET", lab.path("issues", number, "blocks", repo=repo), token)
    assert (blocks.status, blocks.body) == (200, [])
    assert http.call("GET", lab.path("issues", 99999, "blocks", repo=repo), token).status == 404


# (title sent, kept by Gitea from 1.24: by display width, kept by older Gitea and Forgejo: at 252 bytes).
LONG_TITLES = [
    ("a" * 300, "a" * 252 + "…", "a" * 252 + "…"),
    ("漢" * 130, "漢" * 126 + "…", "漢" * 84 + "…"),
    ("é" * 200, "é" * 200, "é" * 126 + "…"),  # 400 bytes: whole by width (each counts 1)
    ("a" * 254 + "é", "a" * 254 + "é", "a" * 252 + "…"),  # a rest of up to three characters that fits stays
]


def test_a_long_title_is_cut_on_create_and_on_edit(http: Http, lab: Lab, target: Target) -> None:
    by_width = target.version.gitea(low=(1, 24))
    for sent, *kept in LONG_TITLES:
        created = create(http, lab, "writer", title=sent)
        assert created.status == 201 and created.body["title"] == kept[not by_width], created.body["title"]
    number = create(http, lab, "writer").body["number"]
    for sent, *kept in LONG_TITLES[:2]:
        edited = http.call("PATCH", lab.path("issues", number), lab.tokens["writer"], json={"title": sent})
        assert edited.status == 201 and edited.body["title"] == kept[not by_width], edited.body["title"]


def label_names(answer: Answer) -> list[str]:
    assert answer.status in (200, 201), answer.text
    return sorted(x["name"] for x in answer.body)


def test_replacing_labels_keeps_one_per_exclusive_scope(http: Http, lab: Lab) -> None:
    number = create(http, lab, "writer").body["number"]
    ids = [lab.labels["priority/high"], lab.labels["priority/low"], lab.labels["bug"]]
    answer = http.call("PUT", lab.path("issues", number, "labels"), lab.tokens["writer"], json={"labels": ids})
    assert label_names(answer) == ["bug", "priority/low"]


def test_adding_a_label_replaces_the_old_label_of_its_scope(http: Http, lab: Lab) -> None:
    number = create(http, lab, "writer", labels=[lab.labels["priority/low"], lab.labels["bug"]]).body["number"]
    answer = http.call("POST", lab.path("issues", number, "labels"), lab.tokens["writer"],
                       json={"labels": [lab.labels["priority/high"]]})  # fmt: skip
    assert label_names(answer) == ["bug", "priority/high"]


def test_labels_may_be_added_by_name(http: Http, lab: Lab, target: Target) -> None:
    """Unknown names are dropped; organisation labels are found by name from Gitea 1.23 (and every Forgejo)."""
    number = create(http, lab, "writer").body["number"]
    answer = http.call("POST", lab.path("issues", number, "labels"), lab.tokens["writer"],
                       json={"labels": ["triage", "ui", "no-such-label"]})  # fmt: skip
    with_org = not target.version.gitea(high=(1, 22))
    assert label_names(answer) == (["triage", "ui"] if with_org else ["ui"])


def test_organisation_labels_are_taken_by_id(http: Http, lab: Lab) -> None:
    """On every release: an organisation label's id is kept on create and added by `POST …/labels`."""
    answer = create(http, lab, "writer", labels=[lab.labels["triage"], lab.labels["bug"]])
    assert sorted(x["name"] for x in answer.body["labels"]) == ["bug", "triage"]
    number = create(http, lab, "writer").body["number"]
    added = http.call("POST", lab.path("issues", number, "labels"), lab.tokens["writer"],
                      json={"labels": [lab.labels["triage"]]})  # fmt: skip
    assert label_names(added) == ["triage"]


def test_removing_one_label(http: Http, lab: Lab) -> None:
    number = create(http, lab, "writer", labels=[lab.labels["bug"], lab.labels["ui"]]).body["number"]
    answer = http.call("DELETE", lab.path("issues", number, "labels", lab.labels["bug"]), lab.tokens["writer"])
    assert answer.status == 204
    assert label_names(http.get(lab.path("issues", number, "labels"), lab.tokens["writer"])) == ["ui"]


def test_comment_answers_201(http: Http, lab: Lab) -> None:
    answer = http.call("POST", lab.path("issues", lab.issues["export"], "comments"), lab.tokens["writer"],
                       json={"body": "A probe comment"})  # fmt: skip
    assert answer.status == 201 and answer.body["body"] == "A probe comment"
    assert answer.body["user"]["login"] == lab.writer


def test_comments_on_a_locked_issue(http: Http, lab: Lab, target: Target) -> None:
    assert lab.has_lock == target.version.gitea(low=(1, 24))
    if not lab.has_lock:
        return  # no lock API on this release: nothing can lock an issue through the API
    path = lab.path("issues", lab.issues["locked"], "comments")
    refused = http.call("POST", path, lab.tokens["poster"], json={"body": "x"})
    assert (refused.status, refused.message) == (403, "You cannot comment on a locked issue."), refused.text
    assert http.call("POST", path, lab.tokens["writer"], json={"body": "x"}).status == 201


def test_writes_to_a_missing_issue_are_404(http: Http, lab: Lab) -> None:
    token = lab.tokens["writer"]
    assert http.call("PATCH", lab.path("issues", 9999), token, json={"title": "x"}).status == 404


def test_commenting_on_a_missing_issue(http: Http, lab: Lab, target: Target) -> None:
    answer = http.call("POST", lab.path("issues", 9999, "comments"), lab.tokens["writer"], json={"body": "x"})
    assert answer.status == (404 if target.version.forgejo(low=(11,)) else 500)


def test_version_reports_the_release(http: Http, target: Target) -> None:
    raw = http.ok("GET", "/version", None)["version"]
    assert raw == target.version.raw
    assert ("+gitea-" in raw) == (target.version.flavor == "forgejo")


# -- users by id: what a pasted list link's poster=/assignee= needs ----------------------------------------------


def test_users_search_finds_one_user_by_id(http: Http, lab: Lab) -> None:
    """`GET /users/search?uid=N` (read:user) wraps its list as {"ok": true, "data": [...]}; an unknown id is empty."""
    writer = http.ok("GET", f"/users/{lab.writer}", lab.tokens["writer"])
    found = http.get("/users/search", lab.tokens["writer"], uid=writer["id"], limit=1)
    assert found.status == 200 and found.body["ok"] is True
    assert [user["login"] for user in found.body["data"]] == [lab.writer]
    assert found.total == 1
    nobody = http.get("/users/search", lab.tokens["writer"], uid=2_000_000_000)
    assert nobody.status == 200 and nobody.body["data"] == []
    assert http.get("/users/search", lab.tokens["writer_issue_only"], uid=writer["id"]).status == 403


# -- what answers when no API route matches: not Gitea's JSON error ----------------------------------------------


def test_no_route_is_a_plain_text_404_and_a_wrong_method_a_bare_405(http: Http, lab: Lab) -> None:
    """A 404 without Gitea's JSON body means "no such endpoint" (or no Gitea at all), never "no such repository"."""
    missing = http.get("/no/such/route", lab.tokens["writer"])
    assert (missing.status, missing.text, missing.body) == (404, "404 page not found\n", None)
    wrong = http.call("DELETE", "/version", lab.tokens["writer"])
    assert (wrong.status, wrong.text) == (405, "")
