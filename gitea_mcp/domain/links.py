"""Links people paste: an issue's or pull request's page (with an `#issuecomment-N` anchor) and a repository's issue
or pull request list, on the configured server only.

Pure: a link becomes a value or a refusal, with no request. A link is accepted only when its scheme, host, port
and path prefix (a Gitea installed under a sub-path) are the configured server's; its owner is then checked
against the allowlist by the tool, like any other owner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import SplitResult, parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.policy import MAX_NUMBER
from gitea_mcp.redaction import shown

_DEFAULT_PORTS = {"http": 80, "https": 443}
_COMMENT = re.compile(r"issuecomment-(.+)")
_KINDS = ("issues", "pulls")
_DIGITS = re.compile(r"[0-9]+")
MAX_ID = 2**63 - 1  # Gitea's ids (comments, labels, milestones, users) are int64


@dataclass(frozen=True)
class IssueLink:
    """`…/OWNER/REPO/issues/N` or `…/pulls/N`, maybe `#issuecomment-ID`."""

    owner: str
    name: str
    number: int
    comment: int | None = None


@dataclass(frozen=True)
class ListLink:
    """`…/OWNER/REPO/issues?…` or `…/pulls?…`: the list page and its query, first value of each parameter (as Go's
    `FormString` reads them)."""

    owner: str
    name: str
    pulls: bool
    params: dict[str, str] = field(default_factory=dict)


def looks_like_link(text: str) -> bool:
    return text.strip().lower().startswith(("http://", "https://"))


def parse(text: str, server: str) -> IssueLink | ListLink:
    """The page `text` links to on `server` (the configured GITEA_URL), or a ToolFailure saying why not."""
    link, base = urlsplit(text.strip()), urlsplit(server.rstrip("/"))
    if _origin(link) != _origin(base):
        raise ToolFailure(
            f"the link is not on this server: it points at {shown(_origin_text(link))}, and only links to "
            f"{_origin_text(base)}{base.path} can be read here."
        )
    prefix = base.path.rstrip("/")
    if prefix and not (link.path == prefix or link.path.startswith(prefix + "/")):
        raise ToolFailure(f"the link is outside this server's address: it must start with {server.rstrip('/')}/.")
    segments = [unquote(s) for s in link.path[len(prefix) :].strip("/").split("/")]
    if len(segments) in (3, 4) and segments[2] in _KINDS:
        owner, name, kind = segments[:3]
        if len(segments) == 3:
            return ListLink(owner, name, kind == "pulls", _first_values(link.query))
        if segments[3].isnumeric():
            number = bounded(f"the issue number {shown(segments[3])}", segments[3], 1, MAX_NUMBER)
            return IssueLink(owner, name, number, _comment(link.fragment))
    raise ToolFailure(
        "the link is not an issue, pull request or issue list page; use a link like "
        f"{server.rstrip('/')}/OWNER/REPO/issues/NUMBER or …/OWNER/REPO/issues?state=closed."
    )


def bounded(what: str, text: str, low: int, high: int, signed: bool = False) -> int:
    """A number from a link, within the bounds of the argument it stands for, or a ToolFailure naming `what`.

    ASCII digits only, as Go's strconv reads the link on the web: Python's int() would take `١٢` as 12, and raise
    on `²` or on more than 4,300 digits (an unexpected error, with a traceback in the log, on every such call).
    `signed`: a leading `-` and 0 are taken too (the web's "none" and "any" ids, which the caller refuses in its
    own words), and only the size is bounded.
    """
    digits = text.removeprefix("-") if signed else text
    size = digits.lstrip("0") or "0"  # leading zeros count for nothing (Go reads 007 as 7), nor toward int()'s limit
    if _DIGITS.fullmatch(digits) and len(size) <= len(str(high)):
        value = -int(size) if digits != text else int(size)
        if low <= value <= high or (signed and abs(value) <= high):
            return value
    raise ToolFailure(f"{what} in the link is not valid; use a whole number from {low} to {high}.")


def _comment(fragment: str) -> int | None:
    """The comment id of an `#issuecomment-N` anchor; any other anchor (`#event-3`, `#issuecomment-new`) is none."""
    anchor = _COMMENT.fullmatch(fragment)
    if anchor is None or not anchor.group(1).isnumeric():
        return None
    return bounded(f"the comment id {shown(anchor.group(1))}", anchor.group(1), 1, MAX_ID)


def with_params(text: str, values: dict[str, str], drop: tuple[str, ...] = ()) -> str:
    """The link with each of `values` set (in place of its first value there, or at the end) and the `drop`
    parameters removed; the rest of its query keeps its order and meaning (Go decodes `+` and `%20` alike)."""
    parts = urlsplit(text.strip())
    pairs, todo = [], dict(values)
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in drop or (key in values and key not in todo):
            continue
        pairs.append((key, todo.pop(key, value)))
    return urlunsplit(parts._replace(query=urlencode([*pairs, *todo.items()])))


def _origin(parts: SplitResult) -> tuple[str, str, int | None]:
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number
        port = None
    return scheme, (parts.hostname or "").lower(), port


def _origin_text(parts: SplitResult) -> str:
    scheme, host, port = _origin(parts)
    default = _DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


def _first_values(query: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        values.setdefault(key, value)
    return values
