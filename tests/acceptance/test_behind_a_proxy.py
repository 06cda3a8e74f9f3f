"""Writes behind a failing proxy: the server did the write, the answer the agent's tool got was a 502 or 504 page,
JSON cut short, or HTML under 200. The administrator then reads the server; the tool's answer must be what it holds.

Run on the stand-in by default and on a real Gitea or Forgejo by URL (tests/acceptance/conftest.py); the proxy is
tests/support/proxy.py on 127.0.0.1, real sockets on both sides.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gitea_mcp.toolkit import writes
from tests.acceptance.agent import Agent
from tests.acceptance.oracle import Oracle, label_names
from tests.acceptance.test_write import assert_answer_is_the_server, new_issue, unique
from tests.acceptance.world import World
from tests.contract.target import Target
from tests.support.proxy import Kind, Proxy, Rule, misbehaving_proxy

KINDS: list[Kind] = ["page_502", "page_504", "cut_short", "html_200"]


@pytest.fixture
def proxy(target: Target) -> Iterator[Proxy]:
    with misbehaving_proxy(target.url) as running:
        yield running


@pytest.fixture
def proxied(target: Target, world: World, proxy: Proxy) -> Agent:
    return Agent(target, world, "writer", url=proxy.url)


@pytest.mark.parametrize("kind", KINDS)
def test_a_create_whose_answer_is_replaced_is_found_once(
    kind: Kind, proxied: Agent, proxy: Proxy, oracle: Oracle, world: World
) -> None:
    proxy.add(Rule("POST", f"/repos/{world.org}/{world.repo}/issues", kind))
    title = unique(f"Acceptance: behind a proxy ({kind})")
    answer = proxied.call("issue_create", owner=world.org, name=world.repo, title=title, body="once")
    [truth] = oracle.titled(title)
    assert answer.data["outcome"] == "created_after_lost_answer", answer
    assert_answer_is_the_server(answer, truth)
    assert [seen.replaced for seen in proxy.seen if seen.method == "POST"] == [True], "sent once, never again"


@pytest.mark.parametrize("kind", KINDS)
def test_a_comment_whose_answer_is_replaced_is_found_once(
    kind: Kind, proxied: Agent, proxy: Proxy, oracle: Oracle, world: World
) -> None:
    number = world.issues["comma"]
    proxy.add(Rule("POST", f"/issues/{number}/comments", kind))
    body = unique(f"Acceptance: a comment behind a proxy ({kind})")
    answer = proxied.call("issue_comment", owner=world.org, name=world.repo, number=number, body=body)
    mine = [c for c in oracle.comments(number) if c["body"] == body]
    assert len(mine) == 1 and answer.data["outcome"] == "created_after_lost_answer", answer
    assert answer.data["id"] == mine[0]["id"]


def test_a_create_the_proxy_never_passed_on_is_an_unknown_outcome(
    proxied: Agent, proxy: Proxy, oracle: Oracle, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0.2)
    proxy.add(Rule("POST", f"/repos/{world.org}/{world.repo}/issues", "page_502", before=True))
    title = unique("Acceptance: stopped at the proxy")
    answer = proxied.call("issue_create", owner=world.org, name=world.repo, title=title)
    assert answer.error and answer.text.startswith("The outcome of the issue is unknown: "), answer
    assert "server error (HTTP 502)" in answer.text and oracle.titled(title) == []


@pytest.mark.parametrize("kind", KINDS)
def test_an_update_whose_title_answer_is_replaced_tells_what_the_issue_shows(
    kind: Kind, writer: Agent, proxied: Agent, proxy: Proxy, oracle: Oracle, world: World
) -> None:
    """Labels first, then the title's PATCH, whose answer the proxy replaces after the server applied it."""
    before = new_issue(writer, world, oracle, labels=["bug"])
    number = before["number"]
    proxy.add(Rule("PATCH", f"/issues/{number}", kind))
    title = unique("Acceptance: renamed behind a proxy")
    answer = proxied.call(
        "issue_update", owner=world.org, name=world.repo, number=number, add_labels=["triage"], title=title
    )
    truth = oracle.issue(number)
    assert truth["title"] == title and label_names(truth) == {"bug", "triage"}
    assert answer.text.splitlines()[0].startswith(f"{world.org}/{world.repo}#{number} updated (labels, title)"), answer
    assert_answer_is_the_server(answer, truth)


def test_an_update_the_proxy_never_passed_on_says_exactly_what_changed(
    writer: Agent, proxied: Agent, proxy: Proxy, oracle: Oracle, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "RECHECK_AFTER", 0.2)
    before = new_issue(writer, world, oracle, labels=["bug"])
    number = before["number"]
    proxy.add(Rule("PATCH", f"/issues/{number}", "page_502", before=True))
    answer = proxied.call(
        "issue_update", owner=world.org, name=world.repo, number=number, add_labels=["triage"], title="Never"
    )
    truth = oracle.issue(number)
    assert truth["title"] == before["title"] and label_names(truth) == {"bug", "triage"}
    assert answer.error and answer.text.startswith(
        "The labels changed already; the change of title is not applied: Gitea's answer did not come through"
    ), answer
