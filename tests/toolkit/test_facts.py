"""An issue's facts as the output models hold them: Gitea's exact text, nulls as defaults, only the fields asked."""

from __future__ import annotations

from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit.facts import issue_facts
from tests.support.gitea_json import issue, label, milestone


def test_the_facts_are_gitea_s_exact_text_and_only_those_asked() -> None:
    gitea = Issue.model_validate(
        issue(7, "  Tabs\tand  spaces ", labels=[label("bug", 1)], assignees=["bob"], milestone_=milestone("v1", 4))
    )
    got = issue_facts(gitea, ["number", "title", "labels", "assignees", "milestone", "is_pull", "not_a_fact"])
    assert got == {
        "number": 7,
        "title": "  Tabs\tand  spaces ",
        "labels": ["bug"],
        "assignees": ["bob"],
        "milestone": "v1",
        "is_pull": False,
    }


def test_absent_facts_are_null() -> None:
    gitea = Issue.model_validate(issue(8, pull=True))
    got = issue_facts(gitea, ["milestone", "closed_at", "due_date", "is_pull"])
    assert got == {"milestone": None, "closed_at": None, "due_date": None, "is_pull": True}
