"""Shared fixtures: a Deps wired to a mocked Gitea (responses), and helpers to read a tool's result."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import responses
from mcp_types import CallToolResult, TextContent

from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.policy import Policy
from gitea_mcp.tools.base import Deps
from tests.fixtures import ROOT

TOKEN = "tok-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_token_anywhere(caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """Across the whole suite: the token never reaches a log record, stdout or stderr."""
    caplog.set_level(logging.DEBUG)
    yield
    out, err = capfd.readouterr()
    assert TOKEN not in caplog.text and TOKEN not in out and TOKEN not in err
    # Let the test's own output through for whoever reads the run.
    sys.stdout.write(out)
    sys.stderr.write(err)


@pytest.fixture
def mocked() -> Iterator[responses.RequestsMock]:
    """Gitea mocked; a test fails if a mock it registered was never used (a dead mock hides a wrong request).

    Fixtures that serve a background a test may or may not touch register it through `optional(rsps)`.
    """
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        yield rsps
        for unused in [r for r in getattr(rsps, "_optional", []) if r.call_count == 0]:
            rsps.remove(unused)


class _Optional:
    """`optional(rsps).get(url, ...)`: a mock that may go unused without failing the test."""

    def __init__(self, rsps: responses.RequestsMock) -> None:
        self._rsps = rsps
        if not hasattr(rsps, "_optional"):
            rsps._optional = []  # type: ignore[attr-defined]

    def __getattr__(self, method: str) -> Any:
        register = getattr(self._rsps, method)

        def add(*args: Any, **kwargs: Any) -> Any:
            response = register(*args, **kwargs)
            self._rsps._optional.append(response)  # type: ignore[attr-defined]
            return response

        return add


def optional(rsps: responses.RequestsMock) -> Any:
    return _Optional(rsps)


@pytest.fixture
def deps() -> Deps:
    # No retry sleeps in unit tests; retries have their own tests.
    client = GiteaClient(ROOT, TOKEN, timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    assert TOKEN not in block.text
    return block.text


def ok(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    text = text_of(result)
    assert not result.is_error, text
    assert result.structured_content is not None
    return text, result.structured_content


def failed(result: CallToolResult) -> str:
    text = text_of(result)
    assert result.is_error, text
    assert result.structured_content is None
    assert "Traceback" not in text
    return text


def sent_params(rsps: responses.RequestsMock, index: int = -1, path_end: str = "") -> dict[str, str]:
    """The query parameters of a recorded request (the `index`th of those whose path ends with `path_end`;
    concurrent lookups make the order of different paths vary)."""
    from urllib.parse import parse_qsl, urlsplit

    urls = [c.request.url or "" for c in rsps.calls if urlsplit(c.request.url or "").path.endswith(path_end)]
    return dict(parse_qsl(urlsplit(urls[index]).query))
