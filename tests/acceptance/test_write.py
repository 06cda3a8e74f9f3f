"""File, retry, update and comment, as an agent does: after each write the administrator re-reads the server.

A write is right when the server then holds exactly what was asked, once, and the answer describes what the server
holds; a refusal is right when the server holds nothing new.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from tests.acceptance.agent import Agent, Answer
from tests.acceptance.oracle import Oracle, Row, label_names, logins
from tests.acceptance.world import World
from tests.contract.target import Target


def unique(text: str) -> str:
    return f"{text} {secrets.token_hex(3)}"


def due_day(row: Row) -> str | None:
    return row["due_date"][:10] if row.get("due_date") else None


def assert_answer_is_the_server(answer: Answer, truth: Row) -> None:
    data = answer.data
    assert (data["number"], data["title"], data["state"]) == (truth["number"], truth["title"], truth["state"])
    assert sorted(data["labels"]) == sorted(label_names(truth))
    assert data["assignees"] == logins(truth)
    assert data["milestone"] == (truth.get("milestone") or {}).get("title")
    assert data["due_date"] == due_day(truth)
    assert data["html_url"] == truth["html_url"]


def org_labels_refused(target: Target, answer: Answer) -> bool:
    """Gitea up to 1.22 resolves no organisation label by name for this token (it lacks read:organization): a tool
    may refuse, naming the scope (docs/server-behaviour.md). True when that is what happened."""
    if not answer.error:
        return False
    assert target.version.gitea(high=(1, 22)) and "read:organization" in answer.text, answer
    return True


def new_issue(writer: Agent, world: World, oracle: Oracle, **fields: Any) -> Row:
    title = unique("Acceptance: to update")
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=title, **fields)
    return oracle.issue(answer.data["number"])


# -- file -----------------------------------------------------------------------------------------------------

EVERYTHING = {
    "body": "Steps:\n\n1. open\n2. look",
    "labels": ["bug", "needs info, urgent", "triage", "priority/high"],
    "milestone": "Sprint, week 3",
    "due_date": "2027-03-01",
}


def test_filing_an_issue_with_everything(writer: Agent, oracle: Oracle, world: World, target: Target) -> None:
    title = unique("Acceptance: everything")
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=title, assignees=[world.writer],
                         **EVERYTHING)  # fmt: skip
    if org_labels_refused(target, answer):
        assert oracle.titled(title) == []
        return
    [truth] = oracle.titled(title)
    assert truth["body"] == EVERYTHING["body"] and truth["user"]["login"] == world.writer
    assert label_names(truth) == set(EVERYTHING["labels"])
    assert truth["milestone"]["title"] == EVERYTHING["milestone"] and logins(truth) == [world.writer]
    assert due_day(truth) == EVERYTHING["due_date"]
    assert_answer_is_the_server(answer, truth)
    assert answer.data["outcome"] == "created" and answer.data["warnings"] == []


def test_retrying_the_same_create_files_it_once(writer: Agent, oracle: Oracle, world: World) -> None:
    title = unique("Acceptance: retried")
    args = {"owner": world.org, "name": world.repo, "title": title, "labels": ["ui"]}
    first, again = writer.call("issue_create", **args), writer.call("issue_create", **args)
    [truth] = oracle.titled(title)
    assert first.data["number"] == again.data["number"] == truth["number"]
    assert again.data["outcome"] == "already_existed"
    assert_answer_is_the_server(again, truth)


OTHER_FIELDS = {
    "another body": {"body": "second"},
    "other labels": {"labels": ["bug"]},
    "another milestone": {"milestone": "v2.0"},
    "an assignee": {"assignees": ["{writer}"]},
    "a due date": {"due_date": "2027-04-01"},
}


@pytest.mark.parametrize("other", OTHER_FIELDS.values(), ids=OTHER_FIELDS.keys())
def test_a_retry_with_other_fields_is_not_taken_for_the_first(
    writer: Agent, oracle: Oracle, world: World, other: dict[str, Any]
) -> None:
    """The same title again with one field changed: whatever the tool does (file a second issue, refuse, or point at
    the first), the agent must not be told that what it asked now exists when the server holds something else."""
    title = unique("Acceptance: second thoughts")
    first = {"body": "first", "labels": ["ui"], "milestone": "v1.0"}
    writer.call("issue_create", owner=world.org, name=world.repo, title=title, **first)
    asked = {**first, **{k: [world.writer] if v == ["{writer}"] else v for k, v in other.items()}}
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=title, **asked)
    held = oracle.titled(title)
    if answer.error:
        assert len(held) == 1, answer
        return
    truth = next(row for row in held if row["number"] == answer.data["number"])
    assert_answer_is_the_server(answer, truth)
    holds = {
        "body": truth["body"],
        "labels": sorted(label_names(truth)),
        "milestone": (truth.get("milestone") or {}).get("title"),
        "assignees": logins(truth),
        "due_date": due_day(truth),
    }
    differs = [key for key, value in asked.items() if holds[key] != (sorted(value) if key == "labels" else value)]
    said = " ".join(answer.data["warnings"])
    told = [key for key in differs if key.rstrip("s") in said or key.replace("_", " ") in said]
    assert told == differs, f"the server holds other {differs}: {answer}"


def test_a_misspelt_label_files_nothing(writer: Agent, oracle: Oracle, world: World) -> None:
    title = unique("Acceptance: misspelt")
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=title, labels=["bgu"])
    assert answer.error and "bgu" in answer.text and len(answer.text.splitlines()) == 1, answer
    assert oracle.titled(title) == []


LONG = {
    "255 bytes": ("x", 255, False),
    "256 bytes": ("x", 256, True),
    "200 accented letters (400 bytes)": ("é", 200, False),
    "140 characters, 116 of them CJK": ("日", 140, True),  # a display width of 256
}


@pytest.mark.parametrize(("letter", "length", "cut"), LONG.values(), ids=LONG.keys())
def test_a_long_title(writer: Agent, oracle: Oracle, world: World, letter: str, length: int, cut: bool) -> None:
    """Past 255 bytes Gitea cuts a title (to a display width of 252 and "…", docs/server-behaviour.md) instead of
    refusing it. The agent must learn it: a refusal that files nothing, or a warning beside the title as filed."""
    stem = unique("Acceptance: long") + " "
    title = stem + letter * (length - len(stem))
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=title)
    held = [row for row in oracle.every() if row["title"].startswith(stem)]
    if answer.error:
        assert len(title.encode()) > 255 and held == [], f"refused, yet every release keeps it whole: {answer}"
        assert len(answer.text.splitlines()) == 1 and "255" in answer.text, answer
        return
    [truth] = held
    assert truth["title"] != title or not cut, "every release cuts this one"
    assert_answer_is_the_server(answer, truth)
    if truth["title"] != title:  # releases differ on the rest (by width from Gitea 1.24, by bytes before)
        assert answer.data["warnings"] and "title" in " ".join(answer.data["warnings"]), answer


def test_a_title_with_inner_and_outer_spaces(writer: Agent, oracle: Oracle, world: World) -> None:
    """Gitea trims a new title and keeps its inner spaces; the answer and a retry must agree with what it kept."""
    title = "  " + unique("Acceptance:  two  spaces") + " "
    args = {"owner": world.org, "name": world.repo, "title": title}
    first, again = writer.call("issue_create", **args), writer.call("issue_create", **args)
    held = [row for row in oracle.every() if " ".join(row["title"].split()) == " ".join(title.split())]
    assert len(held) == 1, f"filed once: {[row['title'] for row in held]}"
    assert held[0]["title"] == title.strip()
    assert_answer_is_the_server(first, held[0])
    assert again.data["outcome"] == "already_existed" and again.data["number"] == held[0]["number"]


@pytest.mark.parametrize("role", ["reader", "outsider"])
def test_a_user_who_cannot_write_is_told_what_was_dropped(
    role: str, reader: Agent, outsider: Agent, oracle: Oracle, world: World
) -> None:
    agent = {"reader": reader, "outsider": outsider}[role]
    title = unique(f"Acceptance: by the {role}")
    answer = agent.call("issue_create", owner=world.org, name=world.repo, title=title, labels=["bug"],
                        milestone="v1.0")  # fmt: skip
    [truth] = oracle.titled(title)
    assert truth["user"]["login"] == agent.login and label_names(truth) == set() and truth["milestone"] is None
    assert_answer_is_the_server(answer, truth)
    said = " ".join(answer.data["warnings"])
    assert "bug" in said and "milestone" in said, answer


# -- update ---------------------------------------------------------------------------------------------------


def test_updating_every_field(writer: Agent, oracle: Oracle, world: World, target: Target) -> None:
    before = new_issue(writer, world, oracle, labels=["bug", "status/ready"], milestone="v1.0")
    asked = {
        "title": unique("Acceptance: updated"),
        "body": "new body",
        "state": "closed",
        "add_labels": ["triage", "org, wide", "status/blocked"],
        "remove_labels": ["bug"],
        "assignees": [world.writer],
        "milestone": "Sprint, week 3",
        "due_date": "2027-01-15",
    }
    answer = writer.call("issue_update", owner=world.org, name=world.repo, number=before["number"], **asked)
    truth = oracle.issue(before["number"])
    if org_labels_refused(target, answer):
        assert truth == before
        return
    assert (truth["title"], truth["body"], truth["state"]) == (asked["title"], asked["body"], "closed")
    # status/blocked replaces status/ready: one label per exclusive scope.
    assert label_names(truth) == {"triage", "org, wide", "status/blocked"}
    assert logins(truth) == [world.writer] and truth["milestone"]["title"] == "Sprint, week 3"
    assert due_day(truth) == "2027-01-15"
    assert_answer_is_the_server(answer, truth)


def test_replacing_labels_with_organisation_labels(writer: Agent, oracle: Oracle, world: World, target: Target) -> None:
    before = new_issue(writer, world, oracle, labels=["bug"])
    answer = writer.call("issue_update", owner=world.org, name=world.repo, number=before["number"],
                         labels=["area/api", "org, wide", "ui"])  # fmt: skip
    truth = oracle.issue(before["number"])
    if org_labels_refused(target, answer):
        assert truth == before
        return
    assert label_names(truth) == {"area/api", "org, wide", "ui"}
    assert_answer_is_the_server(answer, truth)


def test_adding_only_an_organisation_label(writer: Agent, oracle: Oracle, world: World, target: Target) -> None:
    before = new_issue(writer, world, oracle, labels=["bug"])
    answer = writer.call("issue_update", owner=world.org, name=world.repo, number=before["number"],
                         add_labels=["triage"])  # fmt: skip
    truth = oracle.issue(before["number"])
    if org_labels_refused(target, answer):
        assert truth == before
        return
    assert label_names(truth) == {"bug", "triage"}
    assert_answer_is_the_server(answer, truth)
    assert answer.data["outcome"] == "updated" and answer.data["warnings"] == []


def test_an_organisation_label_replaces_its_exclusive_scope(
    writer: Agent, oracle: Oracle, world: World, target: Target
) -> None:
    """Gitea replaces area/api with area/web (one label per exclusive scope, organisation labels too); the answer
    says so, as it does for a repository's scoped labels."""
    before = next(row for row in oracle.every() if label_names(row) >= {"area/api"} and row["state"] == "open")
    answer = writer.call("issue_update", owner=world.org, name=world.repo, number=before["number"],
                         add_labels=["area/web"])  # fmt: skip
    truth = oracle.issue(before["number"])
    if org_labels_refused(target, answer):
        assert truth == before
        return
    assert label_names(truth) == label_names(before) - {"area/api"} | {"area/web"}
    assert_answer_is_the_server(answer, truth)
    assert any("area/api" in warning and "exclusive" in warning for warning in answer.data["warnings"]), answer


