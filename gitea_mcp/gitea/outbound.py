"""Every request this server sends out starts here: the one module that builds HTTP sessions and connections, and
the policy for each destination, so that a policy change is one edit (issue 36, item 6).

Two destinations:

- **FORGE**: Gitea's API (gitea/client.py), its pages outside the API (the OAuth token exchange, the OpenID
  document, `/version`: gitea/oauth.py through the client), and what `check` reads beside it (Gitea's OpenID
  document, this server's own discovery document at GITEA_MCP_PUBLIC_URL, which the same operator serves). Trust is
  configured: GITEA_CA_BUNDLE, or GITEA_INSECURE, else the machine's REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE, else the
  public CAs. Proxies come from the environment (HTTPS_PROXY, NO_PROXY), read once per session. Timeout: GITEA_TIMEOUT.
- **PUBLIC_DOCUMENT**: client ID metadata documents (server/signin/documents.py), whose URL anyone may send. Public
  CAs only, never a proxy (none of this machine's proxies or their credentials reach a URL a stranger chose), the
  host resolved to public addresses only and the connection made to the address checked, one deadline for the whole
  read, a small size cap.

Common to both: redirects are never followed, no cookie is kept, `~/.netrc` is never read, one User-Agent, and a
body is read against its cap and a deadline.

Not outbound: `cli/call.py` and `cli/stdio_client.py` talk to this server itself (a client of ours, over stdio or
in-process), and the MCP SDK's own HTTP code belongs to the SDK.

`requests` (and `ssl`, `http.client`) are imported on first use, never at start-up: `requests` is a tenth of the
server's import time, and an MCP client waits for start-up on every launch.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import http.cookiejar
import ipaddress
import os
import socket
import threading
import time
import warnings
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

from gitea_mcp import __version__
from gitea_mcp.gitea.errors import innermost

if TYPE_CHECKING:
    import ssl

    from requests import Response as Response
    from requests import Session as Session


class Trust(enum.Enum):
    CONFIGURED = "GITEA_CA_BUNDLE or GITEA_INSECURE, else REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE, else the public CAs"
    PUBLIC = "the public CAs (certifi's bundle, as requests ships it)"


class Proxies(enum.Enum):
    ENVIRONMENT = "HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read once for the destination"
    NONE = "never a proxy: a stranger's URL gets none of this machine's proxies or their credentials"


class Policy(NamedTuple):  # a NamedTuple, not a dataclass: a third of the class-making time at start-up
    """How requests to one destination are sent. `timeout` None: the configured GITEA_TIMEOUT."""

    destination: str
    trust: Trust
    proxies: Proxies
    public_addresses_only: bool  # the host must resolve to public addresses; the connection goes to the one checked
    timeout: float | None  # seconds; for PUBLIC_DOCUMENT the whole read, resolution to last byte
    max_body: int  # bytes of an answer read at most
    max_document: int  # bytes of a document outside the API read at most (a token answer, an OpenID document)


# 50 issues with long bodies are well under 1 MiB; a token answer or an OpenID document is a few hundred bytes.
FORGE = Policy("the forge", Trust.CONFIGURED, Proxies.ENVIRONMENT, False, None, 8 * 2**20, 1 << 16)
DOCUMENT_SECONDS = 3.0  # the whole read of one public document, from name resolution to its last byte
# 8,000 bytes: a client metadata document names a client and its redirect URIs.
PUBLIC_DOCUMENT = Policy("a public document", Trust.PUBLIC, Proxies.NONE, True, DOCUMENT_SECONDS, 8_000, 8_000)

REDIRECTS = False  # never followed: a redirect is reported (the forge) or refused (a document), never chased
PRODUCT = "gitea-issues-mcp"  # the distribution's name, the User-Agent's first word

# Threads that may send to the forge at once: the server's tool threads (gitea_mcp.server.admission runs this many
# tool calls at a time) and the client's workers (gitea/client.py WORKERS). The pool keeps a connection for each.
CALLER_THREADS = 40
WORKERS = 16
CONNECTIONS = CALLER_THREADS + WORKERS


@functools.cache
def user_agent() -> str:
    """Named, with its version: some instances (and proxies) refuse agents they cannot tell apart."""
    import requests  # why: on the first request (requests is a tenth of start-up)

    return f"{PRODUCT}/{__version__} ({requests.utils.default_user_agent()})"


# -- the forge -----------------------------------------------------------------------------------------------------


def forge_trust(verify: bool | str) -> bool | str:
    """What certificates of the forge are checked against: GITEA_CA_BUNDLE (a path) or GITEA_INSECURE (False) when
    set; else the machine's CA bundle variables, as requests reads them; else the public CAs (True)."""
    if verify is not True:
        return verify
    return os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True


