"""The docs' generated parts, from the same declarations the agents read and `config` prints, so the docs cannot
drift from them: docs/tools.md's reference (tests/test_readme.py) and the scope table, docs/settings.md's tables
(the settings as the command line declares them), docs/clients.md's client sections and the README's install
links (tests/cli/test_client_entries.py). Test code: none of it ships in the package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitea_mcp.cli.client_entries import CLIENTS, LINKED, PLACEHOLDER_REMOTE, Setup, Snippet, snippets
from gitea_mcp.toolkit.arguments import argument_schemas
from gitea_mcp.toolkit.base import ToolDefinition
from gitea_mcp.toolkit.spec import ToolSpec


def argument_table(tool: ToolDefinition) -> str:
    schema = argument_schemas(tool.args)
    required = set(schema.get("required", []))
    rows = ["| argument | type | default | values | meaning |", "|---|---|---|---|---|"]
    for name, prop in schema["properties"].items():
        default = "required" if name in required else _default(prop)
        said = _OWN_MEANINGS.get((tool.spec.name, name), _MEANINGS.get(name))
        meaning = " ".join(part for part in (said, prop.get("description")) if part)
        rows.append(f"| `{name}` | {_type(prop)} | {default} | {_values(prop)} | {meaning} |")
    return "\n".join(rows)


# Where the schema leaves the words to its enum, default and bounds (or to the argument's name or the tool's
# description), the reader of the README still gets a meaning.
_MEANINGS = {
    "state": "Which issues, by state.",
    "type": "Issues, pull requests, or both.",
    "page": "Page number.",
    "limit": "Rows per page.",
    "comments_page": "Page of 20 comments, oldest first.",
    "since": "Updated at or after (a date: from its start).",
    "before": "Updated strictly before (a date: before it starts).",
    "created_by": "Author.",
    "title": "One-line title.",
    "add_labels": "Labels to add.",
    "remove_labels": "Labels to remove.",
    "allow_duplicate": "Write even if the same was just written (see above).",
}


# An argument a write tool shares by name with the filters, where it means something else.
_OWN_MEANINGS = {
    ("issue_update", "state"): "The new state.",
    ("issue_update", "title"): "The new one-line title.",
    ("milestone_list", "state"): "Which milestones, by state.",
}


def _type(prop: dict[str, Any]) -> str:
    if prop.get("type") == "array":
        return "list of strings (or one comma-separated string)"
    return {"integer": "integer", "boolean": "boolean"}.get(prop.get("type", ""), "string")


def _default(prop: dict[str, Any]) -> str:
    if "default" not in prop:
        return "—"
    value = prop["default"]
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value!r}`" if value == "" else f"`{value}`"


def _values(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return ", ".join(f"`{value}`" for value in prop["enum"])
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        return f"{low}–{high:,}".replace(",", " ")
    if low is not None:
        return f"{low} or more"
    return ""


def readme_table(tools: Iterable[ToolSpec]) -> str:
    """The README's scope table, with each tool's toolset (GITEA_TOOLSETS), generated so the docs cannot drift from
    the declarations."""
    rows = ["| tool | toolset | scopes |", "|---|---|---|"]
    for tool in tools:
        listed = ", ".join(f"`{scope}`" for scope in tool.scopes)
        note = f" {tool.scope_note}" if tool.scope_note else ""
        rows.append(f"| `{tool.name}` | `{tool.toolset}` | {listed}{note} |")
    return "\n".join(rows)


SIGNIN_SETUP = Setup(remote_url=PLACEHOLDER_REMOTE, signin=True)


def readme_sections() -> str:
    """The README's per-client setup, from the same builders as `config` so the two cannot drift."""
    parts = [
        "`gitea-issues-mcp config CLIENT` prints these with your `GITEA_URL` and `GITEA_ALLOWED_OWNERS` filled in "
        "and the launch command of the copy you installed (its full path, so a client with a short PATH finds it); "
        "`--launcher python` launches by your Python's full path, `--launcher uvx` by uvx's full path, `--http URL` "
        "connects to a remote server with your token, `--remote URL` to the team's server that signs you in with "
        "Gitea (no token in any file). Every other setting you give it, as a flag or in the environment, and not at "
        "its default (`--read-only`, `--timeout`, `--ca-bundle` as an absolute path, `--insecure`, `--log-level`) "
        "goes into the server's environment too; for a remote server those are its own settings, and stderr says "
        "they were not written. Without `GITEA_URL` or `GITEA_ALLOWED_OWNERS` it writes the placeholders below and "
        "says so on stderr. Its stdout is the file's content alone: `gitea-issues-mcp config vscode > "
        ".vscode/mcp.json` writes a valid file; the notes go to stderr. Below, the launch command is the installed "
        "`gitea-issues-mcp` by name (installed with pipx from a clone or a wheel, [Install](../README.md#install)); "
        "a client started from a desktop, with a short PATH, needs its full path, which `config` writes.",
    ]
    for name, spec in CLIENTS.items():
        parts.append(f"### {spec.title}\n\n{spec.note} With your settings filled in: `gitea-issues-mcp config {name}`.")
        parts += [_markdown(snippet) for snippet in snippets(name, LINKED)]
        parts.append("Remote server (streamable HTTP):")
        parts += [_markdown(snippet) for snippet in snippets(name, Setup(remote_url=PLACEHOLDER_REMOTE))]
        parts.append(f"The team server, signing you in with Gitea (`--remote URL`): {spec.signin_note}")
        parts += [_markdown(snippet) for snippet in snippets(name, SIGNIN_SETUP)]
    return "\n\n".join(parts) + "\n"