def test_filing_with_two_organisation_labels_of_one_scope(
    writer: Agent, oracle: Oracle, world: World, target: Target
) -> None:
    """Refused as two repository labels of one scope are (nothing filed), or filed with the clash explained."""
    title = unique("Acceptance: one scope twice")
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=title,
                         labels=["area/api", "area/web"])  # fmt: skip
    held = oracle.titled(title)
    if answer.error:
        assert held == [] and ("exclusive" in answer.text or "read:organization" in answer.text), answer
        return
    [truth] = held
    assert_answer_is_the_server(answer, truth)
    if label_names(truth) != {"area/api", "area/web"}:
        assert any("exclusive" in warning for warning in answer.data["warnings"]), answer


SAME = {
    "the same title": lambda row: {"title": row["title"]},
    "the same state": lambda row: {"state": row["state"]},
    "a label it has": lambda row: {"add_labels": ["bug"]},
    "the labels it has": lambda row: {"labels": sorted(label_names(row))},
    "removing a label it lacks": lambda row: {"remove_labels": ["docs"]},
    "the same milestone": lambda row: {"milestone": row["milestone"]["title"]},
    "the same assignees": lambda row: {"assignees": logins(row)},
    "the same due date": lambda row: {"due_date": due_day(row)},
}


@pytest.mark.parametrize("same", SAME.values(), ids=SAME.keys())
def test_an_update_to_what_already_is_changes_nothing(writer: Agent, oracle: Oracle, world: World, same: Any) -> None:
    before = new_issue(writer, world, oracle, labels=["bug", "ui"], milestone="v2.0", assignees=[world.writer],
                       due_date="2027-02-02")  # fmt: skip
    answer = writer.call("issue_update", owner=world.org, name=world.repo, number=before["number"], **same(before))
    after = oracle.issue(before["number"])
    assert after == before, "the server holds the issue as it was"
    assert answer.data["outcome"] == "unchanged" and "unchanged" in answer.text.splitlines()[0], answer
    assert_answer_is_the_server(answer, after)


