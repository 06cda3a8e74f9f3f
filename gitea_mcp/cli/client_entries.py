"""Ready-to-paste MCP client configuration: one builder per client, shared by `config` and the README.

Every snippet keeps the token out of the file the client's own way (VS Code prompts for it, most others expand an
environment variable); only Claude Desktop, which expands nothing, gets a placeholder to replace.
"""

from __future__ import annotations

import base64
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from gitea_mcp.redaction import shown

DIST = "gitea-issues-mcp"
SERVER = "gitea"
MCP_PATH = "/mcp"
TOKEN_ENV = "GITEA_TOKEN"
PLACEHOLDER_URL = "https://gitea.example.com"
PLACEHOLDER_OWNERS = "your-org"
PLACEHOLDER_REMOTE = "https://mcp.example.com/mcp"
PLACEHOLDER_TOKEN = "<your Gitea token>"
VSCODE_INPUT = "gitea-token"
# What `config` writes when a setting is not given: (variable, the flag that gives it, the placeholder).
_PLACEHOLDERS = (
    ("GITEA_URL", "--url", PLACEHOLDER_URL),
    ("GITEA_ALLOWED_OWNERS", "--allowed-owners", PLACEHOLDER_OWNERS),
)


@dataclass(frozen=True)
class Setup:
    """What a snippet needs: where Gitea is, whose repositories, how to launch, or the remote endpoint."""

    gitea_url: str = PLACEHOLDER_URL
    allowed_owners: str = PLACEHOLDER_OWNERS
    command: str = "uvx"
    args: tuple[str, ...] = (DIST,)
    remote_url: str | None = None  # a streamable-HTTP endpoint; None means a local stdio server
    # With remote_url: the server signs users in through Gitea (OAuth), so the client sends no token at all.
    signin: bool = False
    settings: tuple[tuple[str, str], ...] = ()  # the other settings not at their default: (variable, value)


@dataclass(frozen=True)
class Snippet:
    where: str  # one sentence: which file or terminal this goes into
    language: str  # json, toml or sh (the Markdown fence)
    text: str


@dataclass(frozen=True)
class Client:
    title: str
    note: str  # what to do after pasting, and where the token comes from
    build: Callable[[Setup], list[Snippet]]
    signin_note: str  # for a server that signs in through Gitea: how the client signs in


def remote_endpoint(url: str) -> str:
    """The server answers on /mcp; users often paste the bare host."""
    url = url.strip().rstrip("/")
    return url if url.endswith(MCP_PATH) else url + MCP_PATH


def signin_endpoint(url: str) -> str:
    """`config --remote URL`: the team server's MCP endpoint, `/mcp` added to a bare origin. Refused in one sentence
    (ValueError): anything but http(s), credentials (the client would store them), a query or a fragment."""
    parts = urlsplit(url.strip())
    form = "write it as https://mcp.example.com/mcp (or the bare origin, https://mcp.example.com)"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{shown(url)} is not an http:// or https:// URL; {form}")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"the URL holds a user name or password (user:pass@host): signing in replaces them; {form}")
    if parts.query or parts.fragment or url.strip().endswith(("?", "#")):
        raise ValueError(f"the URL has a query or fragment, which no MCP endpoint takes; {form}")
    path = parts.path.rstrip("/") or MCP_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


def _toml_string(value: str) -> str:
    # A JSON string is a valid TOML basic string once non-ASCII is kept literal (TOML has no surrogate escapes).
    return json.dumps(value, ensure_ascii=False)


def _settings(setup: Setup) -> dict[str, str]:
    return {"GITEA_URL": setup.gitea_url, "GITEA_ALLOWED_OWNERS": setup.allowed_owners, **dict(setup.settings)}


def _env(setup: Setup, token: str) -> dict[str, str]:
    return {**_settings(setup), TOKEN_ENV: token}


