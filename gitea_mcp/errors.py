"""The one exception type a tool turns into an `isError` result.

Every message is written for the model that called the tool: what failed, why, and what to do.
It must never contain the token or a stack trace.
"""


class ToolFailure(Exception):
    """A failure the caller can act on; `str(exc)` is the whole user-facing message."""
