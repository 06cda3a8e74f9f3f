"""Issue dependencies ("blocked by"): the references an agent writes, what Gitea lists, and the cycle walk.

Gitea lists an issue's blockers at `GET …/issues/{n}/dependencies` and adds or removes one through POST and DELETE
there, the blocker named as `{owner, repo, index}`. It refuses only a cycle of two issues (a blank 500, as for a
duplicate); a longer one it accepts, and then none of its issues can be closed. Where a repository has dependencies
turned off, every `…/dependencies` route answers 404, as for a missing issue (docs/server-behaviour.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.errors import GiteaError, NotFound
from gitea_mcp.gitea.models import Issue
from gitea_mcp.toolkit.arguments import split_names
from gitea_mcp.toolkit.base import Deps

# How many issues the cycle walk reads at most before it stops and says so: each is one request, in rounds by depth.
WALK_LIMIT = 50
LISTED = {"page": "1", "limit": "50"}  # with `page`: without it some routes ignore `limit`
TURNED_OFF = "Issue dependencies are turned off in {repo}: nothing was changed. A repository admin can turn them on."


def _texts(value: Any) -> Any:
    """One reference, a list, or a comma-separated text (as every list argument takes, `split_names`); a number as
    JSON reads as its text (`true` is no number: left for the type check to refuse)."""
    items = [str(x) if _number(x) else x for x in value] if isinstance(value, list) else value
    return split_names(str(items) if _number(items) else items)


def _number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# Issue numbers, or `owner/name#N` for another repository (`#N` too); published as strings, numbers taken too.
References = Annotated[
    list[str], BeforeValidator(_texts), WithJsonSchema({"type": "array", "items": {"type": "string"}})
]


@dataclass(frozen=True)
class Ref:
    owner: str
    name: str
    number: int

    def meta(self) -> dict[str, Any]:
        """As Gitea's IssueMeta names it."""
        return {"owner": self.owner, "repo": self.name, "index": self.number}

    def same(self, other: Ref) -> bool:
        return (self.owner.lower(), self.name.lower(), self.number) == (
            other.owner.lower(),
            other.name.lower(),
            other.number,
        )

    def shown(self, here: Ref) -> str:
        """`#5` in the issue's own repository, `owner/name#5` in another."""
        mine = (self.owner.lower(), self.name.lower()) == (here.owner.lower(), here.name.lower())
        return f"#{self.number}" if mine else f"{self.owner}/{self.name}#{self.number}"


_REFERENCE = re.compile(r"(?:(?P<owner>[^/#\s]+)/(?P<name>[^/#\s]+))?#?(?P<number>[0-9]{1,10})")


def parse(deps: Deps, here: Ref, given: int | str) -> Ref:
    """A reference as the agent wrote it; another repository must be inside the allowlist (refused before any
    request otherwise, as every owner is)."""
    if isinstance(given, int):
        number, owner, name = given, here.owner, here.name
    else:
        found = _REFERENCE.fullmatch(given.strip())
        if found is None:
            raise BadArgument(f"{given!r} is not an issue: give its number, or owner/name#N for another repository.")
        number = int(found["number"])
        owner, name = (
            deps.policy.check_repo(found["owner"], found["name"]) if found["owner"] else (here.owner, here.name)
        )
    if number < 1:
        raise BadArgument(f"{given!r} is not an issue number (they start at 1).")
    ref = Ref(owner, name, number)
    if ref.same(here):
        raise BadArgument(f"an issue cannot block itself ({ref.shown(here)}).")
    return ref


def route(ref: Ref) -> list[Segment]:
    return ["repos", ref.owner, ref.name, "issues", ref.number, "dependencies"]


def blockers(deps: Deps, ref: Ref) -> list[Ref]:
    """The issues that block `ref`: raises NotFound where dependencies are off (or the issue is missing)."""
    listed = deps.client.get(route(ref), LISTED).many(Issue)
    return [ref_of(issue, ref) for issue in listed]


def ref_of(issue: Issue, where: Ref) -> Ref:
    """An issue a dependency route listed, by its repository (`where`'s when the answer names none)."""
    repo = issue.repository
    if repo is None or not repo.owner or not repo.name:
        return Ref(where.owner, where.name, issue.number)
    return Ref(repo.owner, repo.name, issue.number)


@dataclass(frozen=True)
class Walk:
    """What the walk up from a new blocker found: the chain back to the issue (a cycle), or none; `cut` when it
    stopped at WALK_LIMIT issues before reading them all."""

    cycle: list[Ref] | None
    cut: bool


def walk(deps: Deps, blocked: Ref, blocker: Ref) -> Walk:
    """Would `blocker` blocking `blocked` close a cycle? It would if `blocked` is among the blockers of `blocker`,
    or theirs, and so on: read breadth first, one round per depth, at most WALK_LIMIT issues. An issue whose
    blockers cannot be read (dependencies off there, or no access) is a dead end."""
    parents: dict[tuple[str, str, int], Ref | None] = {key(blocker): None}
    level, read = [blocker], 0
    while level:
        level = level[: WALK_LIMIT - read]
        read += len(level)
        answers = deps.client.parallel(*(_reader(deps, ref) for ref in level))
        next_level: list[Ref] = []
        for ref, found in zip(level, answers, strict=True):
            for parent in found:
                if parent.same(blocked):
                    return Walk(_chain(parents, ref), cut=False)
                if key(parent) not in parents:
                    parents[key(parent)] = ref
                    next_level.append(parent)
        if next_level and read >= WALK_LIMIT:
            return Walk(None, cut=True)
        level = next_level
    return Walk(None, cut=False)


def _reader(deps: Deps, ref: Ref) -> Callable[[], list[Ref]]:
    def read() -> list[Ref]:
        try:
            return blockers(deps, ref)
        except NotFound:
            return []

    return read


def key(ref: Ref) -> tuple[str, str, int]:
    return ref.owner.lower(), ref.name.lower(), ref.number


def _chain(parents: dict[tuple[str, str, int], Ref | None], last: Ref) -> list[Ref]:
    """From the new blocker up to `last`, whose blocker is the issue itself."""
    chain: list[Ref] = [last]
    while (parent := parents[key(chain[-1])]) is not None:
        chain.append(parent)
    return chain[::-1]


def cycle_refusal(here: Ref, blocker: Ref, chain: list[Ref]) -> ToolFailure:
    through = " → ".join(ref.shown(here) for ref in [*chain, here])
    return ToolFailure(
        f"{blocker.shown(here)} cannot block {here.shown(here)}: that would close a cycle ({through}, each blocked "
        "by the next), and no issue in it could ever be closed. Nothing was changed."
    )


def failed_write(exc: GiteaError, ref: Ref, here: Ref) -> GiteaError | ToolFailure:
    """A refusal of one dependency write, in words: a missing blocker is 404 `IsErrIssueNotExist`."""
    if isinstance(exc, NotFound):
        return ToolFailure(f"{ref.shown(here)}: no such issue, or this token cannot see it; nothing else was sent.")
    return exc