def _markdown(snippet: Snippet) -> str:
    return f"In {snippet.where}:\n\n```{snippet.language}\n{snippet.text}\n```"


# -- docs/settings.md: one table per group of settings, each row from its declaration (gitea_mcp/cli/main.py) ----

# What the reader of the docs needs beyond `--help`'s line (links, what stops the server, what it costs), by flag as
# declared; a setting without one here is documented by its help line, so a new setting is never missing.
_SETTING_MEANINGS = {
    "--url": "Base URL of the instance (`https://gitea.example.com`, or with its sub-path; a trailing `/api/v1` is "
    "fine). Required.",
    "--token": "Access token with `write:issue` and `read:user` (see the [scope table](../README.md#token-scopes)); "
    "the flag names a file holding it.",
    "--allowed-owners": "Comma-separated owners agents may touch, case-insensitive; `*` allows all. Unset: the "
    "server refuses to start.",
    "--read-only": "`true`: the write tools are not offered at all (`true`/`false`, `1`/`0`, `yes`/`no`, "
    "`on`/`off`; anything else stops the server).",
    "--toolsets": "Comma-separated toolsets to serve, of `issues`, `labels`, `milestones`, `people` (default "
    "`all`); each tool's is in the [scope table](tools.md#scopes). The others' tools are not offered at all; "
    "read-only mode still drops the writes within those served. An unknown name stops the server naming the "
    "nearest, and so does a choice that would serve no tool.",
    "--timeout": "Seconds per Gitea request, first byte to last (default 30); a tool call gets four of them.",
    "--log-level": "`DEBUG`, `INFO`, `WARNING` (default), `ERROR` or `CRITICAL`; logs go to stderr only.",
    "--ca-bundle": "CA file for an instance behind a private CA (wins over `REQUESTS_CA_BUNDLE`; a missing file "
    "stops the server).",
    "--insecure": "Skip TLS verification (test instances only; logged loudly).",
    "--lockdown": "`true`: bodies and comments by users without write access to the repository are withheld from "
    "every answer, their issues' titles marked (for public forges; off by default; the token it needs: "
    "[lockdown](operators.md#lockdown-for-public-forges)).",
    "--lockdown-trusted": "Comma-separated logins lockdown trusts besides the repository's writers (e.g. a bot that "
    "writes release notes).",
    "--calls-per-minute": "Tool calls a minute per forge user, all its tokens and replicas together; more are "
    "refused with the seconds to wait (HTTP 429 with `Retry-After` over HTTP); default 60 over HTTP, 600 on stdio, "
    "`0` no limit (see [limits](operators.md#per-user-limits-and-the-forge-budget)).",
    "--forge-requests-per-minute": "Requests a minute to Gitea for the whole deployment, paused when Gitea sends "
    "`Retry-After` or rate-limit headers; a request waits up to 2 s for room, else it is refused unsent (default "
    "600, `0` no budget).",
    "--metrics-port": "Prometheus metrics on a port of their own (default off; the `metrics` extra), stdio or "
    "HTTP, the workers' sum with `GITEA_MCP_WORKERS` (see [metrics](operators.md#metrics-dashboard-and-audit-log)).",
    "--metrics-address": "The address the metrics port listens on (default `127.0.0.1`; name the pod's or "
    "`0.0.0.0` for a scraper elsewhere).",
    "--metrics-detailed": "`true`: also count calls by forge user and by repository (a series for each; default "
    "`false`).",
    "--audit-log": "One JSON line per tool call (who, which client, tool, repository, issue, outcome, write id, "
    "duration; never a token, body or title): `off` (default), `stderr`, or a file's path.",
    "--traces": "OpenTelemetry traces of tool calls and forge requests, carrying on a client's `traceparent`; "
    "exported over OTLP/HTTP where the standard `OTEL_EXPORTER_OTLP_ENDPOINT` says, as `OTEL_SERVICE_NAME`; needs "
    "the `otel` extra (default off; see [traces](operators.md#traces)).",
    "--transport": "`stdio` (default) or `http` (streamable HTTP).",
    "--host": "Where HTTP listens (default `127.0.0.1`).",
    "--port": "HTTP's port (default `8000`; `0`: any free port, named in the start-up line).",
    "--allowed-hosts": "`Host` names HTTP accepts (DNS-rebinding guard), e.g. `mcp.example.com:*`.",
    "--http-secret": "Lets HTTP requests that send this secret in `X-Gitea-MCP-Secret` use `GITEA_TOKEN`.",
    "--calls-per-token": "Tool calls one token may have running at once over HTTP, of the server's 40 (default "
    "20; see [fairness](operators.md#one-caller-cannot-hold-the-server-gitea_mcp_calls_per_token)).",
    "--workers": "HTTP worker processes serving one port, the limits divided among them (default 1; more than 1 "
    "needs `GITEA_MCP_REDIS_URL` unless read-only without sign-in; see [limits](operators.md#limits)).",
    "--redis-url": "Redis or Valkey shared by HTTP replicas, so a write in flight on one runs once on all (the "
    "`redis` extra: `pipx install --force '.[redis]'` in the checkout; see "
    "[replicas](operators.md#replicas-one-write-guard-for-all-gitea_mcp_redis_url)); a URL with a password from "
    "the environment only.",
    "--max-connections": "HTTP connections open at once (default: what `ulimit -n` leaves room for, at most 1000; "
    "a new one replaces the longest-idle).",
    "--signin-requests": "Requests to the sign-in and discovery routes (no token yet) handled at once, a pool apart "
    "from MCP's (default 16; more get 503); see [the HTTP edge](operators.md#threat-model-the-http-edge).",
    "--signin-per-address": "Of those, from one client address (default 4; more get 429).",
    "--lookups-per-address": "Bearer tokens not judged in the last minute that one client address may have "
    "checked with Gitea, per minute; more get 429 (default 60).",
    "--trusted-proxies": "Addresses or networks of the proxies whose `X-Forwarded-For` names the client, for the "
    "per-address limits (default `127.0.0.1,::1`; `*` any; `none` when no proxy is in front).",
    "--public-url": "Sign-in with the forge (HTTP only): the origin clients reach (`https://…`; plain `http` only "
    "for `127.0.0.1`); with `GITEA_MCP_OAUTH_CLIENT_ID` it turns sign-in on (see "
    "[sign-in](operators.md#sign-in-with-the-forge)).",
    "--oauth-client-id": "The Client ID of the Gitea OAuth2 application the server signs users in with.",
    "--oauth-client-secret": "That application's Client Secret (a confidential application).",
    "--oauth-key": "The key every replica shares: one or more comma-separated 32-byte URL-safe base64 keys, the "
    "first signing (required with sign-in).",
    "--client-metadata-documents": "`true` (default): with sign-in, a client may name itself by the URL of its "
    "client ID metadata document, read from the internet; `false`: clients register or use a client ID you made "
    "(offline, or behind a proxy; see [Claude Code offline](clients.md#claude-code-without-client-metadata-"
    "documents-offline-or-behind-a-proxy)).",
}


