"""Every tool end to end on the server under contract, with a token of exactly the documented scopes
(write:issue and read:user): what an agent reads must be true on each release."""

from __future__ import annotations

import shlex
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp_types import CallToolResult, TextContent
from pydantic import SecretStr

from gitea_mcp.cli.check import run_checks
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import render
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.tools import (
    assignee_list,
    issue_comment,
    issue_create,
    issue_get,
    issue_list,
    issue_search,
    issue_update,
    label_list,
    milestone_list,
)
from gitea_mcp.tools.issue_comment import CommentArgs
from gitea_mcp.tools.issue_create import CreateArgs
from gitea_mcp.tools.issue_get import GetArgs
from gitea_mcp.tools.issue_list import ListArgs
from gitea_mcp.tools.issue_search import SearchArgs
from gitea_mcp.tools.issue_update import UpdateArgs
from gitea_mcp.tools.label_list import LabelArgs
from tests.contract.conftest import deps_for
from tests.contract.lab import (
    DISMISSAL,
    DONE_DUE,
    INLINE,
    MANY_CLOSED,
    MANY_LABELS,
    REVIEW_BODY,
    SCOPED_ORG_LABELS,
    SCOPED_REPO_LABELS,
    Lab,
)
from tests.contract.target import Http, Target
from tests.support import tool_cases
from tests.support.results import rows_of


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def ok(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return text_of(result), result.structured_content


def failed(result: CallToolResult) -> str:
    assert result.is_error, text_of(result)
    return text_of(result)


# -- reading ----------------------------------------------------------------------------------------------------


def test_list_counts_issues_without_pull_requests(target: Target, lab: Lab) -> None:
    _, data = ok(
        issue_list.run(deps_for(target, lab), ListArgs(owner=lab.org, name=lab.repo, labels=["bug"], state="all"))
    )
    numbers = {row["number"] for row in rows_of(data)}
    assert {lab.issues["auth"], lab.issues["export"]} <= numbers and lab.issues["pr"] not in numbers
    assert data["total"] == len(rows_of(data))


def test_list_with_an_unknown_user_names_the_user(target: Target, lab: Lab) -> None:
    result = issue_list.run(deps_for(target, lab), ListArgs(owner=lab.org, name=lab.repo, assigned_by="nobody-here"))
    assert failed(result) == "assigned_by='nobody-here': no Gitea user by that name; check the username."


def test_list_of_a_missing_repository(target: Target, lab: Lab) -> None:
    result = issue_list.run(deps_for(target, lab), ListArgs(owner=lab.org, name="nope", created_by=lab.writer))
    assert failed(result).startswith(f"repository {lab.org}/nope not found")


def test_catalogue_is_read_whole_whatever_the_page_size(target: Target, lab: Lab) -> None:
    """A label on the last catalogue page is known: pages follow the server's MAX_RESPONSE_ITEMS."""
    result = issue_list.run(deps_for(target, lab), ListArgs(owner=lab.org, name=lab.many_repo, labels=["l44"]))
    _, data = ok(result)
    assert data["total"] == 0


def listed(target: Target, lab: Lab, deps: Deps | None = None, **args: Any) -> tuple[str, set[int]]:
    text, data = ok(issue_list.run(deps or deps_for(target, lab), ListArgs(owner=lab.org, name=lab.names_repo, **args)))
    return text, {row["number"] for row in rows_of(data)}


def test_list_by_names_with_commas(target: Target, lab: Lab) -> None:
    """Gitea would split them ("help" and " wanted"): the label is filtered here, the milestone sent by id. Each
    answer is the whole of what matches."""
    assert listed(target, lab, labels=["help, wanted"], state="all")[1] == {lab.issues["comma"]}
    assert listed(target, lab, milestones=["v3, final"], state="all")[1] == {lab.issues["comma"]}
    assert listed(target, lab, labels="help", milestones="v3", state="all")[1] == {lab.issues["help"]}


def test_a_next_page_hint_reads_back_to_the_same_filter(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    first, page_1 = listed(target, lab, deps, milestones=["v3, final", "v3"], state="all", limit=1)
    hint = next(line for line in first.splitlines() if "next page: issue_list " in line).split("issue_list ", 1)[1]
    args: dict[str, Any] = dict(part.split("=", 1) for part in shlex.split(hint))
    _, page_2 = listed(target, lab, deps, **{k: int(v) if k in ("page", "limit") else v for k, v in args.items()
                                              if k not in ("owner", "name")})  # fmt: skip
    assert page_1 | page_2 == {lab.issues["comma"], lab.issues["help"]} and not page_1 & page_2


def test_list_by_an_organisation_label(target: Target, lab: Lab) -> None:
    """Gitea's list would drop `triage` and list everything; it is seen on issues and filtered here."""
    assert listed(target, lab, labels="triage", state="all")[1] == {lab.issues["comma"], lab.issues["triaged"]}
    assert listed(target, lab, labels=["triage", "help, wanted"], state="all")[1] == {lab.issues["comma"]}


def test_a_renamed_or_new_label_never_widens_the_filter(target: Target, lab: Lab, http: Http) -> None:
    deps = deps_for(target, lab)  # one catalogue cache for every call
    assert listed(target, lab, deps, labels="stale", state="all")[1] == {lab.issues["help"]}
    renamed = f"renamed-{lab.run}"
    if target.standin is not None:
        label = target.standin.store.label(lab.labels["stale"])
        assert label is not None
        label.name = renamed
    else:
        path = lab.path("labels", lab.labels["stale"], repo=lab.names_repo)
        http.ok("PATCH", path, target.admin_token, json={"name": renamed})
    refused = failed(issue_list.run(deps, ListArgs(owner=lab.org, name=lab.names_repo, labels=["stale"], state="all")))
    assert refused.startswith(f"label 'stale' does not exist in {lab.org}/{lab.names_repo}") and renamed in refused
    assert listed(target, lab, deps, labels=renamed, state="all")[1] == {lab.issues["help"]}


def test_milestone_list_shows_the_open_ones_by_default(target: Target, lab: Lab) -> None:
    text, data = ok(milestone_list.TOOL.call(deps_for(target, lab), {"owner": lab.org, "name": lab.repo}))
    assert [m["title"] for m in data["milestones"]] == ["v1", "v2"] and data["total"] == 2
    web = f"{target.url.rstrip('/')}/{lab.org}/{lab.repo}/milestone/"
    assert all(m["html_url"] == f"{web}{m['id']}" and m["due_on"] is None for m in data["milestones"])
    assert f"help: web URL: {web}<id>" in text


def test_milestone_list_of_every_state_shows_due_day_counts_and_pages(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    text, data = ok(milestone_list.TOOL.call(deps, {"owner": lab.org, "name": lab.repo, "state": "all", "limit": 1}))
    first = data["milestones"][0]["title"]
    assert data["total"] == 3 and data["has_more"] and first == ("v1" if target.version.gitea((1, 23)) else "done")
    hint = next(line for line in text.splitlines() if "next page: milestone_list " in line).split("_list ", 1)[1]
    args = {k: int(v) if k in ("page", "limit") else v for k, v in (part.split("=", 1) for part in shlex.split(hint))}
    _, rest = ok(milestone_list.TOOL.call(deps, args))
    assert args["page"] == 2 and rest["milestones"] and data["milestones"][0] not in rest["milestones"]
    _, closed = ok(milestone_list.TOOL.call(deps, {"owner": lab.org, "name": lab.repo, "state": "closed"}))
    [done] = closed["milestones"]
    assert (done["title"], done["state"], done["due_on"]) == ("done", "closed", DONE_DUE.date().isoformat())
    _, many = ok(milestone_list.TOOL.call(deps, {"owner": lab.org, "name": lab.many_repo}))
    [archive] = many["milestones"]
    assert (archive["open_issues"], archive["closed_issues"]) == (0, MANY_CLOSED)


def test_milestone_list_of_a_missing_repository(target: Target, lab: Lab) -> None:
    result = milestone_list.TOOL.call(deps_for(target, lab), {"owner": lab.org, "name": "nope"})
    assert (
        failed(result) == f"repository {lab.org}/nope not found, or this token cannot see it; check the owner and name."
    )


def test_assignee_list_names_the_writers_with_read_repository(target: Target, lab: Lab) -> None:
    _, data = ok(assignee_list.TOOL.call(deps_for(target, lab, "writer_repo"), {"owner": lab.org, "name": lab.repo}))
    logins = [row["login"] for row in data["assignees"]]
    assert {lab.writer, lab.assignee} <= set(logins) and not {lab.poster, lab.outsider} & set(logins)
    assert logins == sorted(logins, key=str.lower) and data["total"] == len(logins)
    args = {"owner": lab.new_owner, "name": lab.moved_repo}
    deps = Deps(deps_for(target, lab, "writer_repo").client, Policy(frozenset({lab.new_owner})))
    text, data = ok(assignee_list.TOOL.call(deps, args))
    assert [row["login"] for row in data["assignees"]] == [lab.new_owner, lab.writer]  # the owner, by login
    assert text.startswith(f"{lab.new_owner}/{lab.moved_repo}: 2 users can be assigned: @{lab.new_owner}")


def test_assignee_list_with_the_documented_scopes_says_what_the_token_lacks(target: Target, lab: Lab) -> None:
    said = failed(assignee_list.TOOL.call(deps_for(target, lab), {"owner": lab.org, "name": lab.repo}))
    # Gitea from 1.23 names the token's scopes, Forgejo does not: the sentence differs, the scope named does not.
    assert said.startswith("The token lacks read:repository") and "assignee_list needs" in said, said


def test_assignee_list_of_a_missing_repository(target: Target, lab: Lab) -> None:
    result = assignee_list.TOOL.call(deps_for(target, lab, "writer_repo"), {"owner": lab.org, "name": "nope"})
    assert (
        failed(result) == f"repository {lab.org}/nope not found, or this token cannot see it; check the owner and name."
    )


def labels_of(target: Target, lab: Lab, role: str, **args: Any) -> tuple[str, dict[str, Any]]:
    """label_list on the lab's organisation of scoped labels (`owner`, `name` by default), with this role's token."""
    deps = Deps(deps_for(target, lab, role).client, Policy(frozenset({lab.org.lower(), lab.scoped.lower()})))
    return ok(label_list.run(deps, LabelArgs(**{"owner": lab.scoped, "name": lab.scoped_repo, **args})))


def test_label_list_groups_by_scope_and_names_the_organisation_s(target: Target, lab: Lab) -> None:
    """With read:organization: the repository's labels and the organisation's, scoped ones grouped, archived marked."""
    text, data = labels_of(target, lab, "writer_org")
    got = {(row["name"], row["exclusive"], row["archived"], row["org"], row["scope"]) for row in data["labels"]}
    sources = ((False, SCOPED_REPO_LABELS), (True, SCOPED_ORG_LABELS))
    want = {(name, x, archived, org, name.rsplit("/", 1)[0] if x else None) for org, rows in sources
            for name, x, archived in rows}  # fmt: skip
    assert got == want and data["total"] == len(want) and data["org_listed"] is True
    lines = text.splitlines()
    assert lines[0] == f"{lab.scoped}/{lab.scoped_repo} labels: 7 (3 of the organisation {lab.scoped})"
    assert lines.index("scope area:") < lines.index("  area/api #ee0701 [org]") < lines.index("scope priority:")
    assert "legacy #ee0701 [archived]" in lines and "retired #ee0701 [org,archived]" in lines
    assert lines[lines.index("scope priority:") + 1 :][:2] == ["  priority/high #ee0701", "  priority/low #ee0701"]


def test_label_list_without_read_organization_says_so(target: Target, lab: Lab) -> None:
    """The documented scopes cannot list the organisation's labels: the repository's are listed, one line says so."""
    text, data = labels_of(target, lab, "writer")
    assert {row["name"] for row in data["labels"]} == {name for name, _, _ in SCOPED_REPO_LABELS}
    assert data["org_listed"] is False and not any(row["org"] for row in data["labels"])
    assert text.splitlines()[1] == (
        f"note: labels of the organisation {lab.scoped}, if it is one, are not listed: the token lacks "
        "read:organization."
    )


def test_label_list_reads_every_page(target: Target, lab: Lab) -> None:
    """More labels than a page of the server's MAX_RESPONSE_ITEMS: all of them, each page asked for by number."""
    _, data = labels_of(target, lab, "writer", owner=lab.org, name=lab.many_repo)
    assert data["total"] == MANY_LABELS  # the documented scopes: the organisation's are not listed
    assert [row["name"] for row in data["labels"]] == [f"l{n:02d}" for n in range(MANY_LABELS)]


def test_label_list_of_a_missing_repository(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    assert failed(label_list.run(deps, LabelArgs(owner=lab.org, name="nope"))).startswith(
        f"repository {lab.org}/nope not found"
    )


def test_get_reads_issue_and_comments_in_utc(target: Target, lab: Lab) -> None:
    text, data = ok(
        issue_get.run(deps_for(target, lab), GetArgs(owner=lab.org, name=lab.repo, number=lab.issues["auth"]))
    )
    assert data["comments_total"] == 2 and data["milestone"] == "v1" and data["assignees"] == [lab.assignee]
    assert data["created_at"].endswith("Z") and all(c["created_at"].endswith("Z") for c in data["comments"])
    assert f"author @{lab.writer}" in text


def test_get_tells_a_missing_issue_from_a_missing_repository(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    issue_gone = failed(issue_get.run(deps, GetArgs(owner=lab.org, name=lab.repo, number=9999)))
    assert issue_gone == f"{lab.org}/{lab.repo} has no issue or pull request #9999; find numbers with issue_list."
    repo_gone = failed(issue_get.run(deps, GetArgs(owner=lab.org, name="nope", number=1)))
    assert repo_gone.startswith(f"repository {lab.org}/nope not found")


def test_search_finds_a_whole_word(target: Target, lab: Lab) -> None:
    args = SearchArgs(query="Authentication", owner=lab.org, name=lab.repo)
    text, data = ok(issue_search.run(deps_for(target, lab), args))
    assert [hit["number"] for hit in rows_of(data)] == [lab.issues["auth"]]
    assert "note: keywords on " in text


@pytest.mark.parametrize("number", ["21", "90210"])
def test_search_describes_a_numeric_keyword_as_the_server_matches_it(target: Target, lab: Lab, number: str) -> None:
    """The note's promise, checked against the answer: "containing N" (the database's substring) finds 90210 for 21;
    a word index finds it only for the whole number."""
    args = SearchArgs(query=number, owner=lab.org, name=lab.repo)
    text, data = ok(issue_search.run(deps_for(target, lab), args))
    substring = f"containing {number}, inside longer numbers and words too" in text
    assert substring == target.version.gitea(low=(1, 23))
    found = lab.issues["build"] in [hit["number"] for hit in rows_of(data)]
    assert found == (substring or number == "90210" or target.indexer == "db")


def test_before_and_updated_lt_mean_the_same_on_every_tool(target: Target, lab: Lab, http: Http) -> None:
    """The one date rule against the server: before=T and updated:<T leave out the issue updated at T, since=T and
    updated:>=T keep it; one second later, before= keeps it too."""
    number = lab.issues["closed"]  # nothing writes to it after seeding
    updated = http.ok("GET", lab.path("issues", number), lab.tokens["writer"])["updated_at"]
    at = datetime.fromisoformat(updated).astimezone(UTC)
    after = (at + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    at_text = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    deps = deps_for(target, lab)

    def listed(since: str | None = None, before: str | None = None) -> bool:
        args = ListArgs(owner=lab.org, name=lab.repo, state="closed", limit=50, since=since, before=before)
        return number in [row["number"] for row in rows_of(ok(issue_list.run(deps, args))[1])]

    def searched(query: str) -> bool:
        args = SearchArgs(query=f"is:closed {query}", owner=lab.org, name=lab.repo, limit=50)
        return number in [hit["number"] for hit in rows_of(ok(issue_search.run(deps, args))[1])]

    assert listed(before=at_text) is searched(f"updated:<{at_text}") is False
    assert listed(since=at_text) is searched(f"updated:>={at_text}") is True
    assert listed(before=after) is searched(f"updated:<{after}") is searched(f"updated:<={at_text}") is True
    day = at.date().isoformat()
    assert listed(before=day) is searched(f"updated:<{day}") is False
    assert listed(since=day) is searched(f"updated:>={day}") is searched(f"updated:<={day}") is True


def test_search_keyword_with_assignee_finds_the_issue_on_every_release(target: Target, lab: Lab) -> None:
    args = SearchArgs(query=f"Authentication assignee:{lab.assignee}", owner=lab.org, name=lab.repo)
    _, data = ok(issue_search.run(deps_for(target, lab), args))
    assert [hit["number"] for hit in rows_of(data)] == [lab.issues["auth"]]


def test_search_across_the_owner(target: Target, lab: Lab) -> None:
    _, data = ok(issue_search.run(deps_for(target, lab), SearchArgs(query="label:bug", owner=lab.org)))
    assert {hit["number"] for hit in rows_of(data)} >= {lab.issues["auth"], lab.issues["export"]}


def test_search_of_an_unknown_owner(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    deps.policy = Policy(frozenset({"*"}))
    result = issue_search.run(deps, SearchArgs(query="crash", owner="nobody-here"))
    assert failed(result) == "owner 'nobody-here' does not exist on this Gitea; check the name."


# -- writing ----------------------------------------------------------------------------------------------------


def test_create_with_everything_and_retry(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    args = CreateArgs(
        owner=lab.org,
        name=lab.repo,
        title="Contract: create",
        body="body",
        labels=["bug"],
        assignees=[lab.assignee],
        milestone="v1",
        due_date="2026-03-01",
    )
    _, data = ok(issue_create.run(deps, args))
    assert data["labels"] == ["bug"] and data["milestone"] == "v1" and data["assignees"] == [lab.assignee]
    assert data["due_date"] == "2026-03-01", "the day given, whatever zone the server renders in"
    assert data["warnings"] == [] and data["outcome"] == "created"
    _, again = ok(issue_create.run(deps, args))
    assert again["outcome"] == "already_existed" and again["number"] == data["number"]


def test_a_retry_with_another_label_says_it_was_not_applied(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    first = CreateArgs(owner=lab.org, name=lab.repo, title="Contract: retried", body="b", labels=["bug"])
    _, data = ok(issue_create.run(deps, first))
    retry = first.model_copy(update={"labels": ["bug", "ui"], "assignees": [lab.assignee]})
    text, again = ok(issue_create.run(deps, retry))
    assert again["outcome"] == "already_existed" and again["number"] == data["number"] and again["labels"] == ["bug"]
    assert again["warnings"] == [
        f"#{data['number']} already existed, but not as this call asked, and nothing was changed: labels bug (asked "
        f"bug, ui); assignees none (asked {lab.assignee})."
    ]
    number = data["number"]
    call = f"issue_update owner={lab.org} name={lab.repo} number={number} labels=bug,ui assignees={lab.assignee}"
    assert f"help: to make #{data['number']} as asked, call {call}." in text


def test_create_with_an_organisation_label(target: Target, lab: Lab) -> None:
    """The token cannot list organisation labels (no read:organization); one an issue carries is seen there and
    goes by id, on every release."""
    args = CreateArgs(owner=lab.org, name=lab.repo, title="Contract: org label", labels=["bug", "triage"])
    _, data = ok(issue_create.run(deps_for(target, lab), args))
    assert sorted(data["labels"]) == ["bug", "triage"] and data["warnings"] == []


@pytest.mark.parametrize("name", ["bgu", "untouched"])
def test_create_refuses_a_label_seen_nowhere_before_filing(target: Target, lab: Lab, http: Http, name: str) -> None:
    """A misspelt name, or an organisation label no issue carries yet (unseen without read:organization)."""
    title = f"Contract: never filed {name}"
    args = CreateArgs(owner=lab.org, name=lab.repo, title=title, labels=["bug", name])
    text = failed(issue_create.run(deps_for(target, lab), args))
    assert text.startswith(f"label '{name}' does not exist in {lab.org}/{lab.repo}. Labels there: 'bug', ")
    assert "cannot write" not in text
    filed = http.ok("GET", lab.path("issues"), lab.tokens["writer"], params={"state": "all", "limit": 50})
    assert title not in {row["title"] for row in filed}


def test_create_by_a_user_who_cannot_write(target: Target, lab: Lab) -> None:
    args = CreateArgs(owner=lab.org, name=lab.repo, title="Contract: poster", labels=["bug"], milestone="v1")
    _, data = ok(issue_create.run(deps_for(target, lab, "poster"), args))
    assert data["labels"] == [] and data["milestone"] is None
    assert data["warnings"] == [
        f"Gitea did not apply label 'bug', milestone: the token's user cannot write to {lab.org}/{lab.repo}."
    ]


def test_create_refuses_two_labels_of_one_exclusive_scope(target: Target, lab: Lab) -> None:
    args = CreateArgs(owner=lab.org, name=lab.repo, title="Contract: clash", labels=["priority/high", "priority/low"])
    assert "are exclusive (scope 'priority')" in failed(issue_create.run(deps_for(target, lab), args))


def new_issue(target: Target, lab: Lab, title: str, labels: list[str] | None = None) -> int:
    _, data = ok(
        issue_create.run(
            deps_for(target, lab), CreateArgs(owner=lab.org, name=lab.repo, title=title, labels=labels or [])
        )
    )
    return int(data["number"])


def test_adding_an_exclusive_label_replaces_its_scope(target: Target, lab: Lab) -> None:
    number = new_issue(target, lab, "Contract: scoped", ["bug", "priority/low"])
    args = UpdateArgs(owner=lab.org, name=lab.repo, number=number, add_labels=["priority/high"])
    _, data = ok(issue_update.run(deps_for(target, lab), args))
    assert sorted(data["labels"]) == ["bug", "priority/high"]
    assert "Gitea removed priority/low: an added label of the same exclusive scope replaces it." in data["warnings"]


def test_removing_and_replacing_labels(target: Target, lab: Lab) -> None:
    number = new_issue(target, lab, "Contract: labels", ["bug", "ui"])
    deps = deps_for(target, lab)
    _, removed = ok(
        issue_update.run(deps, UpdateArgs(owner=lab.org, name=lab.repo, number=number, remove_labels=["bug"]))
    )
    assert removed["labels"] == ["ui"]
    _, replaced = ok(
        issue_update.run(deps, UpdateArgs(owner=lab.org, name=lab.repo, number=number, labels=["priority/high", "bug"]))
    )
    assert sorted(replaced["labels"]) == ["bug", "priority/high"]


def test_adding_an_organisation_label_alone(target: Target, lab: Lab) -> None:
    """`triage` is seen on issues and goes by id on every release; `untouched` only by name, from Gitea 1.23."""
    number = new_issue(target, lab, "Contract: org labels alone")
    deps = deps_for(target, lab)
    _, data = ok(issue_update.run(deps, UpdateArgs(owner=lab.org, name=lab.repo, number=number, add_labels=["triage"])))
    assert data["labels"] == ["triage"] and data["outcome"] == "updated"
    args = UpdateArgs(owner=lab.org, name=lab.repo, number=number, add_labels=["untouched"])
    if target.version.gitea(high=(1, 22)):
        assert "finds them by name only from 1.23" in failed(issue_update.run(deps, args))
        return
    _, data = ok(issue_update.run(deps, args))
    assert sorted(data["labels"]) == ["triage", "untouched"] and data["warnings"] == []


def test_an_unknown_assignee_changes_nothing(target: Target, lab: Lab, http: Http) -> None:
    number = new_issue(target, lab, "Contract: assignee")
    args = UpdateArgs(owner=lab.org, name=lab.repo, number=number, title="Must not be saved", assignees=["nobody-here"])
    assert "could not assign 'nobody-here'" in failed(issue_update.run(deps_for(target, lab), args))
    issue = http.ok("GET", lab.path("issues", number), lab.tokens["writer"])
    assert issue["title"] == "Contract: assignee"


def test_a_misspelt_assignee_is_told_the_nearest_login(target: Target, lab: Lab) -> None:
    """With read:repository the refusal names who was meant; with the documented scopes, where to look."""
    number = new_issue(target, lab, "Contract: misspelt assignee")
    args = UpdateArgs(owner=lab.org, name=lab.repo, number=number, assignees=[f"{lab.assignee}x"])
    said = failed(issue_update.run(deps_for(target, lab, "writer_repo"), args))
    assert said.endswith(
        f"'{lab.assignee}x', nearest @{lab.assignee}. assignee_list names all {_assignees(target, lab)}."
    )
    said = failed(issue_update.run(deps_for(target, lab), args))
    assert said.endswith("Check the usernames: assignee_list names who can be assigned (with read:repository)."), said


def _assignees(target: Target, lab: Lab) -> int:
    return len(Http(target.url).ok("GET", lab.path("assignees"), lab.tokens["writer_repo"]))


def test_a_poster_is_told_what_gitea_ignored(target: Target, lab: Lab) -> None:
    _, created = ok(
        issue_create.run(
            deps_for(target, lab, "poster"), CreateArgs(owner=lab.org, name=lab.repo, title="Contract: own")
        )
    )
    args = UpdateArgs(
        owner=lab.org, name=lab.repo, number=created["number"], title="Contract: own, edited", milestone="v1"
    )
    _, data = ok(issue_update.run(deps_for(target, lab, "poster"), args))
    assert data["title"] == "Contract: own, edited"
    assert data["warnings"] == [
        "Gitea did not apply milestone: the token's user may change only title, body and state here."
    ]


def test_due_date_round_trips(target: Target, lab: Lab) -> None:
    number = new_issue(target, lab, "Contract: due")
    args = UpdateArgs(owner=lab.org, name=lab.repo, number=number, due_date="2026-12-31")
    _, data = ok(issue_update.run(deps_for(target, lab), args))
    assert data["due_date"] == "2026-12-31"


def test_a_long_title_filed_twice_is_one_issue_and_said_to_be_cut(target: Target, lab: Lab, http: Http) -> None:
    deps = deps_for(target, lab)
    title = "Contract: long " + "漢" * 130  # cut differently by Gitea from 1.24 (width) and before (bytes)
    args = CreateArgs(owner=lab.org, name=lab.repo, title=title)
    _, data = ok(issue_create.run(deps, args))
    kept = data["title"]
    assert len(kept) < len(title) and kept.endswith("…")
    shortened = f"Gitea shortened the title to {len(kept)} of its {len(title)} characters"
    assert data["outcome"] == "created" and data["warnings"][0].startswith(shortened)
    _, again = ok(issue_create.run(deps, args))
    assert again["outcome"] == "already_existed" and again["number"] == data["number"]
    assert again["warnings"][0].startswith(shortened)
    before = http.ok("GET", lab.path("issues", data["number"]), lab.tokens["writer"])["updated_at"]
    edit = UpdateArgs(owner=lab.org, name=lab.repo, number=data["number"], title=title, state="open")
    _, same = ok(issue_update.run(deps, edit))
    assert same["outcome"] == "unchanged" and same["warnings"][0].startswith(shortened)
    assert http.ok("GET", lab.path("issues", data["number"]), lab.tokens["writer"])["updated_at"] == before


def test_an_update_to_what_already_is_sends_nothing(target: Target, lab: Lab, http: Http) -> None:
    deps = deps_for(target, lab)
    number = new_issue(target, lab, "Contract: as asked")
    assign = UpdateArgs(owner=lab.org, name=lab.repo, number=number, assignees=[lab.assignee])
    _, first = ok(issue_update.run(deps, assign))
    assert first["outcome"] == "updated" and first["assignees"] == [lab.assignee]
    before = http.ok("GET", lab.path("issues", number), lab.tokens["writer"])["updated_at"]
    again = UpdateArgs(owner=lab.org, name=lab.repo, number=number, assignees=[lab.assignee.upper()], state="open")
    text, same = ok(issue_update.run(deps, again))
    assert same["outcome"] == "unchanged" and text.startswith(f"{lab.org}/{lab.repo}#{number} unchanged (it already")
    assert http.ok("GET", lab.path("issues", number), lab.tokens["writer"])["updated_at"] == before
    partly = UpdateArgs(
        owner=lab.org, name=lab.repo, number=number, assignees=[lab.assignee], title="Contract: renamed"
    )
    text, renamed = ok(issue_update.run(deps, partly))
    assert renamed["outcome"] == "updated" and text.startswith(f"{lab.org}/{lab.repo}#{number} updated (title): ")


def test_comment_and_retry(target: Target, lab: Lab) -> None:
    deps = deps_for(target, lab)
    args = CommentArgs(owner=lab.org, name=lab.repo, number=lab.issues["export"], body="Contract: a comment")
    _, data = ok(issue_comment.run(deps, args))
    assert data["outcome"] == "created" and data["author"] == lab.writer
    _, again = ok(issue_comment.run(deps, args))
    assert again["outcome"] == "already_existed" and again["id"] == data["id"]


def test_close_and_reopen_with_a_comment_and_retry(target: Target, lab: Lab, http: Http) -> None:
    deps = deps_for(target, lab)
    number = new_issue(target, lab, "Contract: close with a comment")
    close = UpdateArgs(owner=lab.org, name=lab.repo, number=number, state="closed", comment="Contract: closing")
    text, data = ok(issue_update.run(deps, close))
    assert data["state"] == "closed" and data["outcome"] == "updated"
    assert text.startswith(f"{lab.org}/{lab.repo}#{number} updated (comment, state): ")
    comments = http.ok("GET", lab.path("issues", number, "comments"), lab.tokens["writer"])
    assert [(c["body"], c["user"]["login"], c["html_url"]) for c in comments] == [
        ("Contract: closing", lab.writer, data["comment_url"])
    ]
    text, again = ok(issue_update.run(deps, close))  # a retry: the comment is found, nothing is written
    assert again["outcome"] == "unchanged" and again["comment_url"] == data["comment_url"]
    assert text.endswith("was already there: you posted the same text minutes ago, so it was not posted again")
    reopen = UpdateArgs(owner=lab.org, name=lab.repo, number=number, state="open", comment="Contract: reopening")
    _, reopened = ok(issue_update.run(deps, reopen))
    assert reopened["state"] == "open" and reopened["comment_url"] != data["comment_url"]
    assert len(http.ok("GET", lab.path("issues", number, "comments"), lab.tokens["writer"])) == 2


def test_a_close_refused_for_an_open_blocker_says_the_comment_landed(target: Target, lab: Lab, http: Http) -> None:
    """Gitea 1.25.4 and Forgejo 12.0.4 answer 412 when closing an issue blocked by an open one."""
    deps = deps_for(target, lab)
    blocked, blocker = (new_issue(target, lab, f"Contract: {role}") for role in ("blocked", "blocker"))
    link = {"owner": lab.org, "repo": lab.repo, "index": blocker}
    http.ok("POST", lab.path("issues", blocked, "dependencies"), lab.tokens["writer"], json=link)
    close = UpdateArgs(owner=lab.org, name=lab.repo, number=blocked, state="closed", comment="Contract: blocked")
    text = failed(issue_update.run(deps, close))
    comments = http.ok("GET", lab.path("issues", blocked, "comments"), lab.tokens["writer"])
    assert [c["body"] for c in comments] == ["Contract: blocked"]
    assert text == (
        f"The comment was posted ({comments[0]['html_url']}), but the state did not change: Gitea refuses to close "
        "this issue: it is blocked by issues still open (HTTP 412, open dependencies). Close those first, or "
        "remove them as its blockers."
    )
    assert http.ok("GET", lab.path("issues", blocked), lab.tokens["writer"])["state"] == "open"


def test_issue_get_shows_dependencies_from_both_sides(target: Target, lab: Lab, http: Http) -> None:
    """A blocker in another repository of the allowlist (the renamed one: the many repository's counts stay) is
    named with it; where dependencies are off nothing is
    said and the structured face says why."""
    deps = deps_for(target, lab)
    blocked, blocker = (new_issue(target, lab, f"Contract: {role}") for role in ("waits", "first"))
    elsewhere = http.ok("POST", lab.path("issues", repo=lab.renamed_to), lab.tokens["writer"],
                        json={"title": "Contract: upstream"})["number"]  # fmt: skip
    for repo, index in ((lab.repo, blocker), (lab.renamed_to, elsewhere)):
        link = {"owner": lab.org, "repo": repo, "index": index}
        http.ok("POST", lab.path("issues", blocked, "dependencies"), lab.tokens["writer"], json=link)
    text, data = ok(issue_get.run(deps, GetArgs(owner=lab.org, name=lab.repo, number=blocked)))
    assert sorted((d["number"], d["repository"]) for d in data["blocked_by"]) == sorted(
        [(blocker, None), (elsewhere, f"{lab.org}/{lab.renamed_to}")]
    )
    assert data["blocks"] == [] and "blocked by: " in text and "\nblocks: " not in text
    assert f"{lab.org}/{lab.renamed_to}#{elsewhere} (open) Contract: upstream" in text
    text, data = ok(issue_get.run(deps, GetArgs(owner=lab.org, name=lab.repo, number=blocker)))
    assert data["blocks"] == [{"number": blocked, "title": "Contract: waits", "state": "open", "repository": None}]
    assert f"blocks: #{blocked} (open) Contract: waits" in text
    off = GetArgs(owner=lab.org, name=lab.no_dependencies_repo, number=lab.issues["nodeps"])
    text, data = ok(issue_get.run(deps, off))
    assert (data["blocked_by"], data["blocks"], data["dependencies_note"]) == (None, None, issue_get.DEPENDENCIES_OFF)
    assert "blocked by" not in text and "dependencies" not in text


def test_issue_update_adds_and_removes_blockers_and_refuses_a_cycle(target: Target, lab: Lab, http: Http) -> None:
    """A blocker here and one in another repository added, shown from both sides, a cycle of two and of three
    refused before sending (Gitea itself accepts the longer one; the other repository is the renamed one, whose
    issues nothing counts), a duplicate said and not sent, one removed; where
    dependencies are off, refused in words."""
    deps = deps_for(target, lab)
    a, b, c = (new_issue(target, lab, f"Contract: chain {x}") for x in "abc")
    elsewhere = http.ok("POST", lab.path("issues", repo=lab.renamed_to), lab.tokens["writer"],
                        json={"title": "Contract: elsewhere"})["number"]  # fmt: skip
    other = f"{lab.org}/{lab.renamed_to}#{elsewhere}"

    def update(number: int, **kw: Any) -> Any:
        return issue_update.run(deps, UpdateArgs(owner=lab.org, name=lab.repo, number=number, **kw))

    text, data = ok(update(a, blocked_by_add=[str(b), other]))
    assert sorted(x["shown"] for x in data["blocked_by"]) == sorted([f"#{b}", other]), text
    _, shown = ok(issue_get.run(deps, GetArgs(owner=lab.org, name=lab.renamed_to, number=elsewhere)))
    assert [(x["number"], x["repository"]) for x in shown["blocks"]] == [(a, f"{lab.org}/{lab.repo}")]
    ok(update(b, blocked_by_add=[str(c)]))  # a <- b <- c
    for number, blocker, chain in ((b, a, f"#{a} → #{b}"), (c, a, f"#{a} → #{b} → #{c}")):
        said = failed(update(number, blocked_by_add=[str(blocker)]))
        assert said.startswith(f"#{blocker} cannot block #{number}: that would close a cycle ({chain},"), said
    text, again = ok(update(a, blocked_by_add=[str(b)]))
    assert again["outcome"] == "unchanged" and f"#{b} already blocked it: not added again." in text
    _, removed = ok(update(a, blocked_by_remove=[other]))
    assert [x["shown"] for x in removed["blocked_by"]] == [f"#{b}"]
    assert http.ok("GET", lab.path("issues", elsewhere, "blocks", repo=lab.renamed_to), lab.tokens["writer"]) == []
    off = UpdateArgs(owner=lab.org, name=lab.no_dependencies_repo, number=lab.issues["nodeps"],
                     blocked_by_add=[str(lab.issues["nodeps-other"])])  # fmt: skip
    assert failed(issue_update.run(deps, off)) == (
        f"Issue dependencies are turned off in {lab.org}/{lab.no_dependencies_repo}: nothing was changed. A "
        "repository admin can turn them on."
    )


def test_comment_on_a_locked_issue(target: Target, lab: Lab) -> None:
    args = CommentArgs(owner=lab.org, name=lab.repo, number=lab.issues["locked"], body="Contract: locked?")
    result = issue_comment.run(deps_for(target, lab, "poster"), args)
    if not lab.has_lock:
        ok(result)
        return
    where = f"{lab.org}/{lab.repo}#{lab.issues['locked']}"
    assert failed(result) == f"{where} is locked: only users who can write to the repository may comment."


def test_comment_on_a_missing_issue(target: Target, lab: Lab) -> None:
    result = issue_comment.run(deps_for(target, lab), CommentArgs(owner=lab.org, name=lab.repo, number=9999, body="x"))
    assert failed(result) == f"{lab.org}/{lab.repo} has no issue or pull request #9999; find numbers with issue_list."


# -- check: the documented scopes, and what happens without them -----------------------------------------------


def check(target: Target, lab: Lab, role: str) -> str:
    token = SecretStr(lab.tokens[role])
    settings = Settings(url=target.url, token=token, allowed_owners=frozenset({lab.org.lower()}))
    client = GiteaClient(target.url, lab.tokens[role], timeout=30, retry=RetryPolicy(attempts=1))
    from gitea_mcp.cli.check import render

    return render(run_checks(settings, client), settings, "utf-8")


def test_check_with_the_documented_scopes_is_ready(target: Target, lab: Lab) -> None:
    text = check(target, lab, "writer")
    assert text.splitlines()[-1] in ("ready", "ready, with 1 warning"), text  # the warning: MAX_RESPONSE_ITEMS < 50
    assert f"token valid: acts as @{lab.writer}" in text


def test_check_flags_a_token_without_read_user(target: Target, lab: Lab) -> None:
    text = check(target, lab, "writer_issue_only")
    assert "✗ the token lacks read:user: issue_create, issue_comment cannot check for your earlier writes" in text
    assert "not ready" in text.splitlines()[-1]


def test_check_flags_a_token_without_write_issue(target: Target, lab: Lab) -> None:
    text = check(target, lab, "reader")
    assert "✗ the token lacks write:issue" in text and "not ready" in text.splitlines()[-1]


def test_check_flags_a_user_who_may_only_read(target: Target, lab: Lab) -> None:
    """The documented scopes on a read collaborator, and on a user who is no member at all: 'ready' would be
    followed by a 403 on the first issue_update of someone else's issue."""
    for role, login in (("poster", lab.poster), ("outsider", lab.outsider)):
        text = check(target, lab, role)
        assert f"✗ owner {lab.org}: @{login} may only read " in text and "not ready" in text.splitlines()[-1], text
    assert f"✓ owner {lab.org}: @{lab.writer} can change issues in " in check(target, lab, "writer")


def test_get_shows_a_pull_requests_review_with_read_repository(target: Target, lab: Lab) -> None:
    args = GetArgs(owner=lab.org, name=lab.repo, number=lab.issues["pr"])
    text, data = ok(issue_get.run(deps_for(target, lab, "writer_repo"), args))
    [review] = [r for r in data["reviews"] if r["id"] == lab.reviews["changes"]]
    assert (review["state"], review["reviewer"], review["body"]) == ("REQUEST_CHANGES", lab.assignee, REVIEW_BODY)
    assert [(c["path"], c["line"], c["body"]) for c in review["comments"]] == [INLINE]
    assert f"on {INLINE[0]} line {INLINE[1]} at " in text and REVIEW_BODY in text


def test_get_of_a_pull_request_with_the_documented_scopes_reads_its_reviews_from_the_timeline(
    target: Target, lab: Lab
) -> None:
    """The review route refuses write:issue and read:user; the timeline gives each review's author, time and text,
    and a dismissal; the state and the inline comments are said to need read:repository."""
    args = GetArgs(owner=lab.org, name=lab.repo, number=lab.issues["pr"])
    text, data = ok(issue_get.run(deps_for(target, lab), args))
    shown = {r["id"]: (r["reviewer"], r["body"], r["state"], r["dismissed"]) for r in data["reviews"]}
    assert shown == {
        lab.reviews["changes"]: (lab.assignee, REVIEW_BODY, None, None),  # dismissed by the approval, silently
        lab.reviews["dismissed"]: (lab.assignee, "", None, True),
    }
    assert "need read:repository, which the token lacks" in (data["reviews_note"] or "")
    assert f"review {lab.reviews['dismissed']} (dismissed) at " in text and REVIEW_BODY in text
    assert INLINE[2] not in text and DISMISSAL not in text


def test_search_by_author_across_the_owner(target: Target, lab: Lab) -> None:
    """Every release verified ignores created_by on the cross-repository search: refused, never a wrong list."""
    result = issue_search.run(deps_for(target, lab), SearchArgs(query=f"author:{lab.poster}", owner=lab.org))
    assert "across repositories (its search ignores the author)" in failed(result)
    text, data = ok(
        issue_search.run(deps_for(target, lab), SearchArgs(query=f"author:{lab.poster}", owner=lab.org, name=lab.repo))
    )
    shown = [line for line in text.splitlines() if line.startswith("#")]  # the locator rows name each author
    assert rows_of(data) and len(shown) == len(rows_of(data))
    assert all(f" {render.user(lab.poster)} " in line for line in shown), shown


# -- a repository that moved ------------------------------------------------------------------------------------

OUTSIDE = (
    "Its new owner is outside GITEA_ALLOWED_OWNERS, so this server cannot work with it there; ask the operator to "
    "allow that owner if it should."
)


def every_tool(owner: str, name: str, number: int) -> list[tuple[ToolDefinition, dict[str, Any]]]:
    """Each tool's plain call on one repository, reads and writes: every tool the registry has."""
    values = {"owner": owner, "name": name, "number": number, "query": "moved", "title": "Contract: after the move",
              "body": "Contract: after the move"}  # fmt: skip
    return [(tool, tool_cases.sample(tool, values)) for tool in tool_cases.tools()]


# The role whose token reaches each tool's routes: Gitea checks a route's scope before it looks the repository up,
# and a repository route (read:repository) is beyond the documented scopes.
def role_for(tool: ToolDefinition) -> str:
    return "writer_repo" if tool.spec.name in tool_cases.NEEDS_READ_REPOSITORY else "writer"


def test_every_tool_on_a_repository_moved_outside_the_allowlist(target: Target, lab: Lab, http: Http) -> None:
    """Never a call for an owner outside the allowlist, nor its name: only that the repository moved out of it."""
    for tool, args in every_tool(lab.org, lab.moved_repo, lab.issues[f"moved-{lab.org}"]):
        text = failed(tool.call(deps_for(target, lab, role_for(tool)), args))
        assert text.startswith(f"The repository {lab.org}/{lab.moved_repo} has moved: Gitea redirected "), text
        assert text.endswith(f"and nothing was done. {OUTSIDE}"), text
        assert lab.away not in text and "call again" not in text, text
    issue = http.ok("GET", f"/repos/{lab.away}/{lab.moved_repo}/issues/1", lab.tokens["writer"])
    assert issue["state"] == "open" and issue["comments"] == 0, "nothing was written"
    assert http.get(f"/repos/{lab.away}/{lab.moved_repo}/issues/2", lab.tokens["writer"]).status == 404


def test_every_tool_on_a_renamed_owner(target: Target, lab: Lab) -> None:
    """Allowed under its new name too, the new place is named; else only that it moved out of the allowlist."""
    number = lab.issues[f"moved-{lab.old_owner}"]
    for allowed, ending in (
        ({lab.old_owner}, OUTSIDE),
        ({lab.old_owner, lab.new_owner}, f"call again with owner={lab.new_owner} name={lab.moved_repo}."),
    ):
        for tool, args in every_tool(lab.old_owner, lab.moved_repo, number):
            deps = Deps(deps_for(target, lab, role_for(tool)).client, Policy(frozenset(allowed)))
            text = failed(tool.call(deps, args))
            assert text.startswith(f"The repository {lab.old_owner}/{lab.moved_repo} has moved: "), text
            assert text.endswith(ending), text
