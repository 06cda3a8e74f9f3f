"""Every install and launch snippet of the newcomer's pages (the README, docs/clients.md, docs/settings.md,
docs/tools.md), sorted by what it needs to run, and every client configuration shown checked against its client's
documented format.

- `python`: only Python and this checkout; run in the gate from a fresh copy with a fresh HOME (tests/install/).
- `forge`: a Gitea (`check`, `call`); run there too, against the stand-in, the example's URL and token replaced.
- `docker`, `client` (a client's own command line: claude, codex, gemini, npx): run by `task snippets`
  (tests/snippets/), each skipped with the reason where its tool is missing.
- `team`: the team's HTTP server with sign-in (an operator's `curl` to it); shown, run nowhere, since only an
  operator's own server can answer it.
A shell snippet whose commands fit none of these fails here: a new one must be sorted (and so run) first.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/clients.md", "docs/settings.md", "docs/tools.md"]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)

# What a command needs, by the program it runs (the first word; `export` and `.` only set the shell up).
NEEDS = {
    "python3": "python", "python": "python", "pip": "python", "pipx": "python", "uvx": "python", "task": "python",
    "gitea-issues-mcp": "python", "mkdir": "python",
    "docker": "docker", "claude": "client", "codex": "client", "gemini": "client", "npx": "client",
}  # fmt: skip
SETUP = ("export", ".")
# Commands that talk to a forge, by their subcommand: the example's Gitea must be replaced by one that answers.
FORGE = {"check", "call"}


@dataclass(frozen=True)
class Snippet:
    page: str
    line: int  # where its fence opens, 1-based
    language: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def snippets(pages: list[str] = PAGES) -> list[Snippet]:
    found = []
    for page in pages:
        text = (ROOT / page).read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Snippet(page, line, match.group(1), match.group(2)))
    return found


def commands(snippet: Snippet) -> list[list[str]]:
    """Each command of a shell snippet as words (continued lines joined, comments dropped, split at && ; |)."""
    text = snippet.text.replace("\\\n", " ")
    lines = [line.split("  #")[0].split("   #")[0].strip() for line in text.splitlines()]
    parts = [part for line in lines if line for part in re.split(r"&&|;|\|", line)]
    return [shlex.split(part, comments=True) for part in parts if part.strip()]


def needs(snippet: Snippet) -> str:
    """What a shell snippet needs to run: the most demanding of its commands' needs."""
    kinds = set()
    for words in commands(snippet):
        if words[0] not in SETUP:
            words = [Path(words[0]).name, *words[1:]]  # a venv's own bin/pip is pip
        if words[0] == "curl":
            kinds.add("team" if any("mcp.example.com" in word for word in words) else "docker")
        elif words[0] in SETUP:
            continue
        elif words[0] == "gitea-issues-mcp" and FORGE & set(words[1:2]):
            kinds.add("forge")
        else:
            kinds.add(NEEDS.get(words[0], f"unsorted ({words[0]})"))
    unsorted = sorted(kind for kind in kinds if kind.startswith("unsorted"))
    assert not unsorted, f"{snippet.id}: sort {unsorted} in tests/test_snippets.py's NEEDS, and run it"
    order = ["team", "client", "docker", "forge", "python"]
    return next((kind for kind in order if kind in kinds), "python")


def shell(kind: str | None = None) -> list[Snippet]:
    found = [snippet for snippet in snippets() if snippet.language in ("sh", "bash", "shell")]
    return [snippet for snippet in found if kind is None or needs(snippet) == kind]


# -- the clients' documented formats: the keys each reads, and the shape of one server entry ---------------------

_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_STDIO = {
    "type": "object",
    "required": ["command"],
    "properties": {"type": {"const": "stdio"}, "command": {"type": "string", "minLength": 1},
                   "args": {"type": "array", "items": {"type": "string"}}, "env": _STRINGS},
    "additionalProperties": False,
}  # fmt: skip


def _remote(url_key: str, typed: bool = False) -> dict[str, Any]:
    properties: dict[str, Any] = {url_key: {"type": "string", "pattern": "^https?://"}, "headers": _STRINGS}
    if typed:
        properties["type"] = {"const": "http"}
    return {"type": "object", "required": [url_key], "properties": properties, "additionalProperties": False}


def _servers(key: str, *entries: dict[str, Any], **others: Any) -> dict[str, Any]:
    server = {"anyOf": list(entries)}
    return {
        "type": "object",
        "required": [key],
        "properties": {key: {"type": "object", "minProperties": 1, "additionalProperties": server}, **others},
        "additionalProperties": False,
    }


