"""stdio with an answer for every message: a line the SDK cannot read is answered here, never dropped.

The SDK's stdio transport turns a line that is not a JSON-RPC message (malformed JSON, nesting deeper than its
parser goes, a valid JSON value that is no message) into an exception its dispatcher only logs at DEBUG: the
client, which sent a request with an id, waits for its answer forever (issue 35). So the process's stdin and stdout
are handed to the SDK through two stand-ins, its only public way in (a `sys.stdin`/`sys.stdout` not backed by
descriptors 0 and 1 is served as it is):

- `Lines` reads the client's lines from the real stdin, at most MAX_LINE bytes each, and checks each as the SDK
  will; a line that passes goes on to the SDK unchanged, one that does not is answered with a JSON-RPC error
  carrying the request's id when one can be read (JSON-RPC 2.0 §5.1: -32700 parse error, -32600 invalid request),
  else a null id, and the client learns its request failed.
- `Wire` writes to the real stdout whole lines only, under one lock, so an error answer never lands inside the
  SDK's answer to another request.

Descriptors 0 and 1 themselves point at the null device and at stderr meanwhile, as the SDK does for its own, so a
stray print, or a child process, never writes into the protocol channel.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO

import mcp_types
from pydantic import ValidationError

log = logging.getLogger("gitea_mcp")

MAX_LINE = 8 * 1_048_576  # bytes of one message: an issue body of a megabyte, escaped, is a fraction of it
ID_WITHIN = 65_536  # bytes of a refused line looked through for its id (clients put it near the start)
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class Wire(io.BufferedIOBase):
    """The protocol channel out: bytes are held until a line ends, and each whole line is written under a lock."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.lock = threading.Lock()
        self._partial = b""

    @property
    def name(self) -> str:
        return "<stdout>"

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        held = self._partial + bytes(data)
        whole, newline, rest = held.rpartition(b"\n")
        self._partial = rest
        if newline:
            self.line(whole + newline)
        return len(data)

    def line(self, data: bytes) -> None:
        with self.lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]


class Stray(io.TextIOWrapper):
    """`sys.stdout` while serving: its buffer is the wire (the SDK takes it), but what is printed goes to stderr."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


class Lines(io.RawIOBase):
    """The protocol channel in: the client's lines that are messages, in order; each other line is answered."""

    def __init__(self, source: BinaryIO, wire: Wire) -> None:
        super().__init__()
        self.source, self.wire = source, wire
        self._ready = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._ready:
            line = self.source.readline(MAX_LINE + 1)
            if not line:
                return 0  # the client closed stdin: the SDK ends the session
            self._ready = self._checked(line)
        size = min(len(buffer), len(self._ready))
        buffer[:size] = self._ready[:size]
        self._ready = self._ready[size:]
        return size

    def _checked(self, line: bytes) -> bytes:
        """`line` if the SDK can read it as a message; else b"" once it has been answered."""
        if not line.strip():
            return b""  # a blank line is no message (the SDK would drop it silently too)
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            self._skip_rest()
            return self._refuse(line, INVALID_REQUEST, f"the message is over {MAX_LINE:,} bytes; send a smaller one")
        text = line.decode("utf-8", errors="replace")  # as the SDK decodes its stdin
        try:
            mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValidationError as exc:
            return self._refuse(line, *_why(exc))
        return line

    def _skip_rest(self) -> None:
        while (more := self.source.readline(MAX_LINE)) and not more.endswith(b"\n"):
            pass

    def _refuse(self, line: bytes, code: int, message: str) -> bytes:
        request = request_id(line)
        log.warning("stdio: a message was refused (%s): %s", code, message)
        answer = {"jsonrpc": "2.0", "id": request, "error": {"code": code, "message": message}}
        self.wire.line(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
        return b""


def _why(exc: ValidationError) -> tuple[int, str]:
    first = exc.errors()[0]
    if first["type"] != "json_invalid":
        return INVALID_REQUEST, (
            'the message is JSON but not a JSON-RPC 2.0 message; send an object with jsonrpc "2.0", an id, a method '
            "and its params"
        )
    if "recursion limit" in first["msg"]:
        return INVALID_REQUEST, "the message nests deeper than this server reads; an MCP request needs a few levels"
    return PARSE_ERROR, "the message is not valid JSON; send one JSON-RPC message per line"


# The tokens of JSON that matter to find a member: a string, a structural character, or a run of anything else.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)")


def request_id(line: bytes) -> str | int | None:
    """The `id` member of the object `line` holds, read without parsing it whole (it may be malformed or too deep
    to parse): a string or a whole number among the top-level members in its first ID_WITHIN bytes, else None."""
    depth, key, after_colon = 0, None, False
    for found in _TOKEN.finditer(line, 0, ID_WITHIN):
        token = found.group()
        if token in (b"{", b"["):
            if depth == 1 and after_colon:
                key, after_colon = None, False
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
        elif depth != 1:
            continue
        elif token == b":":
            after_colon = True
        elif token == b",":
            key, after_colon = None, False
        elif not after_colon:
            key = token
        elif key == b'"id"':
            return _id_value(token)
    return None


def _id_value(token: bytes) -> str | int | None:
    if token.startswith(b'"'):
        with contextlib.suppress(ValueError):
            value = json.loads(token)
            return value if isinstance(value, str) else None
    if _NUMBER.fullmatch(token):
        return int(token)
    return None


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Serve the SDK's stdio transport through `Lines` and `Wire` (module docstring) for the block's length."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    stdin, stdout = sys.stdin, sys.stdout
    wire = Wire(wire_out)
    source: BinaryIO = io.BufferedReader(io.FileIO(wire_in, "rb", closefd=False))
    sys.stdin = io.TextIOWrapper(io.BufferedReader(Lines(source, wire)), encoding="utf-8")
    sys.stdout = Stray(wire, encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin, sys.stdout = stdin, stdout
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        for fd in (wire_in, wire_out):
            os.close(fd)
