"""The pieces every endpoint uses: request and response, errors, Gitea's form and JSON binding, paging.

Gitea reads query parameters with Go's rules (the first value wins, a bad integer is 0, a bad boolean is
false) and binds JSON bodies with Go's decoder, whose error wording reaches clients as the 422 message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlencode

from gitea_mcp.standin.gotime import GoTimeError, parse_rfc3339
from gitea_mcp.standin.profile import Profile
from gitea_mcp.standin.render import View
from gitea_mcp.standin.store import Store, Token, User

JSON_TYPE = "application/json;charset=utf-8"
DEFAULT_PAGING_NUM = 30  # Gitea's [api] DEFAULT_PAGING_NUM default (MAX_RESPONSE_ITEMS is the profile's)
T = TypeVar("T")


@dataclass
class Request:
    method: str
    raw_path: str  # as received, still percent-encoded
    raw_query: str
    query: dict[str, list[str]]
    raw_body: bytes = b""
    authorization: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # every header, by lower-case name (the web pages')

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = JSON_TYPE
    headers: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)  # each a Set-Cookie value (a header that may repeat)

    def expose(self, name: str, value: str) -> None:
        """Set a header and list it in Access-Control-Expose-Headers, as Gitea does for paging headers."""
        self.headers[name] = value
        exposed = self.headers.get("Access-Control-Expose-Headers")
        self.headers["Access-Control-Expose-Headers"] = f"{exposed}, {name}" if exposed else name


class ApiError(Exception):
    """An error answer; `message=None` means a bare status without a body (Gitea's ctx.Status)."""

    def __init__(self, status: int, message: str | None = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class NotFound(ApiError):
    """Gitea's ctx.NotFound: 404 worded as the release words it, with the errors that caused it (if any); some
    handlers name themselves as the message instead (`GetPullRequestByIndex`)."""

    def __init__(self, *errors: str, message: str | None = None) -> None:
        super().__init__(404, message or "")
        self.errors = list(errors)
        self.named = message


class NoRoute(Exception):
    """No API route matches: Gitea's router answers a plain-text `404 page not found`, not a JSON error."""


class Redirect(Exception):
    """A renamed or transferred repository: Gitea answers 307 or 301 (by release) with the new path; a renamed owner
    always 307 (`status`)."""

    def __init__(self, location: str, status: int | None = None) -> None:
        super().__init__(location)
        self.location = location
        self.status = status  # None: the release's status for a repository redirect


def json_response(document: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode())


@dataclass
class Call:
    """One request on its way through an endpoint."""

    req: Request
    args: dict[str, str]
    store: Store
    view: View
    token: Token | None
    profile: Profile = field(default_factory=Profile)

    @property
    def doer(self) -> User | None:
        return self.view.doer

    @property
    def login(self) -> str | None:
        return self.view.doer.login if self.view.doer else None

    def q(self, name: str) -> str:
        """Go's FormString: the first value, or ""."""
        values = self.req.query.get(name)
        return values[0] if values else ""

    def q_int(self, name: str) -> int:
        """Go's FormInt: strconv.Atoi, 0 when it does not parse."""
        text = self.q(name)
        return int(text) if re.fullmatch(r"[+-]?\d+", text) else 0

    def q_bool(self, name: str) -> bool:
        """Go's FormBool: strconv.ParseBool, false when it does not parse."""
        return self.q(name) in ("1", "t", "T", "TRUE", "true", "True")

    def require_token(self) -> User:
        """Gitea's reqToken()."""
        if self.doer is None:
            raise ApiError(401, "token is required")
        return self.doer


# -- time filters ---------------------------------------------------------------------------------


def form_time(call: Call, name: str) -> int:
    """Unix seconds of an RFC 3339 parameter, 0 when absent; Gitea answers 422 with Go's parse error."""
    text = call.q(name).strip()
    if not text:
        return 0
    try:
        return int(parse_rfc3339(text).timestamp())
    except GoTimeError as exc:
        raise ApiError(422, str(exc)) from None


def before_since(call: Call) -> tuple[int, int]:
    """Gitea's GetQueryBeforeSince: `before` is parsed first, so its error wins."""
    return form_time(call, "before"), form_time(call, "since")


# -- paging -----------------------------------------------------------------------------------------


def list_options(call: Call) -> tuple[int, int]:
    """Page (>= 1) and page size: 0 or less becomes DEFAULT_PAGING_NUM (unclamped), more than MAX_RESPONSE_ITEMS
    is clamped to it (Gitea's ToCorrectPageSize)."""
    limit = call.q_int("limit")
    if limit <= 0:
        return max(call.q_int("page"), 1), DEFAULT_PAGING_NUM
    return max(call.q_int("page"), 1), min(limit, call.profile.max_response_items)


def catalogue_options(call: Call) -> tuple[int, int]:
    """Labels and milestones: everything when `page` is absent (or 0), else pages as `list_options` sizes them."""
    if call.q_int("page") == 0:
        return 1, -1
    return list_options(call)


def page_of(items: list[T], page: int, limit: int) -> list[T]:
    if limit < 0:  # no LIMIT at all: a catalogue without `page`, a negative limit on the cross-repository search
        return items
    return items[(page - 1) * limit : page * limit]


def link_header(call: Call, total: int, page_size: int) -> str | None:
    """Gitea's Link header (paginator semantics), or None when everything fits on one page."""
    size = page_size if page_size > 0 else 1
    pages = max(1, -(-total // size))
    current = min(max(call.q_int("page"), 1), pages)
    has_next = total > current * size
    is_last = total == 0 or (total > (current - 1) * size and not has_next)
    wanted = [
        (has_next, current + 1, "next"),
        (not is_last, pages, "last"),
        (current != 1, 1, "first"),
        (current > 1, current - 1, "prev"),
    ]
    links = [f'<{_page_url(call, page)}>; rel="{rel}"' for show, page, rel in wanted if show]
    return ",".join(links) if links else None


def _page_url(call: Call, page: int) -> str:
    # Go's url.Values.Encode: keys sorted, every value kept, query-escaped.
    query = dict(call.req.query)
    query["page"] = [str(page)]
    pairs = [(key, value) for key in sorted(query) for value in query[key]]
    return f"{call.view.root}{call.req.raw_path}?{urlencode(pairs)}"


def paged(call: Call, items: list[T], page: int, limit: int, render: Callable[[T], Any]) -> Response:
    """A page of `items` with Link (when needed) and X-Total-Count, as Gitea's list endpoints send them."""
    response = json_response([render(item) for item in page_of(items, page, limit)])
    link = link_header(call, len(items), limit)
    if link:
        response.expose("Link", link)
    response.expose("X-Total-Count", str(len(items)))
    return response


def counted(items: list[T], render: Callable[[T], Any], page: int = 1, limit: int = -1) -> Response:
    """A page of `items` (all by default) with X-Total-Count but no Link: comments, labels, milestones."""
    response = json_response([render(item) for item in page_of(items, page, limit)])
    response.expose("X-Total-Count", str(len(items)))
    return response


# -- JSON binding -----------------------------------------------------------------------------------

_JSON_KINDS: tuple[tuple[type, str], ...] = ((bool, "bool"), (str, "string"), (int, "number"), (float, "number"))


def _kind(value: Any) -> str:
    for python_type, kind in _JSON_KINDS:
        if isinstance(value, python_type):
            return f"number {value}" if isinstance(value, float) else kind
    return "array" if isinstance(value, list) else "object"


def _fits(gotype: str, value: Any) -> bool:
    if gotype == "string":
        return isinstance(value, str)
    if gotype == "bool":
        return isinstance(value, bool)
    if gotype == "int64":
        return isinstance(value, int) and not isinstance(value, bool)
    return gotype == "time"  # checked separately


def _check_field(struct: str, name: str, gotype: str, value: Any) -> None:
    def mismatch(kind: str, go_name: str) -> ApiError:
        return ApiError(
            422, f"[]: json: cannot unmarshal {kind} into Go struct field {struct}.{name} of type {go_name}"
        )

    if gotype.startswith("[]"):
        if not isinstance(value, list):
            raise mismatch(_kind(value), "[]interface {}" if gotype == "[]any" else gotype)
        element = gotype[2:]
        for item in value if element != "any" else []:
            if not _fits(element, item):
                raise mismatch(_kind(item), element)
        return
    if gotype == "time":
        if not isinstance(value, str):
            raise ApiError(422, "[]: Time.UnmarshalJSON: input is not a JSON string")
        try:
            parse_rfc3339(value)
        except GoTimeError as exc:
            raise ApiError(422, f"[]: {exc}") from None
    elif not _fits(gotype, value):
        raise mismatch(_kind(value), gotype)


def _syntax_error(raw: bytes, exc: json.JSONDecodeError) -> str:
    text = raw.decode("utf-8", "replace")
    # Go names an input that stops early one way, whatever was left open.
    if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
        return "unexpected end of JSON input"
    return f"invalid character {text[exc.pos]!r} looking for beginning of value"


def bind(call: Call, struct: str, fields: dict[str, str]) -> dict[str, Any]:
    """Decode the JSON body like Gitea's binding: an empty body is `{}`, type errors are 422."""
    raw = call.req.raw_body.strip()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = _syntax_error(raw, exc) if isinstance(exc, json.JSONDecodeError) else "invalid UTF-8"
        raise ApiError(422, f"[]: {reason}") from None
    if not isinstance(data, dict):
        raise ApiError(422, f"[]: json: cannot unmarshal {_kind(data)} into Go value of type structs.{struct}")
    for name, gotype in fields.items():
        if data.get(name) is not None:  # JSON null leaves a Go field at its zero value
            _check_field(struct, name, gotype, data[name])
    return data
