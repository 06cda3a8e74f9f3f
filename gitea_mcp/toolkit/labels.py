"""Label names on writes: resolved to ids, exclusive scopes respected, and what Gitea really kept reported.

Verified on real servers by the contract suite (docs/server-behaviour.md):
- `PUT …/issues/{n}/labels` (replace) keeps only one label per exclusive scope — the alphabetically last — and
  `POST` (add) replaces the issue's old label of that scope. So adding goes through POST, removing through
  DELETE, and a whole new set goes through PUT only after two labels of one scope have been refused here.
- Creating an issue keeps both labels of an exclusive pair and silently drops unknown ids.
- Organisation labels are listed only with read:organization, which gitea_mcp does not ask for; without it they are
  seen on the issues that carry them (`catalog.org_labels_seen`), and then go by id like any other. Gitea resolves
  names itself on `POST …/labels` (organisation labels too, from Gitea 1.23 and on Forgejo), so on an update a
  name seen nowhere is sent as a name and the answer shows whether it existed; creating an issue refuses it first.
- A name the cached catalogue misses is read afresh before anything else is tried (the cache lives 60 s).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from gitea_mcp.domain.failures import BadArgument, ToolFailure
from gitea_mcp.domain.invisible import scrub
from gitea_mcp.domain.policy import MAX_LABEL_NAMES, too_many_labels
from gitea_mcp.gitea.catalog import fresh, org_labels_seen
from gitea_mcp.gitea.client import Segment
from gitea_mcp.gitea.models import Label
from gitea_mcp.toolkit.base import Deps


def refuse_too_many(names: list[str]) -> None:
    """BadArgument, before anything is sent, for more than MAX_LABEL_NAMES label names in one call: those of
    several arguments together, or of a query (each argument alone is refused when parsed: LabelNames)."""
    if len(names) > MAX_LABEL_NAMES:
        raise BadArgument(too_many_labels(len(names)))


@dataclass(frozen=True)
class LabelSet:
    """The labels an issue of one repository may carry, as far as this token can see them."""

    where: str  # "acme/widgets", for messages
    labels: list[Label]  # the repository's, its organisation's (listed, or seen on issues), and the issue's own
    org_readable: bool  # False: organisation labels may exist that this token cannot list
    by_name_on_server: bool  # Gitea resolves organisation label names itself on POST …/labels

    def with_labels(self, more: list[Label]) -> LabelSet:
        """The same set, also knowing `more` (an issue's own labels, known even when the cache is stale)."""
        return dataclasses.replace(self, labels=_unique([*self.labels, *more]))

    def knows(self, names: list[str]) -> bool:
        return all(self.find(name) is not None for name in names)

    def find(self, name: str) -> Label | None:
        """The label of this name, or of this name as the answers show it (scrubbed: domain/invisible.py)."""
        return named(self._by_name, name)

    @functools.cached_property
    def _by_name(self) -> ByName:
        return by_name(self.labels)

    def resolve(self, names: list[str], to_gitea: bool = True) -> tuple[list[Label], list[str]]:
        """Known labels, and the names left to Gitea (possible organisation labels this token cannot see).

        A name that is known nowhere is refused with the valid names unless it may be an unseen organisation label
        that Gitea finds by name, and `to_gitea` allows leaving it to Gitea (an update, whose answer shows it).
        """
        known = [label for name in names if (label := self.find(name)) is not None]
        unknown = [name for name in names if self.find(name) is None]
        if unknown and (self.org_readable or not self.by_name_on_server or not to_gitea):
            raise ToolFailure(self._unknown(unknown, to_gitea))
        return known, unknown

    def _unknown(self, names: list[str], to_gitea: bool) -> str:
        listed = ", ".join(repr(n) for n in sorted({label.name for label in self.labels})) or "(none)"
        text = f"label {', '.join(repr(n) for n in names)} does not exist in {self.where}. Labels there: {listed}."
        if self.org_readable:
            return text
        text += " Organisation labels are not listed (that needs read:organization) and no issue carries one so named"
        if not self.by_name_on_server:
            return text + "; this Gitea finds them by name only from 1.23 on."
        if not to_gitea:
            return text + (
                ": to add one no issue carries yet, file the issue without it, then issue_update add_labels=NAME "
                "(Gitea finds it by name and says if it does not exist)."
            )
        return text + "."


ByName = tuple[dict[str, Label], dict[str, Label]]  # the labels by exact name, and by name as answers show it


def by_name(labels: list[Label]) -> ByName:
    exact: dict[str, Label] = {}
    shown: dict[str, Label] = {}
    for label in labels:
        exact.setdefault(label.name, label)
        shown.setdefault(scrub(label.name), label)
    return exact, shown


def named(index: ByName, name: str) -> Label | None:
    """A label by its exact name, else by the name an answer showed for it: the structured face drops what
    renders as nothing, and a name read there and sent back must find its label again."""
    found = index[0].get(name)
    return found if found is not None else index[1].get(scrub(name))


def label_set(deps: Deps, owner: str, name: str, wanted: list[str]) -> LabelSet:
    """The labels `wanted` may name: the repository's and the organisation's, read afresh when the cache misses one
    of them, and the organisation's labels issues show when the token cannot list them."""
    found = fresh(lambda at: _label_set(deps, owner, name, newer_than=at), lambda got: not got.knows(wanted))
    unseen = [n for n in wanted if found.find(n) is None]
    if unseen and not found.org_readable:
        found = found.with_labels(org_labels_seen(deps.client, owner, unseen))
    return found


def _label_set(deps: Deps, owner: str, name: str, newer_than: float | None) -> LabelSet:
    repo, org = deps.client.gather(
        lambda: deps.catalog.labels(deps.client, owner, name, newer_than),
        lambda: deps.catalog.org_labels(deps.client, owner, newer_than),
    )
    server = deps.catalog.server(deps.client) if org is None else None
    return LabelSet(
        where=f"{owner}/{name}",
        labels=_unique([*repo, *(org or [])]),
        org_readable=org is not None,
        by_name_on_server=server.org_labels_by_name if server else True,
    )


def organisation_labels(deps: Deps, owner: str, names: list[str], newer_than: float) -> tuple[list[Label], bool]:
    """`owner`'s organisation labels of these names, read after `newer_than`: listed when the token may
    (read:organization), else as the issues that carry them show them. The flag: whether they could be listed."""
    listed, seen = deps.client.gather(
        lambda: deps.catalog.org_labels(deps.client, owner, newer_than),
        lambda: org_labels_seen(deps.client, owner, names),
    )
    if listed is not None:
        index = by_name(listed)
        return _unique([label for name in names if (label := named(index, name)) is not None]), True
    return seen, False


def forget(deps: Deps, owner: str, name: str) -> None:
    deps.catalog.forget("labels", deps.client, owner, name)
    deps.catalog.forget("org_labels", deps.client, owner)


def scope_of(label: Label) -> str | None:
    """An exclusive label's scope: its name up to the last '/' (`priority/high` → `priority`), as Gitea's
    ExclusiveScope reads it: a '/' first or last in the name makes no scope (`/x`, `x/`)."""
    cut = label.name.rfind("/")
    if not label.exclusive or cut in (-1, 0, len(label.name) - 1):
        return None
    return label.name[:cut]


def refuse_scope_clashes(labels: list[Label]) -> None:
    """Two labels of one exclusive scope cannot both stay on an issue: Gitea would keep one of its own choosing."""
    seen: dict[str, str] = {}
    for label in labels:
        scope = scope_of(label)
        if scope is None:
            continue
        if scope in seen and seen[scope] != label.name:
            raise ToolFailure(
                f"labels {seen[scope]!r} and {label.name!r} are exclusive (scope {scope!r}): an issue carries at "
                "most one of them. Choose one."
            )
        seen[scope] = label.name


def add(deps: Deps, base: list[Segment], labels: list[Label], names: list[str]) -> list[Label]:
    """POST: adds, replacing the issue's old label of each exclusive scope; answers the issue's labels after."""
    return deps.client.write("POST", [*base, "labels"], {"labels": _payload(labels, names)}).many(Label)


def set_exactly(deps: Deps, base: list[Segment], labels: list[Label], names: list[str]) -> list[Label]:
    """PUT: the issue's labels become exactly these (one per exclusive scope kept); answers its labels after."""
    return deps.client.write("PUT", [*base, "labels"], {"labels": _payload(labels, names)}).many(Label)


def _payload(labels: list[Label], names: list[str]) -> list[object]:
    """Ids, or names when some are left for Gitea to resolve: it takes all ids or all names, never a mix."""
    if names:
        return [*(label.name for label in labels), *names]
    return [label.id for label in labels]


def remove(deps: Deps, base: list[Segment], label: Label) -> None:
    deps.client.write("DELETE", [*base, "labels", label.id], None)


def _unique(labels: list[Label]) -> list[Label]:
    return list({label.id: label for label in labels}.values())
