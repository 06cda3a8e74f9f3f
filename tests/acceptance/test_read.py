"""Read one issue or pull request, and its long thread, as an agent does: every fact against the admin's GET."""

from __future__ import annotations

import re

import pytest

from tests.acceptance.agent import Agent, Answer
from tests.acceptance.oracle import Oracle, Row, label_names, logins
from tests.acceptance.world import SPECIAL_TITLES, THREADS, World
from tests.contract.target import Target


def assert_same_issue(data: dict[str, object], truth: Row) -> None:
    """The tool's facts about an issue are the server's, field by field."""
    assert data["number"] == truth["number"]
    assert data["title"] == truth["title"], "the title exactly as the server holds it"
    assert data["state"] == truth["state"]
    assert sorted(data["labels"]) == sorted(label_names(truth))  # type: ignore[call-overload]
    assert data["assignees"] == logins(truth)
    assert data["milestone"] == (truth.get("milestone") or {}).get("title")
    assert data["html_url"] == truth["html_url"]


def assert_title_shown(answer: Answer, title: str) -> None:
    """The text face carries the title as it is (quoted when it could pass for other fields), not a look-alike."""
    assert title in answer.text or repr(title) in answer.text or f'"{title}"' in answer.text, answer


ISSUES = [*SPECIAL_TITLES, "thread60"]


@pytest.mark.parametrize("name", ISSUES)
def test_reading_an_issue_gives_the_servers_facts(writer: Agent, oracle: Oracle, world: World, name: str) -> None:
    number = world.issues[name]
    answer = writer.call("issue_get", owner=world.org, name=world.repo, number=number, max_chars=0)
    truth, comments = oracle.issue(number), oracle.comments(number)
    assert_same_issue(answer.data, truth)
    assert answer.data["body"] == truth["body"]
    assert answer.data["comments_total"] == len(comments) == truth["comments"]
    assert_title_shown(answer, truth["title"])


@pytest.mark.parametrize("name", list(SPECIAL_TITLES))
def test_a_listed_row_shows_the_title_the_server_holds(writer: Agent, oracle: Oracle, world: World, name: str) -> None:
    truth = oracle.issue(world.issues[name])
    answers = writer.follow("issue_list", owner=world.org, name=world.repo, state=truth["state"], limit=50)
    row = next(row for answer in answers for row in answer.rows if row["number"] == truth["number"])
    assert row["title"] == truth["title"]
    assert sorted(row["labels"]) == sorted(label_names(truth)) and row["comments"] == truth["comments"]
    shown = next(answer for answer in answers if row in answer.rows)
    assert_title_shown(shown, truth["title"])


@pytest.mark.parametrize("size", THREADS)
def test_reading_a_long_thread_page_by_page(writer: Agent, oracle: Oracle, world: World, size: int) -> None:
    number = world.issues[f"thread{size}"]
    answers = [writer.call("issue_get", owner=world.org, name=world.repo, number=number)]
    while (step := answers[-1].hint("more comments")) is not None:
        answers.append(writer.call(step[0], **step[1]))
        assert len(answers) < 20, "the comment hints never end"
    truth = oracle.comments(number)
    shown = [comment for answer in answers for comment in answer.data["comments"]]
    assert [c["id"] for c in shown] == [c["id"] for c in truth], "every comment once, oldest first"
    assert [c["author"] for c in shown] == [c["user"]["login"] for c in truth]
    assert all(answer.data["comments_total"] == len(truth) == size for answer in answers)


def test_reading_the_merged_pull_request(writer: Agent, oracle: Oracle, world: World) -> None:
    answer = writer.call("issue_get", owner=world.org, name=world.repo, number=world.merged)
    truth = oracle.issue(world.merged)
    assert_same_issue(answer.data, truth)
    assert answer.data["is_pull"] and answer.data["merged"] is truth["pull_request"]["merged"] is True
    assert "merged pull request" in answer.text.splitlines()[0]


def test_reading_a_reviewed_pull_request_shows_its_reviews(
    writer: Agent, target: Target, oracle: Oracle, world: World
) -> None:
    """A review's text is not among the issue's comments on the server; an agent reading the pull request with
    read:repository (which Gitea requires for reviews) sees it, inline comments too, and the plain comment."""
    agent = Agent(target, world, "writer_repo")
    answer = agent.call("issue_get", owner=world.org, name=world.repo, number=world.reviewed, max_chars=0)
    reviews, comments = oracle.reviews(world.reviewed), oracle.comments(world.reviewed)
    inline = [c for r in reviews for c in oracle.review_comments(world.reviewed, r["id"])]
    assert reviews and comments and inline
    for text in [r["body"] for r in reviews if r["body"]] + [c["body"] for c in comments + inline]:
        assert text in answer.text, f"{text!r} is missing from\n{answer}"
    shown = answer.data["reviews"]
    assert [(r["id"], r["state"], r["body"]) for r in shown] == [(r["id"], r["state"], r["body"]) for r in reviews]