def forge_session(url: str, verify: bool | str, agent: str | None = None) -> Session:
    """A session for the forge at `url` under the FORGE policy, with a kept connection for every sender.

    The only credential ever sent is the token, which callers add per request. The environment is read once, here:
    proxies for this host, and the CA bundle (`forge_trust`) — so REQUESTS_CA_BUNDLE cannot override
    GITEA_CA_BUNDLE or GITEA_INSECURE. Never ~/.netrc, which requests would send instead of the token; and no scan
    of the whole environment on every request (a third of a millisecond each)."""
    import requests  # why: on the first request (requests is a tenth of start-up)

    session = requests.Session()
    session.trust_env = False
    session.proxies = requests.utils.get_environ_proxies(url)
    session.verify = forge_trust(verify)
    if session.verify is False:
        # GITEA_INSECURE was chosen, and said once in our words (server.make_client); urllib3 would add its own
        # warning, with a site-packages path, to every request.
        import urllib3  # why: comes with requests, on first use

        warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)
    session.headers["User-Agent"] = agent or user_agent()
    # One session serves every caller: a cookie Gitea or a proxy sets for one must never be replayed for another.
    session.cookies.set_policy(_NoCookies())
    _pool_for_every_sender(session)
    return session


def _pool_for_every_sender(session: Session) -> None:
    """A kept connection for every thread that can send at once. requests' default keeps 10 and, with more senders,
    opens one more per request and drops it after ("Connection pool is full, discarding connection"): a new TCP and
    TLS handshake each time. With `pool_block` a sender beyond the pool would wait for a connection rather than
    open one to drop; with the pool as large as the senders, none waits."""
    from requests.adapters import HTTPAdapter  # why: on the first request (requests is a tenth of start-up)

    adapter = HTTPAdapter(pool_maxsize=CONNECTIONS, pool_block=True)
    session.mount("https://", adapter)
    session.mount("http://", adapter)


def send(
    session: Session, method: str, url: str, query: str | None, body: Any, headers: Mapping[str, str], timeout: float
) -> Response:
    """One API request, streamed, never redirected: what `Session.request` sends, without its per-call session
    work. It merges the session's settings into each request (headers, cookies, hooks, proxies, verify) and stores
    cookies from each answer: a fifth of a GET's CPU. Here the settings are the session's own, fixed when it was
    made, and no cookie is ever kept (`_NoCookies`), so the request goes to the session's adapter as Session.send
    would give it: the session's headers with ours over them, its proxies and CA bundle."""
    import requests  # why: on the first request (requests is a tenth of start-up)

    merged = requests.structures.CaseInsensitiveDict(session.headers)
    merged.update(headers)
    prepared = requests.PreparedRequest()
    prepared.prepare(method=method, url=url, headers=merged, params=query, json=body)
    verify = True if session.verify is None else session.verify  # set when made; never None, never unverified
    adapter = session.get_adapter(url)
    return adapter.send(
        prepared, stream=True, timeout=timeout, verify=verify, cert=session.cert, proxies=session.proxies
    )