def _stdio(setup: Setup, token: str) -> dict[str, Any]:
    return {"command": setup.command, "args": list(setup.args), "env": _env(setup, token)}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _entry(setup: Setup, token: str, url_key: str = "url", typed: bool = False) -> dict[str, Any]:
    """The server's entry: a command to launch, or the remote URL under the client's own key for it (with the token
    as a header, unless the server signs its users in: then the client finds the sign-in itself, RFC 9728)."""
    if setup.remote_url is None:
        kind, entry = "stdio", _stdio(setup, token)
    elif setup.signin:
        kind, entry = "http", {url_key: setup.remote_url}
    else:
        kind, entry = "http", {url_key: setup.remote_url, "headers": _bearer(token)}
    return {"type": kind, **entry} if typed else entry


def _mcp_servers(entry: dict[str, Any]) -> str:
    return _json({"mcpServers": {SERVER: entry}})


# -- one builder per client --------------------------------------------------------------------------------------


def _claude_desktop(setup: Setup) -> list[Snippet]:
    where = "`claude_desktop_config.json` (Settings → Developer → Edit Config), merged into `mcpServers`"
    if setup.remote_url is None:
        return [Snippet(where, "json", _mcp_servers(_stdio(setup, PLACEHOLDER_TOKEN)))]
    if setup.signin:
        # Its config file takes local servers only; a remote one that signs in is a connector, added in the app.
        connector = (
            "Settings → Connectors → Add custom connector (not `claude_desktop_config.json`: it takes local "
            "servers only)"
        )
        return [Snippet(connector, "text", f"Name: {SERVER}\nRemote MCP server URL: {setup.remote_url}")]
    # Claude Desktop's config takes no URL entries; mcp-remote bridges stdio to HTTP. The header travels
    # through a variable because a space inside an argument breaks on Windows.
    args = ["-y", "mcp-remote", setup.remote_url, "--header", "Authorization:${AUTH_HEADER}"]
    entry = {"command": "npx", "args": args, "env": {"AUTH_HEADER": f"Bearer {PLACEHOLDER_TOKEN}"}}
    return [Snippet(where, "json", _mcp_servers(entry))]


def _claude_code(setup: Setup) -> list[Snippet]:
    token = "${" + TOKEN_ENV + "}"  # single-quoted below: Claude Code stores the reference and expands it at launch
    if setup.remote_url is None:
        envs = [arg for key, value in _env(setup, token).items() for arg in ("--env", f"{key}={value}")]
        # The name before the --env flags: --env takes several values and would swallow it (Claude Code 2.x).
        argv = ["claude", "mcp", "add", "--transport", "stdio", SERVER, *envs, "--", setup.command, *setup.args]
    elif setup.signin:
        argv = ["claude", "mcp", "add", "--transport", "http", SERVER, setup.remote_url]
    else:
        header = f"Authorization: Bearer {token}"
        argv = ["claude", "mcp", "add", "--transport", "http", SERVER, setup.remote_url, "--header", header]
    project = _mcp_servers(_entry(setup, token, typed=True))
    return [
        Snippet("a terminal (for every project: `--scope user` right after `claude mcp add`)", "sh", shlex.join(argv)),
        Snippet("`.mcp.json` at the project root (shared with the project)", "json", project),
    ]


def _vscode(setup: Setup) -> list[Snippet]:
    prompt = {"type": "promptString", "id": VSCODE_INPUT, "description": "Gitea access token", "password": True}
    entry = _entry(setup, "${input:" + VSCODE_INPUT + "}", typed=True)
    where = "`.vscode/mcp.json`, or the user `mcp.json` (command MCP: Open User Configuration)"
    if setup.signin:  # no token to ask for
        return [Snippet(where, "json", _json({"servers": {SERVER: entry}}))]
    return [Snippet(where, "json", _json({"inputs": [prompt], "servers": {SERVER: entry}}))]


def _cursor(setup: Setup) -> list[Snippet]:
    entry = _entry(setup, "${env:" + TOKEN_ENV + "}")
    where = "`~/.cursor/mcp.json` (every project) or `.cursor/mcp.json` (one project)"
    return [Snippet(where, "json", _mcp_servers(entry))]