def settings_tables() -> str:
    """docs/settings.md's tables: every setting the command line declares, its variables and the flag as typed."""
    from gitea_mcp.cli.main import CONNECTION, HTTP, OBSERVE, SIGNIN

    parts = []
    groups = (
        ("Connection", CONNECTION),
        ("HTTP", HTTP),
        ("Sign-in with the forge", SIGNIN),
        ("Metrics, traces and the audit log", OBSERVE),
    )
    for title, group in groups:
        rows = ["| variable | flag | meaning |", "|---|---|---|"]
        for setting in group:
            names = f"`{setting.env[0]}`" + "".join(f" (or `{alias}`)" for alias in setting.env[1:])
            meaning = _SETTING_MEANINGS.get(setting.flag) or setting.help[:1].upper() + setting.help[1:] + "."
            rows.append(f"| {names} | `{setting.typed}` | {meaning} |")
        parts.append(f"### {title}\n\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"


def install_links() -> str:
    """The README's one-click links: VS Code's and Cursor's entry as `config` writes it, launching the installed
    command by name (gitea_mcp/cli/client_entries.install_link)."""
    from gitea_mcp.cli.client_entries import install_link

    return f"[Install in VS Code]({install_link('vscode')}) · [Install in Cursor]({install_link('cursor')})\n"
