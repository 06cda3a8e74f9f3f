"""demo: a scripted agent session over the real MCP protocol against the built-in Gitea stand-in.

Nothing to configure: the stand-in (a real HTTP server on 127.0.0.1 with sample data) starts here, the
server runs as its own process over stdio, and each call is printed with the text an agent would read.
`demo --serve` instead serves MCP against the stand-in, for plugging into an MCP client: on stdio, or on
streamable HTTP with `--transport http` (each request sends the stand-in's token as its bearer).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, TextIO

import anyio

from gitea_mcp.cli.main import PROG, USES, settings_from
from gitea_mcp.cli.serve import DEMO_ON_A_TERMINAL, run_server
from gitea_mcp.settings import Settings

HELP = "run a scripted session against a built-in Gitea stand-in (no setup needed); --serve to serve it"
DEMO_OWNERS = "acme,demo"

# (tool, arguments, why) — what an agent on a real forge would do, traps included.
SCRIPT: list[tuple[str, dict[str, Any], str]] = [
    ("issue_list", {"owner": "acme", "name": "widgets", "limit": 5}, "what is open here?"),
    ("issue_list", {"owner": "acme", "name": "widgets", "labels": ["bugz"]}, "a label that does not exist"),
    ("issue_search", {"query": "crash label:bug is:open", "owner": "acme", "name": "widgets", "limit": 5}, "find it"),
    ("issue_search", {"query": '"race condition in the date picker"', "owner": "acme"}, "one match, every repo"),
    ("issue_get", {"owner": "acme", "name": "widgets", "number": 320, "max_chars": 400}, "read one"),
    (
        "issue_create",
        {"owner": "acme", "name": "widgets", "title": "CSV export fails on an empty table", "labels": ["bug"],
         "body": "Exporting a table with no rows returns a 500 instead of an empty file."},
        "file it",
    ),
    (
        "issue_create",
        {"owner": "acme", "name": "widgets", "title": "CSV export fails on an empty table", "labels": ["bug"],
         "body": "Exporting a table with no rows returns a 500 instead of an empty file."},
        "a retry after a timeout: no duplicate",
    ),
    ("issue_list", {"owner": "other", "name": "secret"}, "an owner outside the allowlist"),
]  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--serve",
        action="store_true",
        help="serve MCP against the stand-in instead: on stdio, or streamable HTTP with --transport http --port N",
    )
    parser.epilog = (
        "--read-only, --toolsets, --timeout and the HTTP settings apply to --serve only; the stand-in brings its own "
        "URL, token and owners."
    )


def server_env(url: str, token: str) -> dict[str, str]:
    return {"GITEA_URL": url, "GITEA_TOKEN": token, "GITEA_ALLOWED_OWNERS": DEMO_OWNERS, "PYTHONUNBUFFERED": "1"}


async def _script(url: str, token: str, out: TextIO) -> None:
    # why: 0.4 ms that tests/cli/test_serve_imports.py keeps off the serve path (parsing loads each command)
    from gitea_mcp.cli.stdio_client import stdio_session

    async with stdio_session(server_env(url, token)) as session:
        tools = (await session.list_tools()).tools
        out.write(f"server up over stdio: {len(tools)} tools ({', '.join(t.name for t in tools)})\n")
        out.write(f"each → line is a call as `{PROG} call` takes it: paste it after `{PROG} call`\n")
        for tool, arguments, why in SCRIPT:
            result = await session.call_tool(tool, arguments)
            flag = "  [isError]" if result.is_error else ""  # on the heading: the call line stays pasteable
            out.write(f"\n── {why}{flag}\n→ {call_line(tool, arguments)}\n")
            for block in result.content:
                out.write(getattr(block, "text", "") + "\n")


def call_line(tool: str, arguments: dict[str, Any]) -> str:
    """`tool KEY=VALUE…` as `call` reads it back (cli/call.py parse_arguments), quoted for a POSIX shell."""
    return " ".join([tool, *(f"{key}={shlex.quote(_call_value(value))}" for key, value in arguments.items())])


def _call_value(value: Any) -> str:
    """The inverse of call.convert: numbers and booleans as written, a list as a comma list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        # call splits a list at commas and strips each part: an item that would not survive that cannot be shown.
        if any(not isinstance(item, str) or "," in item or item != item.strip() or not item for item in value):
            raise ValueError(f"{value!r} cannot be written as a comma list for call (an item holds a comma or spaces)")
        return ",".join(value)
    return str(value)


def run(ns: argparse.Namespace, settings: Settings | None) -> int:
    from gitea_mcp.standin import DEMO_TOKEN, StandIn  # why: 28 ms of every command's `--help`

    with StandIn() as forge:
        if ns.serve:
            return _serve(ns, forge.url, DEMO_TOKEN)
        sys.stdout.write(f"Gitea stand-in at {forge.url} (sample data; owners acme, demo, other)\n")
        anyio.run(_script, forge.url, DEMO_TOKEN, sys.stdout)
    return 0


def _serve(ns: argparse.Namespace, url: str, token: str) -> int:
    # why: the MCP SDK, 0.45 s: every command module is imported for `--help`
    from gitea_mcp.server.app import build_server

    # The command line's settings (transport, host, port, read-only…) with the stand-in as the forge.
    settings = settings_from(
        argparse.Namespace(**{**vars(ns), "url": url, "token": token, "allowed_owners": DEMO_OWNERS}),
        uses=(*USES["demo"], "--url", "--token", "--allowed-owners"),
    )
    how = "on stdio"
    if settings.transport == "http":
        # Over HTTP each request brings its own token; the stand-in's guards sample data only, so it is shown.
        settings = settings.model_copy(update={"token": None})
        how = f"over HTTP (each request sends 'Authorization: Bearer {token}')"
    print(f"gitea-issues-mcp demo: serving MCP {how} against the stand-in at {url}", file=sys.stderr, flush=True)
    run_server(build_server(settings), settings, DEMO_ON_A_TERMINAL)
    return 0
