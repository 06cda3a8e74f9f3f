"""An issue's facts as the output models hold them: one table from Gitea's model to the fields a model declares."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gitea_mcp.gitea.models import Issue

# The facts of an issue as the structured face holds them: the server's exact text (titles, label and milestone
# names, authors: nothing folded, cleaned or normalised, so they read back and match when sent back; JSON escapes
# line breaks and controls), nulls as defaults. The text face shows them through `exact`, `inline`, `facts_line`.
# One table, built once; `issue_facts` picks the fields a model declares.
_FACTS: dict[str, Callable[[Issue], Any]] = {
    "number": lambda issue: issue.number,
    "title": lambda issue: issue.title,
    "state": lambda issue: issue.state,
    "is_pull": lambda issue: issue.pull_request is not None,
    "author": lambda issue: issue.author,  # original_author of a migrated issue is free text
    "labels": lambda issue: [label.name for label in issue.labels],
    "assignees": lambda issue: [user.login for user in issue.assignees],
    "milestone": lambda issue: issue.milestone.title if issue.milestone else None,
    "comments": lambda issue: issue.comments,
    "created_at": lambda issue: issue.created_at,
    "updated_at": lambda issue: issue.updated_at,
    "closed_at": lambda issue: issue.closed_at,
    "due_date": lambda issue: issue.due_date,
    "html_url": lambda issue: issue.html_url,
}


def issue_facts(issue: Issue, fields: Iterable[str]) -> dict[str, Any]:
    """The named facts of an issue, for the fields an output model declares (unknown names are not facts)."""
    return {field: _FACTS[field](issue) for field in fields if field in _FACTS}
