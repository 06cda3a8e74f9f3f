"""The container recipes of docs/clients.md, run as written against the image `task image` builds: `docker run -i`
serving a stdio client, and `docker run -d` publishing HTTP on 127.0.0.1 only. Run by `task snippets`; without a
Docker engine or the image, skipped with the reason.

Two values are changed, and only these: the published port (8000 may be taken here: Docker picks a free one on
127.0.0.1, which the curl then asks) and the container's name (unique, so runs at once never share one).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from gitea_mcp.cli.stdio_client import stdio_session
from gitea_mcp.toolkit import registry
from tests import test_snippets

IMAGE = "gitea-issues-mcp:dev"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.environ.get("GITEA_MCP_SNIPPETS"), reason="run by `task snippets` (needs Docker)"),
]


def recipes(option: str) -> list[str]:
    return [s.text for s in test_snippets.shell("docker") if option in s.text]


@pytest.fixture(scope="module", autouse=True)
def image() -> None:
    if subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True, timeout=60).returncode != 0:
        pytest.skip(f"no image {IMAGE}: `task image` builds it")


def test_docker_run_i_serves_a_stdio_client() -> None:
    (recipe,) = recipes("GITEA_MCP_TRANSPORT=stdio")
    env = {**os.environ, "GITEA_TOKEN": "0123456789abcdef0123456789abcdef01234567"}  # passed on by name (-e)

    async def listed() -> set[str]:
        async with stdio_session(env, command=["bash", "-c", recipe]) as session:
            return {tool.name for tool in (await session.list_tools()).tools}

    assert asyncio.run(asyncio.wait_for(listed(), 120)) == {spec.name for spec in registry.every()}


@pytest.fixture
def name() -> Iterator[str]:
    name = f"gitea-mcp-snippet-{uuid.uuid4().hex[:8]}"
    yield name
    subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)


def test_docker_run_publishes_http_on_loopback_only(name: str) -> None:
    (recipe,) = recipes("-p 127.0.0.1:")
    run, curl = recipe.splitlines()
    run = run.replace("--name gitea-mcp ", f"--name {name} ").replace("127.0.0.1:8000:8000", "127.0.0.1::8000")
    started = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=180)
    assert started.returncode == 0, started.stderr
    ports = subprocess.run(["docker", "port", name, "8000"], capture_output=True, text=True, timeout=60).stdout
    (published,) = ports.split()  # on 127.0.0.1 alone: no 0.0.0.0 or [::] line
    assert published.startswith("127.0.0.1:"), ports
    done = subprocess.run(["bash", "-c", curl.replace("127.0.0.1:8000", published)], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0 and '{"status":"ok"}' in done.stdout, done.stdout + done.stderr