def _windsurf(setup: Setup) -> list[Snippet]:
    entry = _entry(setup, "${env:" + TOKEN_ENV + "}", url_key="serverUrl")
    where = "`~/.codeium/windsurf/mcp_config.json` (MCP settings → View Raw Config)"
    return [Snippet(where, "json", _mcp_servers(entry))]


def _gemini(setup: Setup) -> list[Snippet]:
    # httpUrl is streamable HTTP; Gemini's `url` would mean the old SSE transport.
    entry = _entry(setup, "${" + TOKEN_ENV + "}", url_key="httpUrl")
    where = "`~/.gemini/settings.json` (every project) or `.gemini/settings.json` (one project)"
    return [Snippet(where, "json", _mcp_servers(entry))]


def _zed(setup: Setup) -> list[Snippet]:
    # The token as a placeholder to replace, as in Claude Desktop: Zed's documented `env` holds values, not references.
    entry = _entry(setup, PLACEHOLDER_TOKEN)
    where = "Zed's `settings.json` (command zed: open settings), merged into `context_servers`"
    return [Snippet(where, "json", _json({"context_servers": {SERVER: entry}}))]


def _codex(setup: Setup) -> list[Snippet]:
    lines = [f"[mcp_servers.{SERVER}]"]
    if setup.remote_url is None:
        env = ", ".join(f"{key} = {_toml_string(value)}" for key, value in _settings(setup).items())
        lines += [
            f"command = {_toml_string(setup.command)}",
            f"args = [{', '.join(_toml_string(arg) for arg in setup.args)}]",
            f"env = {{ {env} }}",
            # Forwarded from Codex's own environment, so the token is never written here.
            f"env_vars = [{_toml_string(TOKEN_ENV)}]",
        ]
    elif setup.signin:
        lines += [f"url = {_toml_string(setup.remote_url)}"]
    else:
        # Codex ignores a key named `headers`; bearer_token_env_var is its way to send a token.
        lines += [f"url = {_toml_string(setup.remote_url)}", f"bearer_token_env_var = {_toml_string(TOKEN_ENV)}"]
    return [Snippet("`~/.codex/config.toml`", "toml", "\n".join(lines))]


_NO_TOKEN = " No token goes into any file: the client keeps what the sign-in gives it."
_FROM_ENV = f"The token comes from `{TOKEN_ENV}` in the environment the client starts from."
CLIENTS: dict[str, Client] = {
    "claude-desktop": Client(
        "Claude Desktop",
        f"Restart Claude Desktop after saving. It expands no variables: replace `{PLACEHOLDER_TOKEN}` and keep the "
        "file private. The remote form needs Node.js (`npx` runs mcp-remote).",
        _claude_desktop,
        "Add it as a custom connector, then press Connect: Claude Desktop opens Gitea's sign-in in your browser. "
        "Custom connectors come with Claude's paid plans and, in an organisation, are added by its owners.",
    ),
    "claude-code": Client(
        "Claude Code",
        _FROM_ENV + " Check with `claude mcp list`.",
        _claude_code,
        "Sign in from inside Claude Code: `/mcp`, pick gitea, Authenticate (your browser opens Gitea).",
    ),
    "vscode": Client(
        "VS Code",
        "VS Code asks for the token once and keeps it in its secret storage.",
        _vscode,
        "Start the server (MCP: List Servers, or Start above its entry): VS Code asks to sign in and opens Gitea in "
        "your browser.",
    ),
    "cursor": Client(
        "Cursor", _FROM_ENV, _cursor, "In Cursor Settings → MCP the server shows Needs login: click it to sign in."
    ),
    "windsurf": Client(
        "Windsurf",
        _FROM_ENV + " Press Refresh in the MCP settings after saving.",
        _windsurf,
        "Press Refresh in the MCP settings after saving; Windsurf opens Gitea's sign-in in your browser.",
    ),
    "gemini": Client(
        "Gemini CLI",
        _FROM_ENV + " Check with `/mcp` inside Gemini CLI.",
        _gemini,
        "Sign in with `/mcp auth gitea` inside Gemini CLI (your browser opens Gitea).",
    ),
    "zed": Client(
        "Zed",
        f"Replace `{PLACEHOLDER_TOKEN}` with the token and keep the file private; the agent panel starts the server.",
        _zed,
        "Zed opens Gitea's sign-in in your browser when the agent panel first starts the server.",
    ),
    "codex": Client(
        "Codex CLI",
        _FROM_ENV + " Check with `codex mcp list`.",
        _codex,
        "Sign in with `codex mcp login gitea` (your browser opens Gitea); check with `codex mcp list`.",
    ),
}


