"""The one exception type a tool turns into an `isError` result.

Every message is written for the model that called the tool: what failed, why, and what to do.
It must never contain the token or a stack trace.
"""


class ToolFailure(Exception):
    """A failure the caller can act on; `str(exc)` is the whole user-facing message."""


class BadArgument(ToolFailure):
    """The call's arguments are wrong in themselves (unknown, malformed, missing), whatever the server holds;
    refused before anything is sent. Its result is marked (envelope.BAD_ARGUMENT) so `call` exits 2 on it."""
