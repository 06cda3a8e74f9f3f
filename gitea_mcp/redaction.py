"""Secrets never quoted back: the token, token-shaped runs, and values cut short before they are echoed."""

import re
from urllib.parse import urlsplit

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


def redis_display(url: str) -> str:
    """Where a Redis URL points, as messages show it: scheme, host and port (or a socket's path), never the user,
    the password or the query (redis-py also takes ?password=)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    host = parts.netloc.rpartition("@")[2]
    try:
        port = parts.port
    except ValueError:  # `redis://user:password/0` (no @host) would show its password as a port
        return f"{parts.scheme}://{parts.hostname or ''}:…"
    return f"{parts.scheme}://{host}" if port is not None else f"{parts.scheme}://{host}:6379"
