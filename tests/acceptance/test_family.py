"""Labels, milestones, blockers and closing with a comment, as an agent does: each answer against the admin's reads.

The labels an issue can carry and the milestones with their counts are the server's lists; a blocker added or
removed is what the server's `/dependencies` and `/blocks` then hold, from both sides; a close with a comment is
one comment on the server and the state changed, and a retry posts nothing more.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from tests.acceptance.agent import Agent
from tests.acceptance.oracle import Oracle, Row
from tests.acceptance.world import World
from tests.contract.target import Target


def unique(text: str) -> str:
    return f"{text} {secrets.token_hex(3)}"


def new_issue(writer: Agent, world: World, title: str) -> int:
    answer = writer.call("issue_create", owner=world.org, name=world.repo, title=unique(title))
    return int(answer.data["number"])


# -- labels ---------------------------------------------------------------------------------------------------


def label_facts(row: dict[str, Any]) -> tuple[str, str, str, bool, bool]:
    """A label as both sides can say it: the server's colour may carry a '#', the tool's does not."""
    return row["name"], row["color"].lstrip("#").lower(), row["description"], row["exclusive"], row["archived"]


def server_label(row: Row) -> dict[str, Any]:
    return {**row, "archived": bool(row.get("is_archived"))}


def scope_of(name: str, exclusive: bool) -> str | None:
    return name.rpartition("/")[0] or None if exclusive else None


@pytest.mark.parametrize("role", ["writer", "writer_org"])
def test_listing_the_labels_an_issue_can_carry(target: Target, world: World, oracle: Oracle, role: str) -> None:
    """The repository's labels are the server's `/labels`; the organisation's are its `/orgs/{org}/labels` when the
    token may read them (read:organization), and otherwise left out with a note; exclusive ones grouped by scope."""
    answer = Agent(target, world, role).call("label_list", owner=world.org, name=world.repo)
    own = [server_label(row) for row in oracle.pages(world.path("labels")).rows]
    org = [server_label(row) for row in oracle.pages(f"/orgs/{world.org}/labels").rows]
    rows = answer.data["labels"]
    assert sorted(label_facts(row) for row in rows if not row["org"]) == sorted(map(label_facts, own))
    if answer.data["org_listed"]:
        assert sorted(label_facts(row) for row in rows if row["org"]) == sorted(map(label_facts, org))
    else:
        assert role == "writer" and not any(row["org"] for row in rows), answer
        assert "read:organization" in answer.text, answer
    assert answer.data["total"] == len(rows)
    assert all(row["scope"] == scope_of(row["name"], row["exclusive"]) for row in rows), answer
    scopes = [row["scope"] for row in rows]
    runs = [scope for index, scope in enumerate(scopes) if index == 0 or scopes[index - 1] != scope]
    assert len(runs) == len(set(runs)), f"each scope's labels together: {scopes}"
    for row in rows:  # every label on the text face, and under its scope's heading when it has one
        assert row["name"] in answer.text, answer
    for scope in {scope for scope in scopes if scope}:
        assert f"scope {scope}:" in answer.text, answer
    if role == "writer_org":
        assert answer.data["org_listed"], "a token with read:organization lists the organisation's labels"


# -- milestones -----------------------------------------------------------------------------------------------


def test_listing_every_milestone_with_its_counts(writer: Agent, oracle: Oracle, world: World) -> None:
    answers = writer.follow("milestone_list", owner=world.org, name=world.repo, state="all", limit=2)
    truth = oracle.pages(world.path("milestones"), state="all")
    shown = [row for answer in answers for row in answer.data["milestones"]]

    def facts(row: dict[str, Any]) -> tuple[int, str, str, int, int, str | None]:
        due = row.get("due_on")
        return row["id"], row["title"], row["state"], row["open_issues"], row["closed_issues"], due and due[:10]

    assert sorted(map(facts, shown)) == sorted(map(facts, truth.rows))
    assert len({row["id"] for row in shown}) == len(shown), "each milestone once"
    assert all(answer.data["total"] in (None, *truth.totals, len(truth.rows)) for answer in answers)
    for row in shown:
        assert row["title"] in "\n".join(answer.text for answer in answers)


# -- blockers -------------------------------------------------------------------------------------------------


def blockers(oracle: Oracle, world: World, number: int, side: str) -> list[int]:
    """The issues the server lists on one side: `dependencies` (what blocks it) or `blocks` (what it blocks). One
    page: these issues have at most one, and the routes' paging differs between servers."""
    rows = oracle.http.ok("GET", world.path("issues", number, side), oracle.token, params={"limit": 50})
    return sorted(row["number"] for row in rows)


def shown_sides(writer: Agent, world: World, number: int) -> tuple[list[int], list[int]]:
    data = writer.call("issue_get", owner=world.org, name=world.repo, number=number).data
    assert data["dependencies_note"] is None, data["dependencies_note"]
    assert all(row["repository"] is None for row in data["blocked_by"] + data["blocks"])
    return sorted(row["number"] for row in data["blocked_by"]), sorted(row["number"] for row in data["blocks"])


def test_adding_and_removing_a_blocker_shows_on_both_sides(writer: Agent, oracle: Oracle, world: World) -> None:
    blocked, blocker = new_issue(writer, world, "Acceptance: blocked"), new_issue(writer, world, "Acceptance: blocker")
    args = {"owner": world.org, "name": world.repo, "number": blocked}
    added = writer.call("issue_update", **args, blocked_by_add=[f"#{blocker}"])
    assert blockers(oracle, world, blocked, "dependencies") == [blocker]
    assert blockers(oracle, world, blocker, "blocks") == [blocked]
    assert [row["shown"] for row in added.data["blocked_by"]] == [f"#{blocker}"], added
    assert added.data["outcome"] == "updated", added
    assert shown_sides(writer, world, blocked) == ([blocker], [])
    assert shown_sides(writer, world, blocker) == ([], [blocked])

    removed = writer.call("issue_update", **args, blocked_by_remove=[str(blocker)])
    assert blockers(oracle, world, blocked, "dependencies") == []
    assert blockers(oracle, world, blocker, "blocks") == []
    assert removed.data["blocked_by"] == [], removed
    assert shown_sides(writer, world, blocked) == ([], [])
    assert shown_sides(writer, world, blocker) == ([], [])


# -- close with a comment -------------------------------------------------------------------------------------


def test_closing_with_a_comment_posts_it_once(writer: Agent, oracle: Oracle, world: World) -> None:
    number = new_issue(writer, world, "Acceptance: closed with a comment")
    body = unique("Acceptance: closing, fixed by the last release")
    args = {"owner": world.org, "name": world.repo, "number": number, "state": "closed", "comment": body}
    first = writer.call("issue_update", **args)
    truth = oracle.issue(number)
    [comment] = [c for c in oracle.comments(number) if c["body"] == body]
    assert truth["state"] == "closed" and comment["user"]["login"] == world.writer
    assert first.data["state"] == "closed" and first.data["comment_url"] == comment["html_url"], first

    again = writer.call("issue_update", **args)
    assert [c["id"] for c in oracle.comments(number) if c["body"] == body] == [comment["id"]], "a retry posts nothing"
    assert oracle.issue(number)["state"] == "closed" and truth["comments"] == oracle.issue(number)["comments"]
    assert again.data["comment_url"] == comment["html_url"] and again.data["state"] == "closed", again
