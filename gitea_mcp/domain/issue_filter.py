"""Which issues: one value, built once — from a tool's arguments (issue_list) or a parsed query (issue_search) —
and written out in one place each: the repository list's parameters, the cross-repository search's parameters,
the header's description, and the arguments of a next-page hint.

Pure: no I/O. issue_list's dates become Gitea's bounds before the value is built (`gitea_dates`). The traps each
Gitea parameter hides are dealt with where the value is sent (toolkit/repo_page.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from gitea_mcp.domain import dates
from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.redaction import shown

State = Literal["open", "closed", "all"]
Kind = Literal["issues", "pulls", "all"]  # all: Gitea mixes both when no type is sent
Mine = Literal["created", "assigned", "mentioned"]  # the search endpoint's flags for the signed-in user

USER_FILTERS = ("created_by", "assigned_by", "mentioned_by")


@dataclass(frozen=True)
class IssueFilter:
    state: State = "open"
    type: Kind = "issues"
    labels: tuple[str, ...] = ()  # all of them on a repository; the search endpoint takes one
    milestones: tuple[str, ...] = ()
    since: str | None = None  # RFC 3339 UTC whole seconds, Gitea's: inclusive, compared with the updated time
    before: str | None = None  # likewise inclusive (issue_list's `before=` is the second after: call_args)
    created_by: str | None = None
    assigned_by: str | None = None
    mentioned_by: str | None = None
    keywords: str = ""  # Gitea's `q`, already written the way this server reads it
    mine: tuple[Mine, ...] = ()

    def users(self) -> dict[str, str]:
        """The user filters that are set (a 404 may be about one of them)."""
        return {key: value for key in USER_FILTERS if (value := getattr(self, key))}

    def _set(self, hint: bool = False) -> dict[str, str]:
        """The filters that are set, spelled as Gitea and issue_list both spell them (lists comma-joined; in a
        hint, a list holding a name with a comma is spelled as a JSON array, which issue_list reads back whole)."""
        values = {
            "labels": _names(self.labels, hint),
            "milestones": _names(self.milestones, hint),
            "since": self.since,
            "before": self.before,
            **self.users(),
        }
        return {key: value for key, value in values.items() if value}

    def list_params(self) -> dict[str, str]:
        """`GET /repos/{owner}/{repo}/issues`."""
        params: dict[str, str] = {"state": self.state}
        if self.type != "all":
            params["type"] = self.type
        if self.keywords:
            params["q"] = self.keywords
        return {**params, **self._set()}

    def search_params(self, owner: str | None) -> dict[str, str]:
        """`GET /repos/issues/search`, with the flags for the signed-in user."""
        params = self.list_params()
        params.update(dict.fromkeys(self.mine, "true"))
        if owner:
            params["owner"] = owner
        return params

    def call_args(self) -> dict[str, object]:
        """The non-default arguments, spelled as a call to issue_list (for next-page hints): its `before` is strictly
        before, the second after Gitea's inclusive one (gitea_mcp/domain/dates.py)."""
        args: dict[str, object] = {}
        if self.state != "open":
            args["state"] = self.state
        if self.type != "issues":
            args["type"] = self.type
        args.update(self._set(hint=True))
        if self.before and (before := dates.exclusive(self.before)) is not None:
            args["before"] = before  # in place: the arguments keep their order
        elif self.before:
            del args["before"]  # no issue is updated after 9999-12-31T23:59:59Z: no bound at all
        return args

    def describe(self, call_args: dict[str, object] | None = None) -> str:
        """The header's words: `call_args`, when the caller has them already (it hints them too), else built here."""
        args = self.call_args() if call_args is None else call_args
        said = {"state": self.state, **{k: v for k, v in args.items() if k != "state"}}
        return " ".join(f"{key}={value}" for key, value in said.items())


def gitea_dates(since: str | None, before: str | None) -> tuple[str | None, str | None]:
    """issue_list's since (at or after) and before (strictly before) as Gitea's inclusive whole seconds, by the one
    rule every tool shares (domain/dates.py): `since=D before=E` is `updated:>=D updated:<E`. Refused clearly."""
    start = dates.bound(">=", since.strip(), f"since={shown(since)}") if since else None
    end = dates.bound("<", before.strip(), f"before={shown(before)}") if before else None
    if start is not None and end is not None and start > end:
        day = before.strip() if before else ""
        whole = f" (to include {day}, write before={dates.next_day(day)})" if dates.is_day(day) else ""
        raise ToolFailure(
            f"since={shown(since)} and before={shown(before)} leave an empty time range: before is "
            f"exclusive, it ends where its day or time begins{whole}. Check the dates."
        )
    return (None if start is None else dates.rfc3339(start)), (None if end is None else dates.rfc3339(end))


def _names(names: tuple[str, ...], hint: bool) -> str:
    if hint and (any("," in name for name in names) or (names and names[0].lstrip().startswith("["))):
        return json.dumps(list(names), ensure_ascii=False)
    return ",".join(names)
