"""label_list: the labels an issue of a repository can carry, the repository's and its organisation's, one line each,
grouped by exclusive scope.

Read whole through the catalogue (gitea/catalog.py: explicit pages, since `/labels` ignores `limit` without `page`),
afresh on every call (an agent listing labels wants them as they are now; the write tools then find the same ones
cached). Archived labels are marked, not left out: issues still carry them and Gitea still adds them, and an agent
reading an issue that shows one should find it here. The organisation's labels need read:organization, which the
documented token lacks: then one line says they are missing, and the repository's labels are still listed.
"""

from __future__ import annotations

import re
from itertools import groupby

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp.gitea.catalog import now
from gitea_mcp.gitea.errors import NotFound
from gitea_mcp.gitea.models import Label
from gitea_mcp.toolkit import envelope, labels, missing, render, scopes
from gitea_mcp.toolkit.arguments import Arguments, Owner, RepoName
from gitea_mcp.toolkit.base import Deps, ToolDefinition, guard
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.reading(
    "label_list",
    "List the labels a repo's issues can carry: its own and its org's, archived ones marked, grouped by scope (an "
    "issue carries one label per exclusive scope).",
    scopes.READ_ISSUE,
    toolset="labels",
    order=3,  # with the reads, after issue_get (ties go by name), before the writes
    budget=400,
    listed_budget=1060,
    scope_note=f"(and `{scopes.READ_ORGANIZATION}` for the organisation's labels)",
)
NAME = SPEC.name
_HEX = re.compile(r"[0-9a-fA-F]{3,8}")


_ORG_SCOPE = scopes.READ_ORGANIZATION


class LabelRow(BaseModel):
    name: str
    color: str = Field(description="Hex, without '#'.")
    description: str
    exclusive: bool
    scope: str | None = Field(description="An exclusive label's name up to its last '/'.")
    archived: bool
    org: bool = Field(description="The organisation's label, not the repo's.")


class LabelListResult(BaseModel):
    labels: list[LabelRow]
    total: int
    org_listed: bool = Field(description="False: the token may not list the org's labels (read:organization).")


class LabelArgs(Arguments):
    owner: Owner
    name: RepoName


def run(deps: Deps, args: LabelArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    return guard(lambda: _run(deps, args), SPEC, deps)


def _run(deps: Deps, args: LabelArgs) -> CallToolResult:
    owner, name = deps.policy.check_repo(args.owner, args.name)
    started = now()
    try:
        own, org = deps.client.gather(
            lambda: deps.catalog.labels(deps.client, owner, name, started),
            lambda: deps.catalog.org_labels(deps.client, owner, started),
        )
    except NotFound:  # the organisation's 404 is no organisation (catalog.org_labels): this one is the repository's
        raise missing.repo_missing(deps, owner, name) from None
    found = [_row(label, False) for label in own] + [_row(label, True) for label in org or []]
    out = LabelListResult(labels=_grouped(found), total=len(found), org_listed=org is not None)
    return envelope.result(_text(owner, name, out), out)


def _row(label: Label, org: bool) -> LabelRow:
    return LabelRow(
        name=label.name,
        color=label.color,
        description=label.description,
        exclusive=label.exclusive,
        scope=labels.scope_of(label),
        archived=label.is_archived,
        org=org,
    )


def _grouped(rows: list[LabelRow]) -> list[LabelRow]:
    """Labels without a scope first, then each scope's together, scopes by name; within each, Gitea's order (by
    name), the repository's before the organisation's."""
    return sorted(rows, key=lambda row: (row.scope is not None, row.scope or ""))


def _text(owner: str, name: str, out: LabelListResult) -> str:
    org_count = sum(row.org for row in out.labels)
    header = f"{owner}/{name} labels: {out.total}"
    if org_count:
        header += f" ({org_count} of the organisation {owner})"
    lines = [header]
    if not out.org_listed:
        lines.append(
            f"note: labels of the organisation {owner}, if it is one, are not listed: the token lacks {_ORG_SCOPE}."
        )
    if out.labels:
        legend = "rows: name #color [org,archived] description"
        if any(row.scope for row in out.labels):
            legend += "; the labels under a scope are exclusive: an issue carries one of them"
        lines.append(legend)
    for scope, rows in groupby(out.labels, key=lambda row: row.scope):
        indent = ""
        if scope is not None:
            lines.append(f"scope {render.label_inline(scope)}:")
            indent = "  "
        lines.extend(indent + format_row(row) for row in rows)
    if out.labels:
        repo_args = render.args_text({"owner": owner, "name": name})
        lines.extend(render.help_lines([f"label an issue: issue_update {repo_args} number=<number> add_labels=<name>"]))
    return "\n".join(lines)


def format_row(row: LabelRow) -> str:
    parts = [render.label_inline(row.name)]
    if row.color:  # Gitea keeps six hex digits; anything else (a proxy's, a migration's) is shown quoted
        parts.append(f"#{row.color}" if _HEX.fullmatch(row.color) else render.quoted(row.color))
    marks = [mark for mark, on in (("org", row.org), ("archived", row.archived)) if on]
    if marks:
        parts.append(f"[{','.join(marks)}]")
    if row.description.strip():
        parts.append(render.inline(row.description))
    return " ".join(parts)


TOOL = ToolDefinition(SPEC, LabelArgs, LabelListResult, run)