def test_a_pull_request_read_without_read_repository_says_its_reviews_are_missing(
    writer: Agent, oracle: Oracle, world: World
) -> None:
    """With the documented scopes alone the server refuses the review route; the agent still reads each review's
    text (from the timeline) and is told that the state and the inline comments need read:repository."""
    answer = writer.call("issue_get", owner=world.org, name=world.repo, number=world.reviewed, max_chars=0)
    reviews = oracle.reviews(world.reviewed)
    inline = [c["body"] for r in reviews for c in oracle.review_comments(world.reviewed, r["id"])]
    assert reviews and inline, "the server holds a review with inline comments"
    assert [(r["id"], r["body"]) for r in answer.data["reviews"]] == [(r["id"], r["body"]) for r in reviews]
    assert all(r["state"] is None for r in answer.data["reviews"])
    assert "need read:repository" in answer.text and not [text for text in inline if text in answer.text]


def test_labels_with_commas_read_as_one_label_each(writer: Agent, oracle: Oracle, world: World) -> None:
    """`labels bug, needs info, urgent` reads as three labels: a name holding a comma must stand apart (quoted)."""
    number = next(row["number"] for row in oracle.every() if {"needs info, urgent", "org, wide"} <= label_names(row))
    answer = writer.call("issue_get", owner=world.org, name=world.repo, number=number)
    facts = answer.text.splitlines()[1]
    for name in ("needs info, urgent", "org, wide"):
        assert f'"{name}"' in facts or f"'{name}'" in facts, answer


def test_a_reader_reads_what_the_writer_reads(reader: Agent, writer: Agent, world: World) -> None:
    args = {"owner": world.org, "name": world.repo, "number": world.issues["thread95"], "comments_page": 3}
    assert reader.call("issue_get", **args).data == writer.call("issue_get", **args).data


# -- a repository that was renamed ----------------------------------------------------------------------------


def as_advised(agent: Agent, answer: Answer, world: World) -> Answer:
    """gitea_mcp follows no redirect (docs/decisions/0005-moves-outside-the-allowlist.md): it names the new place
    and the call to make. The agent makes that call."""
    if not answer.error:
        return answer
    advice = re.search(r"call again with owner=(\S+) name=(\S+?)\.?$", answer.text)
    assert advice is not None and advice[2] == world.moved_to, answer
    return agent.call(answer.tool, **{**answer.args, "owner": advice[1], "name": advice[2]})


def test_listing_a_moved_repository_by_its_old_name(writer: Agent, oracle: Oracle, world: World) -> None:
    answer = as_advised(writer, writer.call("issue_list", owner=world.org, name=world.moved_from), world)
    truth = oracle.issues(repo=world.moved_to, state="open", type="issues").rows
    assert sorted(row["number"] for row in answer.rows) == sorted(row["number"] for row in truth)
    assert {row["html_url"] for row in answer.rows} == {row["html_url"] for row in truth}


def test_reading_an_issue_of_a_moved_repository(writer: Agent, oracle: Oracle, world: World) -> None:
    number = world.moved_issues[0]
    answer = writer.call("issue_get", owner=world.org, name=world.moved_from, number=number)
    answer = as_advised(writer, answer, world)
    assert_same_issue(answer.data, oracle.issue(number, repo=world.moved_to))
    assert f"{world.org}/{world.moved_to}#{number}" in answer.text.splitlines()[0]


@pytest.mark.parametrize("tool", ["issue_list", "issue_get", "issue_comment"])
def test_a_repository_moved_outside_the_allowlist_is_not_followed_nor_named(
    writer: Agent, oracle: Oracle, world: World, tool: str
) -> None:
    """The server moved it to another organisation; the tools refuse without naming it (decision 0005), and a write
    writes nothing there."""
    number = world.issues["gone"]
    args = {"owner": world.org, "name": world.gone}
    if tool != "issue_list":
        args["number"] = number  # type: ignore[assignment]
    if tool == "issue_comment":
        args["body"] = "Acceptance: must not land"
    answer = writer.call(tool, **args)
    moved = oracle.http.ok("GET", f"/repos/{world.away}/{world.gone}/issues/{number}", oracle.token)
    assert moved["number"] == number and moved["comments"] == 0, "the server holds it elsewhere, untouched"
    assert answer.error and "moved" in answer.text and world.away.lower() not in answer.text.lower(), answer
