"""Helpers for tests against a mocked Gitea (responses)."""

from __future__ import annotations

from typing import Any

import responses


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


def sent_params(rsps: responses.RequestsMock, index: int = -1, path_end: str = "") -> dict[str, str]:
    """The query parameters of a recorded request (the `index`th of those whose path ends with `path_end`;
    concurrent lookups make the order of different paths vary)."""
    from urllib.parse import parse_qsl, urlsplit

    urls = [c.request.url or "" for c in rsps.calls if urlsplit(c.request.url or "").path.endswith(path_end)]
    return dict(parse_qsl(urlsplit(urls[index]).query))


def refused_connection() -> Exception:
    """What requests raises when nothing listens on Gitea's port (urllib3 2.x, checked against a real closed port
    in tests/tools/test_write_outcomes.py): a ConnectionError around urllib3's NewConnectionError."""
    import requests
    from urllib3.exceptions import MaxRetryError, NewConnectionError

    reason = NewConnectionError(None, "Failed to establish a new connection: [Errno 111] Connection refused")  # type: ignore[arg-type]
    return requests.ConnectionError(MaxRetryError(None, "/api/v1/version", reason=reason))  # type: ignore[arg-type]