def assert_refused_naming_the_new_name(answer: Answer, world: World) -> None:
    """gitea_mcp follows no redirect (docs/decisions/0005-moves-outside-the-allowlist.md): it names the new place."""
    assert answer.error and f"name={world.moved_to}" in answer.text and "nothing was done" in answer.text, answer


def test_a_reader_adding_a_label_is_told_it_needs_write_access(
    reader: Agent, writer: Agent, oracle: Oracle, world: World
) -> None:
    """The reader can read the repository: the refusal must name what is missing (write access), nothing changes."""
    before = new_issue(writer, world, oracle, labels=["bug"])
    answer = reader.call("issue_update", owner=world.org, name=world.repo, number=before["number"], add_labels=["ui"])
    assert oracle.issue(before["number"]) == before
    said = answer.text if answer.error else " ".join(answer.data["warnings"])
    assert "write" in said and "lack access to this repository" not in said, answer


def test_a_reader_editing_anothers_issue_is_told_why_not(
    reader: Agent, writer: Agent, oracle: Oracle, world: World
) -> None:
    """Only the poster or a writer may edit: the reader (who can read the repository) must learn that, not that it
    may lack access to the repository; nothing changes."""
    before = new_issue(writer, world, oracle)
    answer = reader.call("issue_update", owner=world.org, name=world.repo, number=before["number"], title="Edited")
    assert oracle.issue(before["number"]) == before
    assert answer.error and "write" in answer.text and "lack access to this repository" not in answer.text, answer


