"""toolkit/lockdown.py's own cases: the verdict from what the forge answered, the cache, the withheld line. The
tools under lockdown: tests/tools/test_lockdown.py."""

from __future__ import annotations

from typing import Any

import pytest

from gitea_mcp.gitea.errors import Forbidden, NotFound
from gitea_mcp.gitea.models import Comment, Issue
from gitea_mcp.toolkit import lockdown
from gitea_mcp.toolkit.lockdown import OFF, TITLE_MARK, Decision, TrustCache, Verdict
from tests.support.gitea_json import comment, issue


@pytest.mark.parametrize(
    ("role", "teams", "members", "verdict"),
    [
        ("write", [], [], Verdict.WRITER),
        ("owner", None, [], Verdict.WRITER),
        ("read", None, [], Verdict.NOT_WRITER),  # a user's repository: no teams
        ("read", [], [], Verdict.NOT_WRITER),  # an organisation's without writer teams
        ("read", ["t"], [frozenset({"bob"})], Verdict.NOT_WRITER),
        ("read", ["t"], [frozenset({"carol"})], Verdict.WRITER),
        ("read", ["t"], [frozenset({"bob"}), "refused"], Verdict.UNCONFIRMED),
        ("refused", ["t"], [frozenset({"carol"})], Verdict.WRITER),
        ("refused", ["t"], [frozenset({"bob"})], Verdict.UNCONFIRMED),
        ("refused", None, [], Verdict.UNCONFIRMED),
        ("read", "refused", [], Verdict.UNCONFIRMED),
        ("missing", None, [], Verdict.NOT_WRITER),  # no such user
    ],
)
def test_verdicts(role: str, teams: Any, members: list[Any], verdict: Verdict) -> None:
    def error(value: Any) -> Any:
        return {"refused": Forbidden("refused", status=403), "missing": NotFound("no", status=404)}.get(value, value)

    given_teams = error(teams) if isinstance(teams, str) else teams
    assert lockdown._verdict(error(role), given_teams, [error(m) for m in members], "carol") is verdict


def test_the_cache_is_bounded_and_expires() -> None:
    cache = TrustCache(ttl=60, entries=2)
    for login in ("a", "b", "c"):
        cache.put("acme/widgets", login, Verdict.WRITER)
    cache.put("acme/widgets", "d", Verdict.UNCONFIRMED)  # never kept
    assert (
        len(cache) == 2 and cache.get("acme/widgets", "a") is None and cache.get("ACME/Widgets", "C") is Verdict.WRITER
    )
    expired = TrustCache(ttl=0)
    expired.put("acme/widgets", "a", Verdict.NOT_WRITER)
    assert expired.get("acme/widgets", "a") is None


def test_a_decision_screens_texts_and_titles_and_off_screens_nothing() -> None:
    decision = Decision(
        True, {("acme/widgets", "alice"): Verdict.WRITER, ("acme/widgets", "carol"): Verdict.NOT_WRITER}
    )
    theirs = Issue.model_validate(issue(7, "Evil", author="carol", body="Obey"))
    mine = Comment.model_validate(comment(1, "Fine", "alice"))
    unknown = Comment.model_validate(comment(2, "Who?", "dave"))
    assert decision.screen("acme/widgets", theirs).title == TITLE_MARK + "Evil"
    assert (decision.screen("acme/widgets", theirs).body or "").endswith("who has no write access to acme/widgets]")
    assert decision.screen("Acme/Widgets", mine).body == "Fine"
    assert "could not confirm" in decision.screen("acme/widgets", unknown).body
    assert OFF.screen("acme/widgets", theirs) is theirs
    empty = Issue.model_validate(issue(8, "Quiet", author="carol", body=""))
    assert decision.screen("acme/widgets", empty).body == ""  # nothing to withhold


def test_a_text_from_no_user_of_this_forge_is_withheld() -> None:
    migrated = {**comment(3, "Imported", "ghost"), "user": {**comment(3, "x")["user"], "id": -1, "login": "Ghost"}}
    item = Comment.model_validate({**migrated, "original_author": "someone@github"})
    assert lockdown.author(item) == ("someone@github", False)
    assert Decision(True).verdict("acme/widgets", item) is Verdict.NOT_WRITER


def test_the_withheld_line_is_one_line_and_names_no_more_than_the_author() -> None:
    line = lockdown.withheld_line("bob", "acme/widgets", Verdict.NOT_WRITER)
    assert line == "[withheld by lockdown: written by @bob, who has no write access to acme/widgets]"
    odd = lockdown.withheld_line("a b\n", "acme/widgets", Verdict.UNCONFIRMED)
    assert "\n" not in odd and odd.startswith('[withheld by lockdown: written by "a b')
