"""Client ID metadata documents (the MCP spec's default way for a client to say who it is): the client ID is an
https URL, and the document there names the client and its redirect URIs and gives that same URL as `client_id`.

Anyone may send any URL to /authorize, so reading one is bounded every way (issue 35, finding 3):

- **One deadline for the whole read** (FETCH_SECONDS): name resolution, connection, TLS, the head and the body.
  A watchdog shuts the socket when it passes, so a server sending its head or body a byte at a time holds nothing
  past it. At most FETCHES_AT_ONCE reads run at once; one URL is read by one request at a time, the others wait
  for its answer.
- **Never inside the network**: the host must resolve to public addresses only, and the connection goes to the
  address that was checked (a DNS answer that changes between the check and the connection is not used).
  No redirect is followed; no proxy, cookie or netrc of this machine is used.
- **Kept as its HTTP caching headers allow** (RFC 9111, for a shared cache: `s-maxage`, `max-age`, `Expires`, and
  `no-store`, `no-cache`, `private` as a lifetime of 0), within the bounds the draft lets a server set
  (draft-ietf-oauth-client-id-metadata-document, "Metadata Caching"): at least FRESH_LEAST, so a document
  answering slowly is not read again at every /authorize, at most FRESH_MOST; FRESH_DEFAULT without any header.
  Only a document that made a client is kept (the draft: never an error or an invalid document), at most
  KEPT_DOCUMENTS of them (each at most MAX_DOCUMENT bytes read), the least recently used going first.
- **A host that did not answer in time is not asked again** for SLOW_HOST_SECONDS: nothing of it is kept (there
  is no document), it is only left alone, as a client backs off from a server that does not answer.

GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false turns them off (clients then register, or use a client ID the operator
made): nothing is ever fetched, and the discovery document says they are not supported.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from gitea_mcp.gitea.outbound import (
    DOCUMENT_SECONDS,
    PUBLIC_DOCUMENT,
    AddressRefused,
    Answer,
    public_address,
    public_get,
)
from gitea_mcp.redaction import shown
from gitea_mcp.server.signin.clients import MAX_URI, BadClient, Client, from_metadata

FETCH_SECONDS = DOCUMENT_SECONDS  # the whole read of one document, from name resolution to its last byte
MAX_DOCUMENT = PUBLIC_DOCUMENT.max_body  # bytes of a document read at most
FETCHES_AT_ONCE = 8  # documents read at once, for all clients together
KEPT_DOCUMENTS = 256  # documents kept at most (each read at most MAX_DOCUMENT bytes): about 2 MB at the very most
FRESH_LEAST = 60.0  # seconds a document is kept at least, whatever its headers say (no-store included)
FRESH_DEFAULT = 300.0  # seconds a document without caching headers is kept
FRESH_MOST = 86_400.0  # seconds a document is kept at most
SLOW_HOST_SECONDS = 60.0  # a host whose document did not come within FETCH_SECONDS is left alone this long
SLOW_HOSTS = 1_024  # hosts remembered as slow at most


class SlowDocument(BadClient):
    """The document did not come within FETCH_SECONDS."""


@dataclass(frozen=True)
class Document:
    body: bytes
    lifetime: float  # seconds it may be kept, from its caching headers, within the bounds above


Get = Callable[[str, str, float], Answer]  # (url, the address to connect to, deadline by time.monotonic())
Fetch = Callable[[str], Document]  # a document read, or BadClient (SlowDocument when it did not come in time)


def fetcher(trial: bool, get: Get | None = None) -> Fetch:
    """Reads a document: its host resolved and checked, then `get` (outbound.public_get by default) within the one
    deadline. `trial`: GITEA_MCP_PUBLIC_URL is http://127.0.0.1, so documents on 127.0.0.1 may be read."""
    getter = get or public_get
    slots = threading.BoundedSemaphore(FETCHES_AT_ONCE)

    def fetch(url: str) -> Document:
        deadline = time.monotonic() + FETCH_SECONDS
        if not slots.acquire(timeout=FETCH_SECONDS):
            raise BadClient("too many client metadata documents are being read at once; try again shortly")
        try:
            address = _public_address(urlsplit(url).hostname or "", trial, deadline)
            try:
                answer = getter(url, address, deadline)
            except Exception:  # every failure (transport, TLS, a broken head or body) is the same to the user
                if time.monotonic() >= deadline:
                    raise SlowDocument(_unreadable(url) + f" within {FETCH_SECONDS:g} s") from None
                raise BadClient(_unreadable(url)) from None
        finally:
            slots.release()
        if time.monotonic() >= deadline:
            raise SlowDocument(_unreadable(url) + f" within {FETCH_SECONDS:g} s")
        if answer.status != 200:
            raise BadClient(f"the client metadata document at {shown(url, 120)} answered {answer.status}, not 200")
        if len(answer.body) > MAX_DOCUMENT:
            raise BadClient(f"the client metadata document at {shown(url, 120)} is over {MAX_DOCUMENT:,} bytes")
        return Document(answer.body, lifetime(answer.headers))

    return fetch


def _unreadable(url: str) -> str:
    return f"the client metadata document at {shown(url, 120)} could not be read"


