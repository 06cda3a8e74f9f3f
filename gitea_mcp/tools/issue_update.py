"""issue_update: change only the fields given, labels by name, and return the issue as it now is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from gitea_mcp import render, scopes
from gitea_mcp.errors import ToolFailure
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.gitea.models import Issue, Label
from gitea_mcp.tools import missing, writes
from gitea_mcp.tools.base import Deps, Number, Owner, RepoName, choice, guard, make, rfc3339, split_names

NAME = "issue_update"
DESCRIPTION = (
    "Change an issue: only the fields given change; label names, milestone by title or id. "
    "Returns the issue as it now is."
)
ANNOTATIONS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True)
SCOPES = (scopes.WRITE_ISSUE,)
STATES = ("open", "closed")


@dataclass(frozen=True)
class UpdateArgs:
    owner: str
    name: str
    number: int
    title: str | None = None
    body: str | None = None
    state: str | None = None
    labels: list[str] | None = None
    add_labels: list[str] = field(default_factory=list)
    remove_labels: list[str] = field(default_factory=list)
    assignees: list[str] | None = None
    milestone: str | None = None
    due_date: str | None = None

    def edits_fields(self) -> bool:
        fields = (self.title, self.body, self.state, self.assignees, self.milestone, self.due_date)
        return any(value is not None for value in fields)

    def edits_labels(self) -> bool:
        return self.labels is not None or bool(self.add_labels or self.remove_labels)


def run(deps: Deps, args: UpdateArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    return guard(lambda: _run(deps, args), NAME)


def _run(deps: Deps, args: UpdateArgs) -> CallToolResult:
    owner, name = deps.policy.check_repo(args.owner, args.name)
    _check(args)
    base: list[Segment] = ["repos", owner, name, "issues", args.number]
    current, available, milestone_id = _load(deps, owner, name, base, args)
    changed: list[str] = []
    issue = current
    label_ids = _label_ids(current, available, args) if args.edits_labels() else None
    if label_ids is not None and sorted(label_ids) != sorted(label.id for label in current.labels):
        labels = deps.client.write("PUT", [*base, "labels"], {"labels": label_ids}).many(Label)
        issue = issue.model_copy(update={"labels": labels})
        changed.append("labels")
    payload = _payload(args, milestone_id)
    if payload:
        try:
            issue = deps.client.write("PATCH", base, payload).one(Issue)
        except GiteaError as exc:
            raise _partial(exc, changed) from None
        changed += [key for key in ("title", "body", "state", "assignees", "milestone", "due_date") if key in payload]
        changed += ["due_date"] if "unset_due_date" in payload else []
    out = writes.written(issue, "updated" if changed else "unchanged", [])
    verb = f"updated ({', '.join(changed)})" if changed else "unchanged (it already was as asked)"
    return render.result(writes.written_text(owner, name, out, verb, []), out)


def _check(args: UpdateArgs) -> None:
    if not args.edits_fields() and not args.edits_labels():
        raise ToolFailure(
            "nothing to change: give at least one of title, body, state, labels, add_labels, "
            "remove_labels, assignees, milestone, due_date."
        )
    if args.state is not None:
        choice(args.state, STATES, "state")
    if args.title is not None and not args.title.strip():
        raise ToolFailure("title cannot be empty; leave it out to keep the current title.")
    if args.labels is not None and (args.add_labels or args.remove_labels):
        raise ToolFailure("give either labels (the whole new set) or add_labels/remove_labels, not both.")


def _load(
    deps: Deps, owner: str, name: str, base: list[Segment], args: UpdateArgs
) -> tuple[Issue, list[Label], int | None]:
    """The issue, the label catalogue and the milestone id, in one round trip."""
    calls: list[Callable[[], Any]] = [
        lambda: deps.client.get(base).one(Issue),
        lambda: writes.available_labels(deps, owner, name) if args.edits_labels() else [],
        lambda: _milestone_id(deps, owner, name, args.milestone),
    ]
    try:
        issue, labels, milestone_id = deps.client.parallel(*calls)
    except GiteaError as exc:
        if exc.status == 404:
            raise missing.explain_issue_404(deps, owner, name, args.number) from None
        raise
    return issue, labels, milestone_id


def _milestone_id(deps: Deps, owner: str, name: str, wanted: str | None) -> int | None:
    if wanted is None:
        return None
    if wanted == "":
        return 0  # Gitea's way to clear the milestone
    return writes.resolve_milestone(deps, owner, name, wanted).id


def _label_ids(current: Issue, available: list[Label], args: UpdateArgs) -> list[int]:
    """The whole new label set as ids; unknown names fail with the valid ones listed."""
    base = args.labels if args.labels is not None else [label.name for label in current.labels]
    keep = writes.label_ids(available, [*base, *args.add_labels], current)
    drop = set(writes.label_ids(available, args.remove_labels, current))
    return list(dict.fromkeys(label_id for label_id in keep if label_id not in drop))


def _payload(args: UpdateArgs, milestone_id: int | None) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    if args.title is not None:
        payload["title"] = args.title.strip()
    if args.body is not None:
        payload["body"] = args.body
    if args.state is not None:
        payload["state"] = args.state
    if args.assignees is not None:
        payload["assignees"] = args.assignees
    if milestone_id is not None:
        payload["milestone"] = milestone_id
    if args.due_date == "":
        payload["unset_due_date"] = True
    elif args.due_date is not None:
        payload["due_date"] = rfc3339(args.due_date, "due_date")
    return payload


def _partial(exc: GiteaError, changed: list[str]) -> ToolFailure:
    if not changed:
        return exc
    return ToolFailure(f"The labels were changed, but the other fields were not: {exc}")


def make_tool(deps_for: Callable[[Context], Deps]) -> Tool:
    def issue_update(
        owner: Owner,
        name: RepoName,
        number: Number,
        ctx: Context,
        title: Annotated[str | None, Field(description="New title.")] = None,
        body: Annotated[str | None, Field(description="New body (replaces it).")] = None,
        state: Annotated[
            str | None, Field(description="open or closed.", json_schema_extra={"enum": [*STATES, None]})
        ] = None,
        labels: Annotated[list[str] | None, Field(description="The whole new label set (names).")] = None,
        add_labels: Annotated[list[str] | None, Field(description="Label names to add.")] = None,
        remove_labels: Annotated[list[str] | None, Field(description="Label names to remove.")] = None,
        assignees: Annotated[list[str] | None, Field(description="The whole new set of usernames.")] = None,
        milestone: Annotated[str | None, Field(description='Milestone title or id; "" clears.')] = None,
        due_date: Annotated[str | None, Field(description='YYYY-MM-DD; "" clears.')] = None,
    ) -> Annotated[CallToolResult, writes.WrittenIssue]:
        args = UpdateArgs(
            owner, name, number, title, body, state,
            None if labels is None else split_names(labels),
            split_names(add_labels), split_names(remove_labels),
            None if assignees is None else split_names(assignees),
            milestone, due_date,
        )  # fmt: skip
        return run(deps_for(ctx), args)

    return make(issue_update, NAME, DESCRIPTION, ANNOTATIONS)