def test_updating_an_issue_of_a_moved_repository(writer: Agent, oracle: Oracle, world: World) -> None:
    """Through the old name: done on the repository it became, or refused naming it, with nothing written."""
    number = world.moved_issues[1]
    title = unique("Acceptance: moved and renamed")
    before = oracle.issue(number, repo=world.moved_to)
    answer = writer.call("issue_update", owner=world.org, name=world.moved_from, number=number, title=title)
    truth = oracle.issue(number, repo=world.moved_to)
    if answer.error:
        assert_refused_naming_the_new_name(answer, world)
        assert truth == before
        return
    assert truth["title"] == title
    assert_answer_is_the_server(answer, truth)


# -- comment --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["writer", "reader", "outsider"])
def test_commenting_and_retrying_posts_once(
    role: str, writer: Agent, reader: Agent, outsider: Agent, oracle: Oracle, world: World
) -> None:
    agent = {"writer": writer, "reader": reader, "outsider": outsider}[role]
    number = world.issues["comma"]
    body = unique(f"Acceptance: a comment by the {role}")
    args = {"owner": world.org, "name": world.repo, "number": number, "body": body}
    first, again = agent.call("issue_comment", **args), agent.call("issue_comment", **args)
    truth = oracle.comments(number)
    mine = [c for c in truth if c["body"] == body]
    assert len(mine) == 1 and mine[0]["user"]["login"] == agent.login
    assert first.data["id"] == again.data["id"] == mine[0]["id"] and again.data["outcome"] == "already_existed"
    assert first.data["html_url"] == mine[0]["html_url"]
    assert again.data["issue_comments"] == len(truth) == oracle.issue(number)["comments"]


def test_commenting_on_a_moved_repository_by_its_old_name(writer: Agent, oracle: Oracle, world: World) -> None:
    number = world.moved_issues[2]
    body = unique("Acceptance: comment through the old name")
    answer = writer.call("issue_comment", owner=world.org, name=world.moved_from, number=number, body=body)
    mine = [c for c in oracle.comments(number, world.moved_to) if c["body"] == body]
    if answer.error:
        assert_refused_naming_the_new_name(answer, world)
        assert mine == []
        return
    [comment] = mine
    assert answer.data["id"] == comment["id"] and answer.data["html_url"] == comment["html_url"]


def test_a_filed_issue_is_listed_at_once(writer: Agent, oracle: Oracle, world: World) -> None:
    """Filed, then listed at once (not searched: the keyword index lags): on the first page, as on the server's."""
    title = unique("Acceptance: just filed")
    created = writer.call("issue_create", owner=world.org, name=world.repo, title=title)
    listed = writer.call("issue_list", owner=world.org, name=world.repo, limit=5)
    newest = oracle.http.get(world.path("issues"), oracle.token, state="open", type="issues", limit=5).body
    [truth] = oracle.titled(title)
    assert created.data["number"] == truth["number"] in [row["number"] for row in newest]
    assert [row["number"] for row in listed.rows] == [row["number"] for row in newest]