def snippets(client: str, setup: Setup) -> list[Snippet]:
    return CLIENTS[client].build(setup)


def render(client: str, setup: Setup) -> tuple[str, str]:
    """What `config` prints: the file's content alone (stdout, so `> file` writes a valid file), and the notes —
    where it goes, what to do next, a terminal alternative — as `#` lines for stderr."""
    spec = CLIENTS[client]
    found = snippets(client, setup)
    file = next(snippet for snippet in reversed(found) if snippet.language != "sh")
    note = spec.signin_note + _NO_TOKEN if setup.remote_url is not None and setup.signin else spec.note
    notes = [f"# {spec.title}: {note}", f"# stdout → {file.where}"]
    for other in (snippet for snippet in found if snippet is not file):
        notes += [f"# or, in {other.where}:", *(f"#   {line}" for line in other.text.splitlines())]
    return file.text, "\n".join(notes + _warnings(setup))


def _warnings(setup: Setup) -> list[str]:
    """What the file does not do as it stands: placeholders to replace, settings that belong to a remote server."""
    if setup.remote_url is not None:
        if not setup.settings:
            return []
        names = ", ".join(f"{key}={value}" for key, value in setup.settings)
        return [f"# not written: {names} — set these where the remote server runs (its client sends only the token)"]
    written = _settings(setup)
    unset = [(name, flag) for name, flag, placeholder in _PLACEHOLDERS if written[name] == placeholder]
    if not unset:
        return []
    values = " and ".join(f"{name}={written[name]}" for name, _ in unset)
    how = " and ".join(f"{flag} (or {name} set)" for name, flag in unset)
    return [f"# {values}: placeholders — replace them in the file, or run this again with {how}"]


# -- one-click install links, for the editors that take them -----------------------------------------------------

# The installed command by name: a link cannot know where the reader's copy is (`config` writes its full path).
LINKED = Setup(command=DIST, args=())
VSCODE_LINK = "https://insiders.vscode.dev/redirect/mcp/install"  # opens VS Code's own vscode:mcp/install handler
CURSOR_LINK = "cursor://anysphere.cursor-deeplink/mcp/install"


def install_link(client: str, setup: Setup = LINKED) -> str:
    """The link that adds the server to VS Code or Cursor: the same entry `config` writes, in the form each editor
    documents (VS Code: name, inputs and the entry as JSON query values; Cursor: the entry as base64 JSON)."""
    document = json.loads(next(s for s in snippets(client, setup) if s.language == "json").text)
    if client == "vscode":
        query = {"name": SERVER, **({"inputs": _compact(document["inputs"])} if "inputs" in document else {})}
        return f"{VSCODE_LINK}?{urlencode({**query, 'config': _compact(document['servers'][SERVER])}, quote_via=quote)}"
    if client == "cursor":
        config = base64.b64encode(_compact(document["mcpServers"][SERVER]).encode("utf-8")).decode("ascii")
        return f"{CURSOR_LINK}?{urlencode({'name': SERVER, 'config': config}, quote_via=quote)}"
    raise ValueError(f"{client} takes no install link; only vscode and cursor do")


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
