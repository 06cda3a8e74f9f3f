"""The one exception type a tool turns into an `isError` result.

Every message is written for the model that called the tool: what failed, why, and what to do.
It must never contain the token or a stack trace.
"""

import re


class ToolFailure(Exception):
    """A failure the caller can act on; `str(exc)` is the whole user-facing message."""


class BadArgument(ToolFailure):
    """The call's arguments are wrong in themselves (unknown, malformed, missing), whatever the server holds;
    refused before anything is sent. Its result is marked (render.BAD_ARGUMENT) so `call` exits 2 on it."""


# "Token-shaped", defined once: a run of 32 or more hex digits. A Gitea access token is 40 of them; 32 also catches
# a token cut short and other hex secrets. Such a run is never quoted back, whatever setting or answer it came in.
TOKEN_SHAPED = re.compile(r"[0-9A-Fa-f]{32,}")
REDACTED = "[redacted]"


def redact(text: str, *secrets: str | None) -> str:
    """`text` without token-shaped runs, nor any of `secrets` (the configured token, whatever its shape)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return TOKEN_SHAPED.sub(REDACTED, text)


def shown(value: object, limit: int = 40) -> str:
    """A value quoted back in a message, cut short: never 100 KB of someone's input, never a pasted secret."""
    text = redact(str(value))
    return repr(text if len(text) <= limit else text[:limit] + "…")
