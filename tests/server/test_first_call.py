"""Each tool's module is imported on its first call (issue 25): once, however many calls come first at once, and a
module that cannot be imported is a clean isError sentence, never a crash, and is tried again on the next call.
An unknown name still gets the SDK's own answer (tests/test_sdk_surface.py)."""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
from types import ModuleType

import pytest

from gitea_mcp.server.app import build_server
from gitea_mcp.settings import Settings
from gitea_mcp.toolkit import registry
from gitea_mcp.toolkit.base import ToolDefinition
from tests.support.results import answered, failed

SETTINGS = Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}))
NOT_ALLOWED = {"owner": "elsewhere", "name": "widgets", "number": 1}  # refused by the policy: nothing is sent


def test_two_first_calls_at_once_import_the_module_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_loaded", {})
    imports: list[str] = []
    real = importlib.import_module

    def slow_import(name: str) -> ModuleType:
        imports.append(name)
        time.sleep(0.2)  # the second thread arrives while the first imports
        return real(name)

    monkeypatch.setattr(importlib, "import_module", slow_import)  # the registry imports through it
    start = threading.Barrier(2)
    got: list[ToolDefinition] = []

    def first_call() -> None:
        start.wait()
        got.append(registry.definition("issue_get"))

    threads = [threading.Thread(target=first_call) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert imports == ["gitea_mcp.tools.issue_get"]
    assert len(got) == 2 and got[0] is got[1] and got[0].spec == registry.declared("issue_get")


def test_a_module_that_cannot_be_imported_is_a_sentence_and_tried_again(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(registry, "_loaded", {})
    monkeypatch.setitem(registry._MODULE, "issue_get", "gitea_mcp.tools.no_such_module")
    server = build_server(SETTINGS)
    result = answered(asyncio.run(server.call_tool("issue_get", NOT_ALLOWED)))
    assert failed(result) == "issue_get failed inside gitea_mcp (ModuleNotFoundError); the server log has details."
    assert "issue_get could not be loaded" in caplog.text
    monkeypatch.setitem(registry._MODULE, "issue_get", "gitea_mcp.tools.issue_get")
    again = answered(asyncio.run(server.call_tool("issue_get", NOT_ALLOWED)))
    assert "elsewhere" in failed(again) and "failed inside" not in failed(again)  # the policy's refusal this time


def test_a_module_whose_tool_is_not_the_registered_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry lists a tool by its spec; the module that serves it must hold that spec, not another."""
    monkeypatch.setattr(registry, "_loaded", {})
    monkeypatch.setitem(registry._MODULE, "issue_get", "gitea_mcp.tools.issue_list")
    with pytest.raises(RuntimeError, match="not issue_get's spec"):
        registry.definition("issue_get")
