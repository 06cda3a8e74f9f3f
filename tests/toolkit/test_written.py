"""An issue as a write left it: a title Gitea cut is said to be cut, and the text's first line names the write."""

from __future__ import annotations

from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit.written import title_notes, written, written_text
from tests.support.gitea_json import issue


def test_a_title_gitea_cut_is_said_to_be_cut() -> None:
    sent = "x" * 300
    kept = Issue.model_validate(issue(7, "x" * 255))
    assert title_notes(sent, kept) == [
        "Gitea shortened the title to 255 of its 300 characters (it cuts titles longer than 255 bytes); the title "
        "above is what it kept."
    ]
    assert title_notes("short", Issue.model_validate(issue(7, "short"))) == []


def test_the_text_names_the_write_the_url_and_the_warnings() -> None:
    out = written(Issue.model_validate(issue(7, "Crash")), "created", ["a label was dropped"])
    lines = written_text("acme", "widgets", out, "created", []).splitlines()
    assert lines[0] == "acme/widgets#7 created: Crash"
    assert lines[1] == "url https://gitea.test/acme/widgets/issues/7"
    assert lines[-1] == "warning: a label was dropped"
    assert (out.outcome, out.warnings) == ("created", ["a label was dropped"])
