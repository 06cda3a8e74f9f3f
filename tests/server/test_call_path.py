"""One issue_list call, followed through the package: the modules whose functions it runs, counted by profiling it.

The call goes in where an agent's does (`ToolServer.call_tool`) and runs against the in-process stand-in; start-up
and the first call's imports are left out (a first call is made, then a fresh server's call is counted), and so are
the stand-in itself and the command line. Every thread the call uses is profiled: the event loop's, the tool
thread it runs on, and the Gitea client's workers (`threading.setprofile` reaches threads started after it is set,
so the counted call gets a fresh event loop and a fresh client, whose threads start inside the count).

The figure is held here, never to grow: a module the call newly enters is a crossing a reader has to follow.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from pydantic import SecretStr

import gitea_mcp
from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.standin import DEMO_TOKEN, StandIn
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_list
from tests.support.results import answered, ok, text_of

PACKAGE = Path(gitea_mcp.__file__).parent
NOT_COUNTED = ("cli", "standin")  # the command line that may start a call, and the forge's stand-in
# issue 36 asks for at most 8. Measured 21 on 2026-12-05: the server's entry, admission and memory (3), the
# registry, base, arguments and the tool (4), policy and the filter (2), repo_page and labels (2), the catalogue,
# client, users, models and page (5), rows, facts, render, invisible and envelope (5). Fewer would mean folding
# modules that each hold one idea into others (docs/architecture.md, "One issue_list call"). 22 since the one HTTP
# place (issue 36, item 6): the client sends and reads each answer through gitea/outbound.py, which alone touches
# the HTTP library. 24 since the per-user limit and the forge budget (issue 38): server/quota.py takes the call
# from its user's allowance, gitea/rates.py holds the allowances and the budget each request spends; 25 since
# metrics (issue 38): each forge request is counted through observe.py, a no-op when off.
MOST_MODULES = 25
ARGUMENTS = {"owner": "acme", "name": "widgets", "labels": ["bug"], "limit": 5}  # the architecture doc's example


@pytest.fixture(scope="module")
def settings() -> Iterator[Settings]:
    with StandIn() as standin:
        yield Settings(url=standin.url, token=SecretStr(DEMO_TOKEN), allowed_owners=frozenset({"acme"}))


def entered(settings: Settings) -> dict[str, set[str]]:
    """The package's modules (paths under gitea_mcp/) whose functions one issue_list call runs, each with those
    functions' names."""
    ok(answered(asyncio.run(build_server(settings).call_tool("issue_list", ARGUMENTS))))  # imports and first-call work
    server = build_server(settings)
    seen: dict[str, set[str]] = {}
    lock = threading.Lock()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        path = Path(frame.f_code.co_filename)
        if not path.is_relative_to(PACKAGE):
            return
        module = path.relative_to(PACKAGE).as_posix()
        if not module.startswith(NOT_COUNTED):
            with lock:
                seen.setdefault(module, set()).add(frame.f_code.co_name)

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        result = asyncio.run(server.call_tool("issue_list", ARGUMENTS))
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # None ends it, as for sys.setprofile
    ok(answered(result))
    return seen


def test_one_issue_list_call_enters_few_modules(settings: Settings) -> None:
    seen = entered(settings)
    listed = "\n".join(f"  {module}: {', '.join(sorted(functions))}" for module, functions in sorted(seen.items()))
    assert len(seen) <= MOST_MODULES, (
        f"one issue_list call enters {len(seen)} modules (at most {MOST_MODULES}):\n{listed}"
    )


def test_the_count_sees_every_thread_of_the_call(settings: Settings) -> None:
    """The count can fail: it sees the tool thread (the tool module) and the Gitea client's workers, not just the
    event loop's thread (where only the server's own modules run)."""
    seen = entered(settings)
    assert "server/app.py" in seen and any(module.endswith("/issue_list.py") for module in seen)
    assert "_run_at_once" in seen["gitea/client.py"], "the label lookup and the list go out together"
    assert "get" in seen["gitea/client.py"] and "page_of" in seen["gitea/page.py"]


@pytest.mark.parametrize(("left", "sent"), [(-1.0, False), (30.0, True)], ids=["past", "ahead"])
def test_the_deadline_a_call_is_given_is_the_one_every_request_keeps(
    settings: Settings, left: float, sent: bool
) -> None:
    """Opened once where the call is received and carried down: a deadline already past sends nothing (no layer
    below opens a fresh one), one ahead lets the call run."""
    client = GiteaClient(settings.url, DEMO_TOKEN, timeout=5, retry=RetryPolicy(attempts=1))
    deps = Deps(client=client, policy=Policy(frozenset({"acme"})))
    result = issue_list.TOOL.call(deps, ARGUMENTS, deadline=time.monotonic() + left)
    assert result.is_error is not sent
    if not sent:
        assert text_of(result).startswith("The call ran out of time before GET /repos/acme/widgets/")
