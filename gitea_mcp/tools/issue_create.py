"""issue_create: file an issue once — label names resolved, duplicates from retries caught."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from gitea_mcp.domain import dates
from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.invisible import scrub, scrubbed
from gitea_mcp.gitea import titles
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.errors import GiteaError, NotFound, Rejected
from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit import (
    duplicates,
    envelope,
    in_flight,
    labels,
    milestones,
    missing,
    render,
    scopes,
    writes,
    written,
)
from gitea_mcp.toolkit.arguments import Arguments, Flag, LabelNames, Names, Owner, RepoName, Title
from gitea_mcp.toolkit.assignees import nearest
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec.written_once(
    "issue_create",
    "File a new issue; returns it (number, URL). Safe to retry: the same title and body filed by you in the "
    "last 10 minutes returns that issue instead of a duplicate (allow_duplicate=true files anyway).",
    scopes.WRITE_ISSUE,
    scopes.READ_USER,
    toolset="issues",
    order=4,
    budget=940,
    listed_budget=1720,
)
NAME = SPEC.name


class CreateArgs(Arguments):
    owner: Owner
    name: RepoName
    title: Title
    body: Annotated[str, Field(description="Markdown.")] = ""
    labels: LabelNames = Field(default_factory=list, description="Names.")
    assignees: Names = Field(default_factory=list, description="Usernames.")
    milestone: Annotated[str | None, Field(description="Title or id.")] = None
    due_date: Annotated[str | None, Field(description="YYYY-MM-DD.")] = None
    allow_duplicate: Flag = False  # the description says what it does


def run(deps: Deps, args: CreateArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    # The key is what the duplicate check may take for the same issue: titles Gitea may keep alike share a stem.
    title = args.title.strip()
    key = (args.owner.lower(), args.name.lower(), titles.stem(title), args.body.strip())
    rest = (title, tuple(args.labels), tuple(a.lower() for a in args.assignees), args.milestone, args.due_date)
    refusals = functools.partial(_refusals, deps, args)
    return in_flight.run_once(deps, SPEC, args.allow_duplicate, key, lambda: _run(deps, args), rest, refusals)


def _refusals(deps: Deps, args: CreateArgs) -> tuple[str, str]:
    """What refuses the call before any request: an owner outside the allowlist, an empty title."""
    owner, name = deps.policy.check_repo(args.owner, args.name)
    if not args.title.strip():
        raise BadArgument("title is empty; give the issue a one-line title.")
    return owner, name


def _run(deps: Deps, args: CreateArgs) -> CallToolResult:
    owner, name = _refusals(deps, args)
    title = args.title.strip()
    plan = _prepare(deps, owner, name, args, title)
    login = deps.catalog.me(deps.client).login
    kept = written.kept_title(deps, title)  # what Gitea stores of it, and so what a duplicate's title is
    cutoff = duplicates.window_start(deps)
    if not args.allow_duplicate and (existing := duplicates.same_issue(plan.recent, login, kept, args.body, cutoff)):
        differs, update = _differences(existing, plan, args)
        warnings = [*written.title_notes(title, existing), *differs]
        return _answer(owner, name, _screened(deps, owner, name, existing), "already_existed", warnings, update)

    def post() -> Issue:
        return deps.client.write("POST", ["repos", owner, name, "issues"], plan.payload).one(Issue)

    before = max((issue.number for issue in plan.recent), default=0)

    def find() -> Issue | None:  # only an issue numbered above every one seen before the write can be ours
        recent = duplicates.recent_issues(deps, owner, name)
        return duplicates.same_issue(recent, login, kept, args.body, cutoff, after=before)

    look = f"Look with issue_list owner={owner} name={name} state=all"
    try:
        created, looked_up = writes.send_once(post, find, "issue", look)
    except Rejected as exc:
        raise _refused_assignees(deps, owner, name, args, exc) from None
    created, warnings = _complete(deps, owner, name, created, plan, args)
    outcome = "created_after_lost_answer" if looked_up else "created"
    notes = [*written.title_notes(title, created), *warnings]
    return _answer(owner, name, _screened(deps, owner, name, created), outcome, notes)


def _screened(deps: Deps, owner: str, name: str, issue: Issue) -> Issue:
    """Under lockdown, the title marked where the token's user has no write access here (toolkit/lockdown.py)."""
    return deps.screen_issues(f"{owner}/{name}", [issue])[0]


# Gitea's 422 for an assignee it will not take: no such user, or one without write access to the repository.
_ASSIGNEE_REFUSALS = ("Assignee does not exist", "doesn't have access to repo")


def _refused_assignees(deps: Deps, owner: str, name: str, args: CreateArgs, exc: Rejected) -> Exception:
    """Gitea's refusal as it is, with the nearest login it would assign where an assignee was the cause."""
    if not args.assignees or not any(said in (exc.gitea_message or "") for said in _ASSIGNEE_REFUSALS):
        return exc
    return ToolFailure(f"{exc} {nearest(deps, owner, name, args.assignees)}")


@dataclass(frozen=True)
class Plan:
    payload: dict[str, Any]
    recent: list[Issue]  # issues of the duplicate window, for the duplicate check