def lifetime(headers: Mapping[str, str]) -> float:
    """Seconds a document may be kept by a cache shared by every user (RFC 9111 §4.2.1), within FRESH_LEAST and
    FRESH_MOST; FRESH_DEFAULT when the headers say nothing."""
    directives: dict[str, str] = {}
    for part in headers.get("cache-control", "").split(","):
        name, _, value = part.strip().partition("=")
        if name:
            directives[name.lower()] = value.strip().strip('"')
    seconds: float | None
    if directives.keys() & {"no-store", "no-cache", "private"}:
        seconds = 0.0
    elif "s-maxage" in directives or "max-age" in directives:
        seconds = _number(directives.get("s-maxage", directives.get("max-age", "")))
    else:
        seconds = _expires(headers)
    if seconds is None:
        seconds = FRESH_DEFAULT
    seconds -= _number(headers.get("age", "")) or 0.0
    return min(max(seconds, FRESH_LEAST), FRESH_MOST)


def _number(text: str) -> float | None:
    return float(text) if text.isdigit() else None


def _expires(headers: Mapping[str, str]) -> float | None:
    if "expires" not in headers:
        return None
    try:
        expires = parsedate_to_datetime(headers["expires"])
        date = parsedate_to_datetime(headers["date"]) if "date" in headers else None
    except (TypeError, ValueError, IndexError):
        return 0.0  # RFC 9111 §5.3: an Expires that cannot be read means already expired
    if expires.tzinfo is None or (date is not None and date.tzinfo is None):
        return 0.0
    return (expires - date).total_seconds() if date is not None else expires.timestamp() - time.time()


# -- reading -------------------------------------------------------------------------------------------------------

_REFUSED = {  # why outbound.public_address refused a host, in the sign-in's words
    "late": "was not resolved in time",
    "unknown": "is not known",
    "private": "is not a public address",
}


def _public_address(host: str, trial: bool, deadline: float) -> str:
    """The address to connect to, under the PUBLIC_DOCUMENT policy's address guard (gitea/outbound.py)."""
    try:
        return public_address(host, trial, deadline)
    except AddressRefused as exc:
        said = f"the host of the client ID, {shown(host, 80)}, {_REFUSED[exc.why]}"
        raise (SlowDocument(said) if exc.why == "late" else BadClient(said)) from None


# -- the clients they make, kept ---------------------------------------------------------------------------------


@dataclass
class _Flight:
    """One read of one URL under way: the requests that want it too wait for its outcome."""

    done: threading.Event = field(default_factory=threading.Event)
    client: Client | None = None
    refusal: BadClient | None = None


@dataclass
class Documents:
    """The client a metadata document makes: kept while its document is fresh, read once at a time per URL."""

    fetch: Fetch
    trial: bool  # documents on http://127.0.0.1 may be read (GITEA_MCP_PUBLIC_URL is http://127.0.0.1)
    clock: Callable[[], float] = time.monotonic
    _kept: OrderedDict[str, tuple[float, Client]] = field(default_factory=OrderedDict, init=False, repr=False)
    _flights: dict[str, _Flight] = field(default_factory=dict, init=False, repr=False)
    _slow: OrderedDict[str, float] = field(default_factory=OrderedDict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __call__(self, url: str) -> Client:
        self._check_shape(url)
        host = urlsplit(url).hostname or ""
        with self._lock:
            now = self.clock()
            kept = self._kept.get(url)
            if kept is not None and kept[0] > now:
                self._kept.move_to_end(url)
                return kept[1]
            if self._slow.get(host, 0.0) > now:
                raise BadClient(
                    f"the client metadata document at {shown(url, 120)} did not come in time a moment ago; its host "
                    f"is left alone for {SLOW_HOST_SECONDS:g} s"
                )
            flight = self._flights.get(url)
            mine = flight is None
            if flight is None:
                flight = self._flights[url] = _Flight()
        if not mine:
            return self._awaited(url, flight)
        try:
            flight.client = self._read(url, host)
            return flight.client
        except BadClient as exc:
            flight.refusal = exc
            raise
        finally:
            with self._lock:
                self._flights.pop(url, None)
            flight.done.set()

    def _awaited(self, url: str, flight: _Flight) -> Client:
        if not flight.done.wait(FETCH_SECONDS + 1.0) or flight.client is None:
            raise flight.refusal or BadClient(_unreadable(url))
        return flight.client

    def _read(self, url: str, host: str) -> Client:
        try:
            document = self.fetch(url)
        except SlowDocument:
            with self._lock:
                self._slow[host] = self.clock() + SLOW_HOST_SECONDS
                self._slow.move_to_end(host)
                while len(self._slow) > SLOW_HOSTS:
                    self._slow.popitem(last=False)
            raise
        client = _client(url, document.body)  # BadClient: an invalid document is never kept
        with self._lock:
            self._kept[url] = (self.clock() + document.lifetime, client)
            self._kept.move_to_end(url)
            while len(self._kept) > KEPT_DOCUMENTS:
                self._kept.popitem(last=False)
        return client

    def _check_shape(self, url: str) -> None:
        parts = urlsplit(url)
        allowed = parts.scheme == "https" or (self.trial and parts.hostname == "127.0.0.1")
        credentials = "@" in parts.netloc  # https://:pw@host/ has a password and an empty (falsy) user name
        if not allowed or parts.path in ("", "/") or parts.fragment or credentials or len(url) > MAX_URI:
            raise BadClient(
                "a client ID that is a URL must be https with a path (a client ID metadata document), without a "
                "fragment or credentials"
            )


def _client(url: str, body: bytes) -> Client:
    try:
        document: Any = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: 8,000 bytes of "[" nest deeper than Python's stack
        raise BadClient(f"the client metadata document at {shown(url, 120)} is not JSON") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise BadClient(f"the client metadata document at {shown(url, 120)} does not give its own URL as client_id")
    return from_metadata(document, url, "metadata document")
