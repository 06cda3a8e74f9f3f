"""The tools by name: each one's spec, declared here, and the module that holds the rest, imported on its first call.

A tool module is mostly the class creation of its pydantic models (arguments, result, Gitea's JSON): about 60 ms
of a server's start-up for the six (issue 25). tools/list is answered from `listing.json`, stored with the package
and checked against the models by tests/server/test_app.py, and `offered()` reads the specs here: neither needs a
tool module, so serving imports one only when it is first called. `check`, `call --help` and the tests, which need
the models themselves, ask for `definitions()`.

Nothing here imports a tool module, the MCP SDK or the Gitea client at import time.
"""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitea_mcp.domain import dates
from gitea_mcp.toolkit import scopes
from gitea_mcp.toolkit.spec import ToolSpec

if TYPE_CHECKING:
    from gitea_mcp.toolkit.base import ToolDefinition

# tools/list as the models generate it (`ToolDefinition.listing()`), every tool, in this order; package data.
LISTING = Path(__file__).with_name("listing.json")

ISSUE_LIST = ToolSpec.reading(
    "issue_list",
    f"List a repo's issues, newest first, with the total. since/before: updated time. {dates.RULE} Text search: "
    "issue_search; body, comments: issue_get.",
    scopes.READ_ISSUE,
)
ISSUE_SEARCH = ToolSpec.reading(
    "issue_search",
    "Find issue/PR numbers by query or list page URL. Words match title/body/comments as the server's index does: "
    "Gitea whole adjacent words (auth misses Authentication), a lone number N also #N and text containing N (1.23+); "
    'Forgejo any word, "exact phrases". Qualifiers: is:open|closed, state:all, is:issue|pr, label:X (repeat: all '
    "must match), milestone:X, author:X, assignee:X, mentions:X (X may be @me), updated:>=DATE (>, <, <=, A..B), "
    f"repo:owner/name, org:X; others refused. Default: all states. {dates.RULE}",
    scopes.READ_ISSUE,
    scope_note="(and `read:user` for `@me`)",
)
ISSUE_GET = ToolSpec.reading(
    "issue_get",
    "Read one issue or PR (owner, name, number, or url): body, comments (oldest first, 20 per page), all "
    "fields; a PR's reviews with inline comments (file, line). Texts cut at max_chars, full size stated.",
    scopes.READ_ISSUE,
    scope_note=f"(and `{scopes.READ_REPOSITORY}` for the state and inline comments of a PR's reviews)",
)
ISSUE_CREATE = ToolSpec.written_once(
    "issue_create",
    "File a new issue; returns it (number, URL). Safe to retry: the same title and body filed by you in the "
    "last 10 minutes returns that issue instead of a duplicate (allow_duplicate=true files anyway).",
    scopes.WRITE_ISSUE,
    scopes.READ_USER,
)
ISSUE_UPDATE = ToolSpec(
    name="issue_update",
    description="Change an issue: only the fields given change; labels by name. Returns the issue as it now is.",
    writes=True,
    scopes=(scopes.WRITE_ISSUE,),
    destructive=True,
)
ISSUE_COMMENT = ToolSpec.written_once(
    "issue_comment",
    "Comment on an issue or PR; returns the comment and the new count. Safe to retry: the same text posted by "
    "you there in the last 10 minutes is returned, not posted twice (allow_duplicate=true posts anyway).",
    scopes.WRITE_ISSUE,
    scopes.READ_USER,
)

READ = (ISSUE_LIST, ISSUE_SEARCH, ISSUE_GET)
WRITE = (ISSUE_CREATE, ISSUE_UPDATE, ISSUE_COMMENT)
# Each tool's module, holding its ToolDefinition as TOOL: gitea_mcp.tools.<name>.
_MODULE = {spec.name: f"gitea_mcp.tools.{spec.name}" for spec in READ + WRITE}
_SPECS = {spec.name: spec for spec in READ + WRITE}


def declared(name: str) -> ToolSpec | None:
    """The tool `name` as gitea_mcp declares it, offered by this server or not; None for a name it has no tool of."""
    return _SPECS.get(name)


def offered(read_only: bool) -> tuple[ToolSpec, ...]:
    """The tools a server offers, in the order it lists them: read-only offers no write tool."""
    return READ if read_only else READ + WRITE


_lock = threading.Lock()
_loaded: dict[str, ToolDefinition] = {}


def definition(name: str) -> ToolDefinition:
    """The tool `name`, its module imported on the first ask. Two first calls at once on two threads import it
    once: the second waits for the first. A failed import is not kept (the next call tries again) and raises."""
    loaded = _loaded.get(name)
    if loaded is not None:
        return loaded
    with _lock:
        if name not in _loaded:
            tool: ToolDefinition = importlib.import_module(_MODULE[name]).TOOL
            if tool.spec is not _SPECS[name]:  # the module's TOOL must be the tool declared here
                raise RuntimeError(f"{_MODULE[name]}.TOOL is not {name}'s spec")
            _loaded[name] = tool
        return _loaded[name]


def definitions(read_only: bool = False) -> tuple[ToolDefinition, ...]:
    """Every offered tool, each module imported: for `check`, `call --help`, the tests; never the serve path."""
    return tuple(definition(spec.name) for spec in offered(read_only))


def stored_listing(read_only: bool) -> list[dict[str, Any]]:
    """tools/list as stored with the package (JSON, in the order and the shape the SDK sends it), for the tools
    offered."""
    names = {spec.name for spec in offered(read_only)}
    stored: list[dict[str, Any]] = json.loads(LISTING.read_text(encoding="utf-8"))
    return [tool for tool in stored if tool["name"] in names]


def generated_listing() -> str:
    """`listing.json` as the models generate it, every tool: what tests/server/test_app.py compares it with and
    writes with UPDATE_GOLDEN=1."""
    listed = [tool.listing().model_dump(mode="json", by_alias=True, exclude_none=True) for tool in definitions()]
    return json.dumps(listed, indent=1, ensure_ascii=False) + "\n"
