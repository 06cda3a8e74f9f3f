"""The stdio serve path imports only what serving stdio needs (issue 25: start-up and an idle server's memory).

What gitea_mcp loads beyond the SDK's own import (`mcp.server.mcpserver`, `mcp.server.stdio`: what a bare MCPServer
loads) must not hold the HTTP server, the sign-in, the stand-in, the Gitea HTTP library (loaded on the first call)
or the replicas' write guard: each costs start-up time and resident memory a stdio user never uses. Nor the tool
modules: each is imported on its first call.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest

from gitea_mcp.toolkit.registry import offered
from tests.cli.process import CLOSED_GITEA, clean_env

# The path `serve` takes until tools/list is answered, after what the SDK itself imports.
SERVE = """
from gitea_mcp.cli import main
ns = main.parse_args(["serve"])
main._command(ns.command)
from gitea_mcp.server.app import build_server
server = build_server(main.settings_from(ns))
import anyio
anyio.run(server.list_tools)
"""
PROBE = """
import sys
import mcp.server.mcpserver, mcp.server.stdio
sdk = set(sys.modules)
{work}
print("\\n".join(sorted(set(sys.modules) - sdk)))
"""
NEVER_ON_STDIO = [
    "requests",  # the first Gitea call loads it
    "urllib3",
    "redis",  # the replicas' write guard, for GITEA_MCP_REDIS_URL only
    "gitea_mcp.toolkit.shared_flight",  # the same guard, ours
    "uvicorn",  # the SDK loads it already; named so that a change there is seen here
    "cryptography",  # the same: the SDK's own, never ours on this path
    "gitea_mcp.server.http",
    "gitea_mcp.server.limits",
    "gitea_mcp.server.discovery",
    "gitea_mcp.server.signin",
    "gitea_mcp.gitea.oauth",
    "gitea_mcp.cli.signin_check",
    "gitea_mcp.cli.stdio_client",
    "gitea_mcp.standin",
    "difflib",  # the guess after a mistyped command or flag
    # Each tool's module is imported on its first call: tools/list is answered from the stored listing (issue 25).
    *(f"gitea_mcp.tools.{spec.name}" for spec in offered(read_only=False)),
    "gitea_mcp.gitea.models",  # Gitea's JSON, read on the first call
]


def loaded_beyond_the_sdk(work: str) -> set[str]:
    code = PROBE.format(work=work)
    done = subprocess.run(
        [sys.executable, "-c", code], env=clean_env(GITEA_TOKEN="t", **CLOSED_GITEA), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@functools.cache
def serve_path() -> set[str]:
    return loaded_beyond_the_sdk(SERVE)


def holds(modules: set[str], package: str) -> bool:
    return any(name == package or name.startswith(package + ".") for name in modules)


@pytest.mark.slow
@pytest.mark.parametrize("package", NEVER_ON_STDIO)
def test_the_stdio_serve_path_does_not_load(package: str) -> None:
    assert not holds(serve_path(), package), f"serve on stdio loads {package} before its first call"


@pytest.mark.slow
def test_the_probe_sees_what_the_path_loads() -> None:
    """The check can fail: the serve path itself is seen, and a module loaded on it is caught."""
    assert {"gitea_mcp.cli.main", "gitea_mcp.server.app"} <= serve_path()
    assert holds(loaded_beyond_the_sdk(SERVE + "import requests, gitea_mcp.standin\n"), "requests")
    called = SERVE + "anyio.run(server.call_tool, 'issue_get', {'owner': 'acme', 'name': 'w', 'number': 1})\n"
    assert "gitea_mcp.tools.issue_get" in loaded_beyond_the_sdk(called)