def send_form(
    session: Session,
    method: str,
    url: str,
    form: dict[str, str] | None,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """A request outside the API (a form posted, a document read): streamed, never redirected; `headers`: more
    of them (a trace's `traceparent`)."""
    return session.request(
        method,
        url,
        data=form,
        headers={"Accept": "application/json", **(headers or {})},
        timeout=timeout,
        allow_redirects=REDIRECTS,
        stream=True,
    )


def forge_document(url: str, verify: bool | str, timeout: float) -> tuple[int, bytes]:
    """GET `url` beside the forge (for `check`), in a session of its own closed after: the status and at most
    FORGE.max_document bytes of the body. Raises the transport's failures (`failures()`)."""
    session = forge_session(url, verify)
    try:
        with session.get(url, timeout=timeout, allow_redirects=REDIRECTS, stream=True) as response:
            return response.status_code, response.raw.read(FORGE.max_document, decode_content=True)
    finally:
        session.close()


class Overrun(Exception):
    """A body not read whole: over its cap (`too_big`), or past its deadline."""

    def __init__(self, too_big: bool) -> None:
        super().__init__()
        self.too_big = too_big


def read_body(response: Response, deadline: float, limit: int) -> bytes:
    """The whole body, or Overrun. The deadline bounds the request from start to last byte: requests' own timeout
    bounds each socket read, which a server dripping a byte at a time never trips."""
    import requests  # why: on the first request (requests is a tenth of start-up)
    import urllib3  # why: comes with requests, on first use

    chunks: list[bytes] = []
    size = 0
    # Decoded only when encoded: urllib3's decoding path costs per read even with nothing to decode, and a chunked
    # answer (Gitea's Go server sends 2 KiB chunks) takes a read per chunk — half the client's CPU on a 50-row list.
    decode = bool(response.headers.get("Content-Encoding", "").strip())
    try:
        while True:
            if time.monotonic() > deadline:
                raise Overrun(too_big=False)
            try:
                chunk = response.raw.read1(65536, decode_content=decode)  # what has arrived, a socket timeout later
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                # A body cut off or garbled on the way: the same as a dropped connection, which requests would raise.
                raise requests.ConnectionError(f"the answer broke off ({type(exc).__name__})") from None
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > limit:
                raise Overrun(too_big=True)
            chunks.append(chunk)
    except BaseException:
        # The failure's traceback keeps this frame, and what was read, alive until the cyclic collector runs (a tool
        # may keep a failure as a value): up to the cap of it, for good in an idle server, which collects nothing.
        chunks.clear()
        raise


class Failures:
    """The transport's failure classes, for telling failures apart without importing the HTTP library. (Plain
    classes here and for Answer: a NamedTuple or a dataclass costs 0.2 to 0.5 ms each at start-up.)"""

    def __init__(self) -> None:
        import requests  # why: on the first request (requests is a tenth of start-up)
        import urllib3  # why: comes with requests, on first use

        errors = requests.exceptions
        self.any: type[Exception] = errors.RequestException  # every failure of a request
        self.tls: type[Exception] = errors.SSLError  # a ConnectionError too: test it first
        self.proxy: type[Exception] = errors.ProxyError
        self.timeout: type[Exception] = errors.Timeout  # connecting or reading
        self.connect_timeout: type[Exception] = errors.ConnectTimeout
        self.connection: type[Exception] = errors.ConnectionError
        # Inside a ConnectionError: no connection was made (refused, unknown host, late); the host did not resolve.
        self.connecting: type[Exception] = urllib3.exceptions.ConnectTimeoutError
        self.no_such_host: type[Exception] = urllib3.exceptions.NameResolutionError


@functools.cache
def failures() -> Failures:
    return Failures()


def before_sending(exc: BaseException) -> bool:
    """Whether a transport failure surely happened before the request was sent: while connecting (urllib3's
    ConnectTimeoutError is also the class of a refused connection and of an unknown host) or to a proxy (urllib3
    says ProxyError only before it has connected to one). A refused certificate is TlsFailed, also unsent.

    Anything else — a timeout waiting for the answer, a reset or closed connection, any other TLS failure, which
    can come while the answer is read — may come after Gitea read the request: a write's outcome is then unknown.
    """
    kinds = failures()
    if isinstance(exc, kinds.connect_timeout | kinds.proxy):
        return True
    return isinstance(exc, kinds.connection) and innermost(exc, kinds.connecting) is not None


class _NoCookies(http.cookiejar.DefaultCookiePolicy):
    def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return False

    def return_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return False


def speaks_tls(host: str, port: int, timeout: float) -> bool:
    """Whether the forge's port completes a TLS handshake (certificate unchecked: only the protocol is in question;
    `check` asks when a plain-HTTP request got no answer)."""
    import ssl  # why: 3 ms of `--help` (every command module is imported for it)

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw, context.wrap_socket(raw):
            return True
    except OSError:  # ssl.SSLError is one too
        return False


# -- public documents ----------------------------------------------------------------------------------------------


class AddressRefused(Exception):
    """The host of a public document may not be read: `why` is "late", "unknown" or "private"."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


_RESOLVER: list[ThreadPoolExecutor] = []  # made at the first document, never at start
_RESOLVER_LOCK = threading.Lock()
RESOLVERS = 8  # names resolved at once (getaddrinfo takes no timeout: each runs on a thread of its own)


def _resolver() -> ThreadPoolExecutor:
    with _RESOLVER_LOCK:
        if not _RESOLVER:
            _RESOLVER.append(ThreadPoolExecutor(RESOLVERS, thread_name_prefix="gitea-mcp-cimd-dns"))
        return _RESOLVER[0]


def public_address(host: str, loopback: bool, deadline: float) -> str:
    """The address to connect to: every address the host resolves to must be public (the URL comes from anyone),
    and the first is used. Resolved within the deadline. `loopback`: 127.0.0.1 itself may be read (a trial)."""
    if loopback and host == "127.0.0.1":
        return host
    resolving = _resolver().submit(socket.getaddrinfo, host, 443, proto=socket.IPPROTO_TCP)
    try:
        found = resolving.result(timeout=max(0.0, deadline - time.monotonic()))
    except Late:
        raise AddressRefused("late") from None
    except (OSError, UnicodeError):
        raise AddressRefused("unknown") from None
    addresses = [str(info[4][0]) for info in found]
    for address in addresses:
        if not ipaddress.ip_address(address.split("%")[0]).is_global:
            raise AddressRefused("private")
    if not addresses:
        raise AddressRefused("unknown")
    return addresses[0]


class Answer:
    """A public document's answer."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers  # names in lower case
        self.body = body  # at most PUBLIC_DOCUMENT.max_body + 1 bytes of it


_PUBLIC_TLS: list[ssl.SSLContext] = []


def _public_tls() -> ssl.SSLContext:
    """Certificates checked against the public CAs only (certifi's bundle, the one requests uses)."""
    if not _PUBLIC_TLS:
        import ssl  # why: 3 ms of `--help` (every command module is imported for it)

        from requests.utils import DEFAULT_CA_BUNDLE_PATH  # why: on the first document (requests: a tenth of start-up)

        _PUBLIC_TLS.append(ssl.create_default_context(cafile=DEFAULT_CA_BUNDLE_PATH))
    return _PUBLIC_TLS[0]


def public_get(url: str, address: str, deadline: float) -> Answer:
    """GET `url` from `address` under the PUBLIC_DOCUMENT policy, the whole exchange within `deadline`: a watchdog
    shuts the socket when it passes, which ends a read blocked on a server that sends nothing more (a socket
    timeout bounds each read, not the whole). No proxy, cookie or redirect; at most max_body + 1 bytes read."""
    import http.client  # why: 6 ms of `--help` (every command module is imported for it)

    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no time left")
    held: list[socket.socket] = [socket.create_connection((address, port), timeout=left)]
    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), _cut, (held,))
    watchdog.daemon = True
    watchdog.start()
    try:
        if https:
            held[0] = _public_tls().wrap_socket(held[0], server_hostname=parts.hostname)
        connection = http.client.HTTPConnection(parts.hostname or address, port)
        connection.sock = held[0]
        connection.putrequest("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), skip_host=True)
        headers = (("Host", parts.netloc), ("Accept", "application/json"), ("User-Agent", user_agent()))
        for name, value in (*headers, ("Connection", "close")):
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read(PUBLIC_DOCUMENT.max_body + 1)
        return Answer(response.status, {name.lower(): value for name, value in response.getheaders()}, body)
    finally:
        watchdog.cancel()
        held[0].close()


def _cut(held: list[socket.socket]) -> None:
    with contextlib.suppress(OSError, ValueError):  # already closed: the read ended by itself
        held[0].shutdown(socket.SHUT_RDWR)