_INPUTS = {
    "type": "array",
    "items": {"type": "object", "required": ["type", "id", "description"],
              "properties": {"type": {"const": "promptString"}, "id": {"type": "string"},
                             "description": {"type": "string"}, "password": {"type": "boolean"}}},
}  # fmt: skip
# The top-level key names the format: Claude Desktop, Claude Code's .mcp.json, Cursor, Windsurf and Gemini CLI all
# read `mcpServers` (a remote URL under `url`, `serverUrl` for Windsurf, `httpUrl` for Gemini's streamable HTTP);
# VS Code reads `servers` (each typed) beside its `inputs`; Zed reads `context_servers`.
FORMATS = {
    "mcpServers": _servers(
        "mcpServers", _STDIO, _remote("url"), _remote("url", typed=True), _remote("serverUrl"), _remote("httpUrl")
    ),
    "servers": _servers(
        "servers", {**_STDIO, "required": ["type", "command"]}, _remote("url", typed=True), inputs=_INPUTS
    ),
    "context_servers": _servers("context_servers", _STDIO, _remote("url")),
}
CODEX = {
    "type": "object",
    "required": ["mcp_servers"],
    "properties": {
        "mcp_servers": {
            "type": "object",
            "additionalProperties": {
                "oneOf": [
                    {"required": ["command"], "properties": {"command": {"type": "string"}, "args": {"type": "array"},
                     "env": _STRINGS, "env_vars": {"type": "array"}}, "additionalProperties": False},
                    {"required": ["url"], "properties": {"url": {"type": "string"},
                     "bearer_token_env_var": {"type": "string"}}, "additionalProperties": False},
                ]
            },
        }
    },
}  # fmt: skip


def configurations() -> list[Snippet]:
    return [snippet for snippet in snippets() if snippet.language in ("json", "toml")]


@pytest.mark.parametrize("snippet", configurations(), ids=lambda s: s.id)
def test_every_configuration_shown_is_in_its_clients_documented_format(snippet: Snippet) -> None:
    if snippet.language == "toml":
        jsonschema.validate(tomllib.loads(snippet.text), CODEX)
        return
    document = json.loads(snippet.text)
    keys = [key for key in FORMATS if key in document]
    assert len(keys) == 1, f"{snippet.id}: no client reads a file without mcpServers, servers or context_servers"
    jsonschema.validate(document, FORMATS[keys[0]])


@pytest.mark.parametrize(
    "broken",
    [
        {"mcpServers": {"gitea": {"command": "gitea-issues-mcp", "arguments": []}}},  # args, not arguments
        {"servers": {"gitea": {"command": "gitea-issues-mcp"}}},  # VS Code's entries are typed
        {"context_servers": {"gitea": {"httpUrl": "https://mcp.example.com/mcp"}}},  # Gemini's key, not Zed's
        {"mcpServers": {"gitea": {"url": "mcp.example.com"}}},  # no scheme
    ],
)
def test_the_format_check_can_fail(broken: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, FORMATS[next(iter(broken))])


def test_every_shell_snippet_is_sorted_by_what_it_needs() -> None:
    """Each is python, forge, docker, client or team (needs() fails on a command it cannot sort), and the pages
    have some of each the newcomer meets: the README's two commands and installs, the images, the clients' CLIs."""
    kinds = {needs(snippet) for snippet in shell()}
    assert {"python", "forge", "docker", "client", "team"} <= kinds, kinds
    with pytest.raises(AssertionError, match="sort"):
        needs(Snippet("x.md", 1, "sh", "make install"))


def test_no_snippet_installs_or_runs_the_package_from_an_index() -> None:
    """The package is on no index: `uvx gitea-issues-mcp`, `pipx install gitea-issues-mcp`, `pip install
    gitea-issues-mcp` all fail as written. Every install comes from the checkout (`.`) or its wheel."""
    wrong = []
    for snippet in snippets():
        for words in commands(snippet) if snippet.language == "sh" else []:
            if words[:1] == ["uvx"] and "--from" not in words:
                wrong.append(f"{snippet.id}: {shlex.join(words)}")
            if words[:2] in (["pipx", "install"], ["pip", "install"]) and any(
                word.startswith("gitea-issues-mcp") for word in words[2:]
            ):
                wrong.append(f"{snippet.id}: {shlex.join(words)}")
    assert wrong == []


def test_the_container_recipes_keep_stdin_open_and_publish_on_loopback_only() -> None:
    """A stdio client's `docker run` needs `-i` (and the stdio transport: the image serves HTTP by default); an
    HTTP one publishes on 127.0.0.1, never on every address of the machine (`-p 8000:8000`)."""
    runs = [words for snippet in shell("docker") for words in commands(snippet) if words[:2] == ["docker", "run"]]
    stdio = [words for words in runs if "GITEA_MCP_TRANSPORT=stdio" in words]
    published = [words[words.index("-p") + 1] for words in runs if "-p" in words]
    assert stdio and all("-i" in words and "-d" not in words for words in stdio)
    assert published and all(port.startswith("127.0.0.1:") for port in published), published
    # The token passed on by name from the caller's environment, never as a value every user's `ps` shows.
    assert all("GITEA_TOKEN" in words and not any(w.startswith("GITEA_TOKEN=") for w in words) for words in stdio)


def test_the_mcp_json_example_shows_the_absolute_path_config_writes() -> None:
    """Claude Code's project file in the README is what `config claude-code > .mcp.json` writes: the command by its
    absolute path (a client's own PATH may not hold it), shown as under a pipx install in the user's HOME."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- snippet: claude-code .mcp.json -->\n```json\n", 1)[1].split("\n```", 1)[0]
    entry = json.loads(block)["mcpServers"]["gitea"]
    assert entry["command"] == "/home/you/.local/bin/gitea-issues-mcp" and entry["type"] == "stdio"
    assert entry["env"]["GITEA_TOKEN"] == "${GITEA_TOKEN}"
