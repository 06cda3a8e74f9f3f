"""The audit log (GITEA_MCP_AUDIT_LOG): one JSON line per tool call — when, who, which client, which tool, on which
repository and issue, how it ended, the write's id, how long it took. Never a token, a body, a title or a comment:
the line is built from a fixed set of fields, each a value of ours or checked to be what it says (a repository only
when both its names pass Gitea's name rule and hold no token-shaped run), never from the arguments as given.

Off by default: a record of who did what is personal data, and its place and its keeping are the operator's to
choose (and a stdio server's one user has no one to audit); `stderr` puts it beside the logs, a path in a file of
its own (created 0600). Each line is one `write` of the whole line to a descriptor opened with O_APPEND (inherited
by every worker), so lines from workers never interleave; a write that fails is said once in the log and the call
answers all the same.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from gitea_mcp.domain.policy import is_name
from gitea_mcp.redaction import TOKEN_SHAPED, redact
from gitea_mcp.settings import ConfigError

log = logging.getLogger("gitea_mcp")

OFF, STDERR = "off", "stderr"
FIELDS = ("time", "user", "client", "tool", "repository", "issue", "outcome", "write_id", "duration_ms")
_LONGEST = 100  # characters of a login or a client's name or version kept


class AuditLog:
    """Where the lines go: a descriptor, written to whole, line by line."""

    def __init__(self, fd: int, where: str, secrets: tuple[str, ...] = ()) -> None:
        self.fd = fd
        self.where = where  # `stderr`, or the file's path
        self.secrets = tuple(secret for secret in secrets if secret)  # the server's own token: never written
        self._failed = False

    def holds_secret(self, text: str) -> bool:
        """Whether `text` holds one of the server's secrets, or a run of 8 characters or more of one."""
        return any(secret in text or (len(text) >= 8 and text in secret) for secret in self.secrets)

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"
        try:
            os.write(self.fd, line.encode("ascii"))
        except OSError as exc:
            if not self._failed:  # once: a full disk would otherwise add a line of its own to every call
                self._failed = True
                log.warning("the audit log %s cannot be written (%s); calls go on unrecorded", self.where, exc)


def open_log(setting: str | None, secrets: tuple[str | None, ...] = ()) -> AuditLog | None:
    """The log GITEA_MCP_AUDIT_LOG names (`off`, `stderr` or a file's path), opened now so that a path that cannot
    be written stops the server at start, in one sentence. `secrets`: values no line may hold (the server's token)."""
    kept = tuple(secret for secret in secrets if secret)
    if setting is None or setting.strip().lower() in ("", OFF):
        return None
    if setting.strip().lower() == STDERR:
        return AuditLog(sys.stderr.fileno(), STDERR, kept)
    try:
        fd = os.open(setting, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise ConfigError(
            f"GITEA_MCP_AUDIT_LOG={redact(setting)[:200]!r} cannot be opened for appending ({exc.strerror or exc}); "
            "give a file this user may write in an existing directory, or stderr, or off"
        ) from None
    return AuditLog(fd, setting, kept)


def record(
    *,
    tool: str | None,
    arguments: Any,
    outcome: str,
    seconds: float,
    user: str | None,
    client: str | None,
    write_id: str | None,
    repository: str | None,
) -> dict[str, Any]:
    """One call's line: the fields FIELDS names, in that order."""
    return {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "user": _kept(user),
        "client": client,
        "tool": tool,
        "repository": repository,
        "issue": issue(arguments),
        "outcome": outcome,
        "write_id": write_id,
        "duration_ms": round(seconds * 1000, 1),
    }


def repository(arguments: Any, secret: Callable[[str], bool] = lambda text: False) -> str | None:
    """`owner/name` from the arguments when both are names Gitea could have, with no token-shaped run and nothing
    `secret` finds (the call's token, the server's); an owner alone for a tool that takes only an owner; else None:
    what an agent sent is not quoted as it came."""
    if not isinstance(arguments, dict):
        return None
    owner, name = arguments.get("owner"), arguments.get("name")
    if not _a_name(owner, secret):
        return None
    if name is None:
        return str(owner)
    return f"{owner}/{name}" if _a_name(name, secret) else None


def _a_name(value: object, secret: Callable[[str], bool]) -> bool:
    return isinstance(value, str) and is_name(value) and TOKEN_SHAPED.search(value) is None and not secret(value)


def issue(arguments: Any) -> int | None:
    number = arguments.get("number") if isinstance(arguments, dict) else None
    if isinstance(number, int) and not isinstance(number, bool) and 0 < number < 2**63:
        return number
    return None


def client_of(name: object, version: object) -> str | None:
    """`name/version` of the MCP client (its clientInfo, or the User-Agent it sent), token-shaped runs removed and
    cut short: the client's own words, which it could fill with anything."""
    if not isinstance(name, str) or not name:
        return None
    said = _kept(name)
    if isinstance(version, str) and version:
        said = f"{said}/{_kept(version)}"
    return said


def _kept(value: str | None) -> str | None:
    if value is None:
        return None
    text = redact(value)
    return text if len(text) <= _LONGEST else text[:_LONGEST] + "…"
