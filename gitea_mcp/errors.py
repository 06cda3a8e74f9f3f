"""The one exception type a tool turns into an `isError` result.

Every message is written for the model that called the tool: what failed, why, and what to do.
It must never contain the token or a stack trace.
"""


class ToolFailure(Exception):
    """A failure the caller can act on; `str(exc)` is the whole user-facing message."""


def shown(value: object, limit: int = 40) -> str:
    """A value quoted back in a message, cut short: never 100 KB of someone's input, never a whole pasted secret."""
    text = str(value)
    return repr(text if len(text) <= limit else text[:limit] + "…")
