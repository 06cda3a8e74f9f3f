"""Secrets never quoted back: the token, token-shaped runs, and values cut short before they are echoed."""

import re

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
