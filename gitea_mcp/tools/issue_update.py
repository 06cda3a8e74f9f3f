"""issue_update: change only the fields given, labels by name, and return the issue as it now is; close or reopen
with a comment, posted once."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from gitea_mcp.domain import dates
from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.invisible import scrub, scrubbed
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.errors import GiteaError, NoAnswer, NotFound
from gitea_mcp.gitea.models import Comment, Issue, Label
from gitea_mcp.toolkit import (
    dependencies,
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
from gitea_mcp.toolkit.arguments import Arguments, LabelNames, Names, Number, Owner, RepoName, Title
from gitea_mcp.toolkit.assignees import nearest
from gitea_mcp.toolkit.base import Deps, ToolDefinition, guard
from gitea_mcp.toolkit.dependencies import Ref
from gitea_mcp.toolkit.spec import ToolSpec

SPEC = ToolSpec(
    name="issue_update",
    description="Change an issue: only the fields given change; labels by name. Returns the issue as it now is.",
    toolset="issues",
    writes=True,
    scopes=(scopes.WRITE_ISSUE,),
    order=5,
    # 1,130 until comment (close or reopen with a comment): 1,098 -> 1,197 bytes; 1,200 until blocked_by_add and
    # blocked_by_remove: 1,197 -> 1,421 bytes
    budget=1425,
    # 1,910 until comment, comment_url and idempotentHint false: 1,900 -> 2,060; 2,060 until the blockers (the two
    # arguments, blocked_by in the answer): 2,060 -> 2,498 bytes
    listed_budget=2500,
    scope_note=f"(and `{scopes.READ_USER}` for `comment`: its duplicate check)",
    destructive=True,
    # A comment files something new: a second call once the duplicate window has passed posts it again.
    idempotent=False,
)
NAME = SPEC.name
# What an issue can be set to (a filter also takes "all"): a Literal, so the schema's enum and our code agree.
NewState = Literal["open", "closed"]


class UpdateArgs(Arguments):
    owner: Owner
    name: RepoName
    number: Number
    title: Title | None = None
    body: Annotated[str | None, Field(description="Replaces the body.")] = None
    state: NewState | None = None
    labels: Annotated[LabelNames | None, Field(description="The whole new set.")] = None
    add_labels: LabelNames = Field(default_factory=list)
    remove_labels: LabelNames = Field(default_factory=list)
    assignees: Annotated[Names | None, Field(description="The whole new set.")] = None
    milestone: Annotated[str | None, Field(description='Title or id; "" clears.')] = None
    due_date: Annotated[str | None, Field(description='YYYY-MM-DD; "" clears.')] = None
    comment: Annotated[str | None, Field(description="Posted once, then state changes; needs state.")] = None
    blocked_by_add: Annotated[dependencies.References, Field(description="Its blockers: N or owner/name#N.")] = Field(
        default_factory=list
    )
    blocked_by_remove: Annotated[dependencies.References, Field(description="Blockers to drop.")] = Field(
        default_factory=list
    )

    def edits_fields(self) -> bool:
        fields = (self.title, self.body, self.state, self.assignees, self.milestone, self.due_date)
        return any(value is not None for value in fields)

    def edits_labels(self) -> bool:
        return self.labels is not None or bool(self.add_labels or self.remove_labels)

    def edits_blockers(self) -> bool:
        return bool(self.blocked_by_add or self.blocked_by_remove)


def run(deps: Deps, args: UpdateArgs) -> CallToolResult:
    """The tool as an agent sees it: a result, or an isError result naming cause and remedy."""
    if args.comment is None:  # an update sets values: calling again is safe, no guard needed
        return guard(lambda: _run(deps, args), SPEC, deps)
    # A comment files something new: calls in flight with the same comment run one at a time (the duplicate check
    # of the next then finds it), and identical calls share one run, across replicas too, as issue_comment's do.
    key = (args.owner.lower(), args.name.lower(), args.number, args.comment.strip())
    whole = (args.model_dump(mode="json"),)
    refusals = functools.partial(_refusals, deps, args)
    return in_flight.run_once(deps, SPEC, False, key, lambda: _run(deps, args), whole, refusals)


def _refusals(deps: Deps, args: UpdateArgs) -> tuple[str, str]:
    """What refuses the call before any request: an owner outside the allowlist, arguments that cannot go together."""
    owner, name = deps.policy.check_repo(args.owner, args.name)
    _check(args)
    return owner, name


def _run(deps: Deps, args: UpdateArgs) -> CallToolResult:
    owner, name = _refusals(deps, args)
    here = Ref(owner, name, args.number)
    adding = [dependencies.parse(deps, here, given) for given in args.blocked_by_add]  # refused before any request
    dropping = [dependencies.parse(deps, here, given) for given in args.blocked_by_remove]
    base: list[Segment] = ["repos", owner, name, "issues", args.number]
    current, catalogue, milestone_id, seen, blocking = _load(deps, owner, name, base, args)
    # Every label is resolved and checked before the first write: a refusal then leaves the issue as it was.
    plan = _plan_labels(catalogue, args) if catalogue is not None else None
    blockers = _plan_blockers(deps, here, blocking, adding, dropping) if args.edits_blockers() else None
    done = Done()
    issue = current
    if args.assignees is not None and not _same_people(args.assignees, current):
        # Alone first: an unknown assignee makes Gitea fail (500) after saving whatever else came with it.
        people = args.assignees
        issue = _patch(deps, base, {"assignees": people}, done, lambda now: _same_people(people, now), people)
        done.changed += ["assignees"] if _same_people(args.assignees, issue) else []  # else see _ignored
    if plan is not None:
        issue = _write_labels(deps, base, issue, plan, args, done)
    asked = _payload(args, milestone_id, current.server_offset)
    kept = written.kept_title(deps, asked["title"]) if "title" in asked else None
    payload = _changes_only(asked, current, kept)
    # The state goes last, alone, after the comment; and a close alone too: Gitea saves the other fields of a PATCH
    # before it refuses to close an issue with open blockers (412), which would leave them changed unsaid.
    alone = args.comment is not None or (payload.get("state") == "closed" and len(payload) > 1)
    state: str | None = payload.pop("state", None) if alone else None
    if payload:
        # Gitea applied a PATCH it shows any field of: what it ignored is then told as from any answer (_ignored).
        issue = _patch(deps, base, payload, done, lambda now: len(_changes_only(payload, now, kept)) < len(payload))
        before, after = _facts(current), _facts(issue)  # what Gitea left as it was is not a change: see _ignored
        done.changed += [_FIELD_OF.get(key, key) for key in payload if before[key] != after[key]]
    if blockers is not None:  # before the state: a close waits for the blockers removed here
        _write_blockers(deps, here, blockers, done)
    posted = _comment(deps, base, args, seen, done) if seen is not None else None
    if state is not None:
        issue = _change_state(deps, base, state, done, posted)
    now: list[Blocker] | None = None
    if blockers is not None:
        issue, now = _after_blockers(deps, base, here, issue, "blocked_by" in done.changed and state is None)
    warnings = _ignored(issue, args, milestone_id)
    notes = [*(written.title_notes(asked["title"], issue) if "title" in asked else []), *done.notes, *warnings]
    notes += blockers.notes if blockers is not None else []
    issue = deps.screen_issues(f"{owner}/{name}", [issue])[0]  # under lockdown: a non-writer's title marked
    out = written.written(issue, "updated" if done.changed else "unchanged", notes)
    verb = (
        f"updated ({', '.join(done.changed)})"
        if done.changed
        else f"unchanged ({'Gitea did not apply what was asked' if warnings else 'it already was as asked'})"
    )
    text = written.written_text(owner, name, out, verb, [])
    if now is not None:
        shown = "; ".join(f"{b.shown} ({b.state}) {render.exact(b.title)}" for b in now) or "none"
        text += f"\nblocked by: {shown}"
    said = UpdatedIssue(**out.model_dump(), blocked_by=now)
    if posted is None:
        return envelope.result(text, said if now is not None else out)
    said = said.model_copy(update={"comment_url": posted.comment.html_url})
    return envelope.result(f"{text}\ncomment {posted.comment.html_url} {_COMMENTED[posted.outcome]}", said)


class Blocker(BaseModel):
    shown: str = Field(description="#N, or owner/name#N in another repository.")
    title: str
    state: str


class UpdatedIssue(written.WrittenIssue):
    """The issue as it now is, and the comment a call with `comment` posted (or found already posted)."""

    comment_url: str | None = Field(default=None, description="The comment's, when comment was given.")
    blocked_by: list[Blocker] | None = Field(default=None, description="Its blockers now, when they were changed.")


# -- blockers (issue dependencies) -------------------------------------------------------------------------------

Blocking = list[Ref] | None  # the issue's blockers before any write; None: dependencies are off there


@dataclass
class BlockerPlan:
    """What to send, after the duplicate and cycle checks: nothing is sent before all of them passed."""

    adding: list[Ref]
    dropping: list[Ref]
    notes: list[str]


def _read_blocking(deps: Deps, here: Ref) -> Blocking:
    try:
        return dependencies.blockers(deps, here)
    except NotFound:  # the issue itself was found (read alongside): dependencies are off in its repository
        return None


def _plan_blockers(deps: Deps, here: Ref, blocking: Blocking, adding: list[Ref], dropping: list[Ref]) -> BlockerPlan:
    """Refuse a repository without dependencies and any cycle before anything is written; one already there (or
    not there, for a removal) is said and not sent: Gitea answers those with a blank 500."""
    if blocking is None:
        raise ToolFailure(dependencies.TURNED_OFF.format(repo=f"{here.owner}/{here.name}"))

    def has(ref: Ref) -> bool:
        return any(ref.same(b) for b in blocking)

    notes = [f"{r.shown(here)} already blocked it: not added again." for r in adding if has(r)]
    notes += [f"{r.shown(here)} did not block it: nothing to remove." for r in dropping if not has(r)]
    plan = BlockerPlan([r for r in adding if not has(r)], [r for r in dropping if has(r)], notes)
    for ref in plan.adding:
        found = dependencies.walk(deps, here, ref)
        if found.cycle is not None:
            raise dependencies.cycle_refusal(here, ref, found.cycle)
        if found.cut:
            plan.notes.append(
                f"The check for a cycle through {ref.shown(here)} stopped after {dependencies.WALK_LIMIT} issues "
                "and found none among them."
            )
    return plan


def _write_blockers(deps: Deps, here: Ref, plan: BlockerPlan, done: Done) -> None:
    """One POST or DELETE per blocker. When no clear answer comes, the blockers read again tell whether it was
    applied; a refusal says what changed before it."""
    writes_ = [("POST", ref, True) for ref in plan.adding] + [("DELETE", ref, False) for ref in plan.dropping]
    for method, ref, there in writes_:
        try:
            deps.client.write(method, dependencies.route(here), ref.meta())
        except NoAnswer as exc:
            now = _read_blocking(deps, here) or []
            if any(ref.same(b) for b in now) is not there:
                why = f"the change of blocker {ref.shown(here)} is not applied: {exc.cause}"
                raise ToolFailure(_already(done, why)) from None
        except GiteaError as exc:
            failure = dependencies.failed_write(exc, ref, here)
            if not done.changed:
                raise failure from None
            raise ToolFailure(f"The {' and '.join(done.changed)} changed already, but {failure}") from None
        if "blocked_by" not in done.changed:
            done.changed.append("blocked_by")


def _after_blockers(
    deps: Deps, base: list[Segment], here: Ref, issue: Issue, changed: bool
) -> tuple[Issue, list[Blocker] | None]:
    """The issue's blockers as they now are, and the issue read again when they changed it last (its updated
    time), in one round; the blockers None, and the issue as it was answered, if either read fails."""

    def read_issue() -> Issue:
        return deps.client.get(base).one(Issue) if changed else issue

    try:
        again, listed = deps.client.gather(
            read_issue, lambda: deps.client.get(dependencies.route(here), dependencies.LISTED).many(Issue)
        )
    except GiteaError:
        return issue, None
    listed = deps.screen_issues(f"{here.owner}/{here.name}", listed)  # under lockdown: non-writers' titles marked
    return again, [Blocker(shown=_shown(i, here), title=i.title, state=i.state) for i in listed]


def _shown(issue: Issue, here: Ref) -> str:
    return dependencies.ref_of(issue, here).shown(here)


_COMMENTED = {
    "created": "posted",
    "created_after_lost_answer": "posted (Gitea's answer was lost; found it by looking it up)",
    "already_existed": "was already there: you posted the same text minutes ago, so it was not posted again",
}


@dataclass(frozen=True)
class Seen:
    """What the duplicate check of a comment reads before anything is written."""

    recent: list[Comment]  # the issue's comments in the duplicate window
    me: str  # the token's login


@dataclass(frozen=True)
class Posted:
    comment: Comment
    outcome: str  # created | created_after_lost_answer | already_existed


def _comment(deps: Deps, base: list[Segment], args: UpdateArgs, seen: Seen, done: Done) -> Posted:
    """The comment, posted once: the same text by this user minutes ago (a retry's) is that comment. A failure
    here says what this call changed before it; the state is not touched."""
    body = args.comment or ""
    existing = duplicates.same_comment(seen.recent, seen.me, body)
    if existing is not None:
        return Posted(existing, "already_existed")
    before = max((comment.id for comment in seen.recent), default=0)
    look = f"Look with issue_get owner={base[1]} name={base[2]} number={args.number}"
    try:
        comment, looked_up = writes.send_once(
            lambda: deps.client.write("POST", [*base, "comments"], {"body": body}).one(Comment),
            lambda: duplicates.same_comment(duplicates.recent_comments(deps, base), seen.me, body, after=before),
            "comment",
            look,
        )
    except (GiteaError, ToolFailure) as exc:
        if not done.changed:
            raise
        raise ToolFailure(
            f"The {' and '.join(done.changed)} changed already; the state was left as it is, since the comment "
            f"failed: {exc}"
        ) from None
    done.changed.append("comment")
    return Posted(comment, "created_after_lost_answer" if looked_up else "created")


def _change_state(deps: Deps, base: list[Segment], state: str, done: Done, posted: Posted | None) -> Issue:
    """The state, in a PATCH of its own. If it fails, the answer says what landed before it: the comment (its URL)
    and the fields this call changed, and that the state did not change, or that it may have."""
    step = Done()  # this step's own failure, told after what came before
    try:
        issue = _patch(deps, base, {"state": state}, step, lambda now: now.state == state)
    except (GiteaError, ToolFailure) as exc:
        if posted is None and not done.changed:
            raise  # nothing landed before it: the failure as it is
        raise ToolFailure(_half(done, posted, exc)) from None
    done.notes += step.notes
    done.changed.append("state")
    return issue


def _half(done: Done, posted: Posted | None, exc: Exception) -> str:
    """A state change that failed after other writes landed: those first, then why the state did not change."""
    cause = str(exc)
    landed = []
    if posted is not None:
        landed.append(
            f"the comment is there ({posted.comment.html_url}, posted earlier)"
            if posted.outcome == "already_existed"
            else f"the comment was posted ({posted.comment.html_url})"
        )
    fields = [name for name in done.changed if name != "comment"]
    if fields:
        landed.append(f"the {' and '.join(fields)} changed")
    unsure = isinstance(exc, ToolFailure) and not isinstance(exc, Blocked)  # no clear answer: see _step
    rest = cause[0].lower() + cause[1:] if unsure else f"the state did not change: {cause}"
    said = " and ".join(landed)
    return f"{said[0].upper()}{said[1:]}, but {rest}"


class Blocked(ToolFailure):
    """Gitea refused to close an issue that still has open blockers: nothing of that PATCH's state was applied."""


@dataclass
class Done:
    """What this call changed so far: a later failure must say so, since nothing is rolled back."""

    changed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


_FIELD_OF = {"unset_due_date": "due_date"}  # a payload key as the field it changes


def _patch(
    deps: Deps,
    base: list[Segment],
    payload: dict[str, Any],
    done: Done,
    applied: Callable[[Issue], bool],
    assignees: list[str] | None = None,
) -> Issue:
    """One PATCH; when no clear answer came, the issue as read again, if it shows the change (`applied`)."""
    what = f"change of {', '.join(_FIELD_OF.get(key, key) for key in payload)}"
    return _step(
        deps,
        base,
        done,
        what,
        lambda: deps.client.write("PATCH", base, payload).one(Issue),
        lambda now: now if applied(now) else None,
        assignees,
    )


S = TypeVar("S")


def _step(
    deps: Deps,
    base: list[Segment],
    done: Done,
    what: str,
    write: Callable[[], S],
    applied: Callable[[Issue], S | None],
    assignees: list[str] | None = None,
) -> S:
    """One write of this call. Sent once; if it was sent and no clear answer came (lost, a proxy's 5xx page, a
    body cut short), the issue is read again and the step counts as done when the issue shows it (`applied`), so
    what is told changed is what the issue shows, never a guess. An update sets values, so calling again is safe."""
    try:
        return write()
    except NoAnswer as exc:
        lost = exc
    except GiteaError as exc:
        raise _failed(exc, done) from None
    try:
        found = writes.look_up(lambda: applied(deps.client.get(base).one(Issue)), lost)
    except GiteaError as exc:
        raise ToolFailure(
            _already(
                done,
                f"the {what} may or may not have been applied: {lost.cause}, and reading the issue again "
                f"failed too ({exc}). Read it with issue_get before calling again.",
            )
        ) from None
    if found is None:
        if assignees is not None and lost.settled and lost.status == 500:
            # Gitea answers a bare 500 for an assignee that does not exist or cannot be assigned here.
            who = ", ".join(repr(a) for a in assignees)
            owner, name = str(base[1]), str(base[2])
            raise ToolFailure(
                f"Gitea could not assign {who} (HTTP 500): no such user, or one who cannot be assigned "
                f"in this repository; nothing else was changed. {nearest(deps, owner, name, assignees)}"
            )
        raise ToolFailure(
            _already(
                done,
                f"the {what} is not applied: {lost.cause}, and the issue read again does not show it. "
                "Calling issue_update again is safe: it sends only what is not yet as asked.",
            )
        )
    done.notes.append(f"Gitea's answer to the {what} did not come through; the issue read again shows it applied.")
    return found


def _already(done: Done, rest: str) -> str:
    """`rest` after what this call changed before it failed, which stays changed: nothing is rolled back."""
    return f"The {' and '.join(done.changed)} changed already; {rest}" if done.changed else rest[0].upper() + rest[1:]


def _failed(exc: GiteaError, done: Done) -> ToolFailure | GiteaError:
    """A clear refusal, or a write never sent: that step changed nothing, but earlier ones did."""
    if exc.status == 412 and "open dependencies" in exc.gitea_message:
        # Gitea 1.25.4 and Forgejo 12.0.4 alike: "cannot close this issue ... because it still has open dependencies"
        blocked = Blocked(
            "Gitea refuses to close this issue: it is blocked by issues still open (HTTP 412, open dependencies). "
            "Close those first, or remove them as its blockers."
        )
        if not done.changed:
            return blocked
        return ToolFailure(f"The {' and '.join(done.changed)} changed already, but {blocked}")
    return (
        ToolFailure(f"The {' and '.join(done.changed)} changed already, but the rest did not: {exc}")
        if done.changed
        else exc
    )


@dataclass(frozen=True)
class LabelPlan:
    """The labels a call asks for, resolved against the catalogue: a whole new set, or additions and removals."""

    wanted: list[Label] | None  # the whole new set (labels=), or None for add_labels/remove_labels
    adding: list[Label]
    dropping: list[Label]
    names: list[str]  # names left to Gitea to resolve (organisation labels this token cannot see)


def _plan_labels(catalogue: labels.LabelSet, args: UpdateArgs) -> LabelPlan:
    """Resolve every name and refuse two labels of one exclusive scope, before anything is written."""
    if args.labels is not None:
        wanted, names = catalogue.resolve(args.labels)
        labels.refuse_scope_clashes(wanted)
        return LabelPlan(wanted, [], [], names)
    adding, names = catalogue.resolve(args.add_labels)
    labels.refuse_scope_clashes(adding)
    dropping, _ = catalogue.resolve(args.remove_labels)
    return LabelPlan(None, adding, dropping, names)


def _write_labels(
    deps: Deps, base: list[Segment], issue: Issue, plan: LabelPlan, args: UpdateArgs, done: Done
) -> Issue:
    """Removals through DELETE, additions through POST, a whole set through PUT; then the labels as they are."""
    before = issue.labels
    have = {label.name for label in before}
    after = list(before)

    def step(what: str, write: Callable[[], list[Label]], applied: Callable[[list[Label]], bool]) -> None:
        nonlocal after
        after = _step(deps, base, done, what, write, lambda now: now.labels if applied(now.labels) else None)
        if _ids(before) != _ids(after) and "labels" not in done.changed:
            done.changed.append("labels")  # at once: a later step's failure must say so

    if plan.wanted is not None:
        wanted, names = plan.wanted, set(plan.names)
        if {label.name for label in wanted} == have and not names:
            return issue
        step(
            "change of labels",
            lambda: labels.set_exactly(deps, base, wanted, plan.names),
            lambda now: _ids(wanted) <= _ids(now) and all(x.id in _ids(wanted) or x.name in names for x in now),
        )
    for label in (label for label in plan.dropping if label.name in have):
        rest = [x for x in after if x.id != label.id]
        step(
            f"removal of label {label.name!r}",
            partial(_remove, deps, base, label, rest),
            partial(_gone, label),
        )
    if plan.wanted is None and ({label.name for label in plan.adding} - have or plan.names):
        # names: organisation labels only Gitea finds
        adding = plan.adding
        step(
            "addition of labels",
            lambda: labels.add(deps, base, adding, plan.names),
            lambda now: _ids(adding) <= _ids(now),
        )
    done.notes += _label_notes(args, before, after)
    return issue.model_copy(update={"labels": after})


def _remove(deps: Deps, base: list[Segment], label: Label, rest: list[Label]) -> list[Label]:
    """DELETE answers nothing: the labels after it are the ones before without this one."""
    labels.remove(deps, base, label)
    return rest


def _gone(label: Label, now: list[Label]) -> bool:
    return label.id not in _ids(now)


def _ids(labels: list[Label]) -> set[int]:
    return {label.id for label in labels}


def _label_notes(args: UpdateArgs, before: list[Label], after: list[Label]) -> list[str]:
    """What the agent did not ask for but Gitea did: an exclusive scope's old label replaced, a name not found."""
    now = scrubbed(label.name for label in after)  # names compared as answers show them, as an agent sends them
    asked = scrubbed(args.labels if args.labels is not None else args.add_labels)
    removed = scrubbed(args.remove_labels)
    notes = []
    replaced = [label.name for label in before if scrub(label.name) not in now | removed]
    if args.labels is None and replaced:
        notes.append(f"Gitea removed {', '.join(replaced)}: an added label of the same exclusive scope replaces it.")
    missing = sorted(asked - now)
    if missing:
        notes.append(f"Gitea did not add {', '.join(missing)}: no such label in the repository or its organisation.")
    return notes


def _ignored(issue: Issue, args: UpdateArgs, milestone_id: int | None) -> list[str]:
    """Gitea silently ignores assignees, milestone and due date from a user who cannot write to the repository."""
    lost = []
    if args.assignees is not None and {a.lower() for a in args.assignees} != {u.login.lower() for u in issue.assignees}:
        lost.append("assignees")
    if milestone_id is not None and (issue.milestone.id if issue.milestone else 0) != milestone_id:
        lost.append("milestone")
    if args.due_date is not None and bool(args.due_date) != bool(issue.due_date):
        lost.append("due date")
    if not lost:
        return []
    return [f"Gitea did not apply {', '.join(lost)}: the token's user may change only title, body and state here."]


def _check(args: UpdateArgs) -> None:
    if args.comment is not None:
        if args.state is None:
            # A comment goes with a close or a reopen; alone it is issue_comment's (and its allow_duplicate).
            raise BadArgument(
                "comment goes with state (close or reopen with a comment); to comment without changing the "
                "state, call issue_comment."
            )
        if not args.comment.strip():
            raise BadArgument("comment is empty; write its text, or leave it out.")
    if not args.edits_fields() and not args.edits_labels() and not args.edits_blockers():
        raise BadArgument(
            "nothing to change: give at least one of title, body, state, labels, add_labels, "
            "remove_labels, assignees, milestone, due_date, blocked_by_add, blocked_by_remove."
        )
    if args.title is not None and not args.title.strip():
        raise BadArgument("title cannot be empty; leave it out to keep the current title.")
    if args.labels is not None and (args.add_labels or args.remove_labels):
        raise BadArgument("give either labels (the whole new set) or add_labels/remove_labels, not both.")
    labels.refuse_too_many(_named(args))


def _load(
    deps: Deps, owner: str, name: str, base: list[Segment], args: UpdateArgs
) -> tuple[Issue, labels.LabelSet | None, int | None, Seen | None, Blocking]:
    """The issue, the label catalogue, the milestone id, what a comment's duplicate check reads and the issue's
    blockers, in one round trip."""
    here = Ref(owner, name, args.number)
    try:
        issue, catalogue, milestone_id, seen, blocking = deps.client.gather(
            lambda: deps.client.get(base).one(Issue),
            lambda: labels.label_set(deps, owner, name, _named(args)) if args.edits_labels() else None,
            lambda: _milestone_id(deps, owner, name, args.milestone),
            lambda: _seen(deps, base) if args.comment is not None else None,
            lambda: _read_blocking(deps, here) if args.edits_blockers() else None,
        )
    except NotFound:
        raise missing.explain_issue_404(deps, owner, name, args.number) from None
    if catalogue is not None:  # the issue's own labels count as known even if the catalogue is stale
        catalogue = catalogue.with_labels(issue.labels)
    return issue, catalogue, milestone_id, seen, blocking


def _seen(deps: Deps, base: list[Segment]) -> Seen:
    recent, me = deps.client.gather(
        lambda: duplicates.recent_comments(deps, base), lambda: deps.catalog.me(deps.client).login
    )
    return Seen(recent, me)


def _named(args: UpdateArgs) -> list[str]:
    return [*(args.labels or []), *args.add_labels, *args.remove_labels]


def _milestone_id(deps: Deps, owner: str, name: str, wanted: str | None) -> int | None:
    if wanted is None:
        return None
    if wanted == "":
        return 0  # Gitea's way to clear the milestone
    return milestones.resolve_milestone(deps, owner, name, wanted).id


def _payload(args: UpdateArgs, milestone_id: int | None, offset: str) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    if args.title is not None:
        payload["title"] = args.title.strip()
    if args.body is not None:
        payload["body"] = args.body
    if args.state is not None:
        payload["state"] = args.state
    if milestone_id is not None:
        payload["milestone"] = milestone_id
    if args.due_date == "":
        payload["unset_due_date"] = True
    elif args.due_date is not None:
        payload["due_date"] = dates.due_instant(args.due_date, offset)
    return payload


def _changes_only(payload: dict[str, Any], current: Issue, kept_title: str | None = None) -> dict[str, Any]:
    """Leave out what is already as asked, so the answer reports real changes only (milestone="" on an issue with
    none is "unchanged", not "updated (milestone)") and a no-op sends no write at all. A long title is compared
    as Gitea keeps it (`kept_title`): sent again, Gitea would record a title change from its cut to the same."""
    now = _facts(current)
    compared = payload if kept_title is None else {**payload, "title": kept_title}
    return {key: payload[key] for key, value in compared.items() if not _same(now.get(key), value, key)}


def _facts(issue: Issue) -> dict[str, object]:
    """The issue's fields under the payload's keys, as a payload would set them."""
    return {
        "title": issue.title.strip(),  # the title is sent stripped; one with spaces at either end is the same
        "body": issue.body or "",
        "state": issue.state,
        "milestone": issue.milestone.id if issue.milestone else 0,
        "unset_due_date": issue.due_date is None or None,
        "due_date": f"{issue.due_date}T12:00:00" if issue.due_date else None,
    }


def _same_people(asked: list[str], current: Issue) -> bool:
    """Whether the issue already has exactly these assignees (logins compare case-insensitively, as Gitea's do):
    then nothing is sent, and nothing is reported changed (Gitea answers such a PATCH 201 and changes nothing)."""
    return {login.lower() for login in asked} == {user.login.lower() for user in current.assignees}


def _same(now: object, asked: object, key: str = "") -> bool:
    if key == "title" and isinstance(now, str) and scrub(now) == asked:
        # A title copied back from an answer lacks what every answer drops (domain/invisible): sent as it reads,
        # it is the title there is, and Gitea keeps the one it has.
        return True
    if isinstance(now, str) and isinstance(asked, str) and now.endswith("T12:00:00"):
        return asked.startswith(now)  # a plain due date is sent as noon of that day, in the server's zone
    return now == asked


TOOL = ToolDefinition(SPEC, UpdateArgs, UpdatedIssue, run)