def _prepare(deps: Deps, owner: str, name: str, args: CreateArgs, title: str) -> Plan:
    """Resolve names to ids and load recent issues for the duplicate check, all in one round trip."""
    try:
        catalogue, milestone, recent, _ = deps.client.gather(
            lambda: labels.label_set(deps, owner, name, args.labels) if args.labels else None,
            lambda: milestones.resolve_milestone(deps, owner, name, args.milestone) if args.milestone else None,
            lambda: duplicates.recent_issues(deps, owner, name),  # the duplicate check, and what existed before
            lambda: deps.catalog.me(deps.client),
        )
    except NotFound:
        raise missing.repo_missing(deps, owner, name) from None
    # Every name must be known before filing: Gitea would drop an unknown one silently (docs/server-behaviour.md).
    known, _ = catalogue.resolve(args.labels, to_gitea=False) if catalogue else ([], [])
    labels.refuse_scope_clashes(known)  # Gitea would keep both on create, a state no later edit can reproduce
    payload: dict[str, Any] = {"title": title, "body": args.body}
    if known:
        payload["labels"] = [label.id for label in known]
    if milestone is not None:
        payload["milestone"] = milestone.id
    if args.assignees:
        payload["assignees"] = args.assignees
    if args.due_date:
        payload["due_date"] = dates.due_instant(args.due_date)
    return Plan(payload, recent)


def _complete(deps: Deps, owner: str, name: str, issue: Issue, plan: Plan, args: CreateArgs) -> tuple[Issue, list[str]]:
    """Check what Gitea kept — it drops unknown label and milestone ids, and everything but title and body from a
    user who cannot write to the repository, without an error — and add the labels that can still be added."""
    if not _dropped(issue, args):
        return issue, []
    base: list[Segment] = ["repos", owner, name, "issues", issue.number]
    have = scrubbed(label.name for label in issue.labels)  # a name sent back as an answer showed it
    missing_labels = [n for n in args.labels if scrub(n) not in have]
    if missing_labels:
        labels.forget(deps, owner, name)  # our ids may be stale (a label deleted and made anew)
        sent = set(plan.payload.get("labels", []))
        try:
            known, _ = labels.label_set(deps, owner, name, missing_labels).resolve(missing_labels, to_gitea=False)
            renewed = [label for label in known if label.id not in sent]
            if renewed:
                issue = issue.model_copy(update={"labels": labels.add(deps, base, renewed, [])})
        except (GiteaError, ToolFailure) as exc:
            shown = ", ".join(missing_labels)
            return issue, [f"#{issue.number} was created, but its labels {shown} could not be added: {exc}"]
    lost = _dropped(issue, args)
    if not lost:
        return issue, []
    if len(lost) == _asked(args):
        return issue, [f"Gitea did not apply {', '.join(lost)}: the token's user cannot write to {owner}/{name}."]
    return issue, [
        f"Gitea did not apply {', '.join(lost)}: it no longer exists in the repository, or cannot be used there."
    ]


def _asked(args: CreateArgs) -> int:
    return len(args.labels) + len(args.assignees) + bool(args.milestone) + bool(args.due_date)


def _dropped(issue: Issue, args: CreateArgs) -> list[str]:
    have_labels = scrubbed(label.name for label in issue.labels)
    have_assignees = {user.login.lower() for user in issue.assignees}
    lost = [f"label {n!r}" for n in args.labels if scrub(n) not in have_labels]
    lost += [f"assignee {a!r}" for a in args.assignees if a.lower() not in have_assignees]
    lost += ["milestone"] if args.milestone and issue.milestone is None else []
    lost += ["due date"] if args.due_date and not issue.due_date else []
    return lost


def _differences(existing: Issue, plan: Plan, args: CreateArgs) -> tuple[list[str], dict[str, str]]:
    """What this call asked for beyond title and body that the issue filed before does not have (a retry with
    another label, say): none of it was applied. Fields the call left out are no request, so not compared.

    Returns the warning and the issue_update arguments that would apply it."""
    have: dict[str, str] = {}  # argument -> what the issue has, for each argument whose value it lacks
    update: dict[str, str] = {}  # argument -> the value asked, as issue_update takes it
    label_names = [label.name for label in existing.labels]
    if args.labels and {label.id for label in existing.labels} != set(plan.payload.get("labels", [])):
        have["labels"], update["labels"] = ", ".join(label_names), ",".join(args.labels)
    logins = [user.login for user in existing.assignees]
    if args.assignees and {a.lower() for a in args.assignees} != {login.lower() for login in logins}:
        have["assignees"], update["assignees"] = ", ".join(logins), ",".join(args.assignees)
    milestone = existing.milestone
    if args.milestone and (milestone.id if milestone else 0) != plan.payload.get("milestone"):
        have["milestone"], update["milestone"] = milestone.title if milestone else "", args.milestone
    if args.due_date and (existing.due_date or "") != args.due_date.strip()[:10]:
        have["due_date"], update["due_date"] = existing.due_date or "", args.due_date.strip()
    if not update:
        return [], {}
    lists = ("labels", "assignees")
    parts = [
        f"{key.replace('_', ' ')} {have[key] or 'none'} (asked {asked.replace(',', ', ') if key in lists else asked})"
        for key, asked in update.items()
    ]
    intro = f"#{existing.number} already existed, but not as this call asked, and nothing was changed: "
    return [intro + "; ".join(parts) + "."], update


def _answer(
    owner: str, name: str, issue: Issue, outcome: str, warnings: list[str], update: dict[str, str] | None = None
) -> CallToolResult:
    out = written.written(issue, outcome, warnings)
    verb = {
        "created": "created",
        "created_after_lost_answer": "created (Gitea's answer was lost; found it by looking it up)",
        "already_existed": "already existed — you filed the same title and body minutes ago, so nothing new was filed",
    }[outcome]
    hints = []
    if update:
        call = render.args_text({"owner": owner, "name": name, "number": issue.number, **update})
        hints.append(f"to make #{issue.number} as asked, call issue_update {call}.")
    if outcome == "already_existed":
        hints.append("to file it again anyway, call issue_create with allow_duplicate=true.")
    return envelope.result(written.written_text(owner, name, out, verb, hints), out)


TOOL = ToolDefinition(SPEC, CreateArgs, written.WrittenIssue, run)
