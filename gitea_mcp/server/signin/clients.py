"""Who the MCP client is, and where its codes may go: the three ways a client is known here.

- **A client ID metadata document** (the MCP spec's default): the client ID is an https URL; the document there
  names the client and its redirect URIs, and must give that same URL as its `client_id` (signin/documents.py:
  how it is read, bounded and kept).
- **Dynamic registration** (RFC 7591, `POST /register`): the metadata is checked and sealed into the client ID
  itself, so registering keeps nothing here (a flood of registrations costs nothing to keep).
- **Pre-registered**: a client ID the operator made ahead with `POST /register`, handed to the client.

Redirect URIs are matched exactly, except that a loopback one (127.0.0.1, [::1], localhost; RFC 8252 §7.3) may use
any port: native clients listen on whichever port is free.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gitea_mcp.redaction import shown

MAX_REDIRECTS = 10
MAX_URI = 2_000  # characters of one redirect URI
MAX_NAME = 100  # characters of a client name shown on the consent page
MAX_METADATA = 8_000  # bytes of a registration or a client metadata document
_LOOPBACK = ("127.0.0.1", "::1", "localhost")
# Schemes no redirect URI may have: those a browser runs or reads itself instead of handing the code to an app, and
# those an operating system hands to a handler that runs, opens or searches something (a code in their URL is an
# argument to that program). An app's own scheme (`cursor://…`, `com.example.app:/…`) is none of these. Sources:
# - the browser's own: the WHATWG URL and Fetch standards (javascript:, data:, blob:, about:, file:, filesystem:,
#   view-source:), IE's vbscript:, and ws:/wss:, which a browser never navigates to;
# - ms-msdt: CVE-2022-30190 ("Follina": the Support Diagnostic Tool runs what the URL says);
# - search-ms: and search: Windows Search opening a remote share's files (CVE-2022-34713 chains, and Microsoft's
#   own advice of June 2022 to unregister the handler);
# - ms-officecmd: the Office launcher's argument injection (Positive Security, 2021, remote code execution);
# - ms-word:, ms-excel:, ms-powerpoint:, ms-visio:, ms-access:, ms-project:, ms-publisher:, ms-infopath:,
#   ms-spd: Microsoft's Office URI schemes, which open (and edit) a document from any URL given;
# - ms-appinstaller: installs an app package from a URL (CVE-2021-43890; Microsoft turned the handler off in 2023);
# - hcp: Windows Help and Support Center (CVE-2010-1885); ms-its:, its:, mk:, mhtml: compiled help and web
#   archives (CVE-2021-40444 used mhtml:); res: Internet Explorer's resources; shell: Explorer's shell folders;
# - calculator: and ms-calculator:, the classic demonstration that a link starts a program;
# - help: macOS's Help Viewer (Project Zero, 2017, code execution from a link); smb:, a share opened (and an NTLM
#   hash sent) by Windows and macOS; jar: Firefox's archive reader; intent: Android's, which starts any app
#   component the link names.
_NEVER = frozenset(
    {
        *("javascript", "data", "file", "vbscript", "about", "blob", "filesystem", "view-source", "ws", "wss"),
        *("ms-msdt", "search-ms", "search", "ms-officecmd", "ms-appinstaller"),
        *("ms-word", "ms-excel", "ms-powerpoint", "ms-visio", "ms-access", "ms-project", "ms-publisher"),
        *("ms-infopath", "ms-spd", "hcp", "ms-its", "its", "mk", "mhtml", "res", "shell"),
        *("calculator", "ms-calculator", "help", "smb", "jar", "intent"),
    }
)


class BadClient(Exception):
    """A client or redirect URI this server will not send a code to; `str(exc)` says why, for the client's
    developer (and the error page)."""


@dataclass(frozen=True)
class Client:
    client_id: str
    name: str
    redirect_uris: tuple[str, ...]
    kind: str  # "metadata document" | "registered"

    def redirect_for(self, asked: str | None) -> str:
        """The redirect URI a request may use: `asked` if it is one of the client's, else BadClient. Without one
        asked, the client's only URI (RFC 6749 §3.1.2.3: with several, it must say which)."""
        if asked is None:
            if len(self.redirect_uris) == 1:
                return self.redirect_uris[0]
            raise BadClient("the request names no redirect_uri and the client has several: send redirect_uri")
        if any(matches(registered, asked) for registered in self.redirect_uris):
            return asked
        raise BadClient(f"redirect_uri {shown(asked, 120)} is not one this client registered")


def matches(registered: str, asked: str) -> bool:
    if registered == asked:
        return True
    mine, theirs = urlsplit(registered), urlsplit(asked)
    if mine.scheme != "http" or theirs.scheme != "http" or mine.hostname not in _LOOPBACK:
        return False
    # Only the port is free: a fragment (which would swallow the code we append) or credentials are not.
    same = (mine.hostname, mine.path, mine.query) == (theirs.hostname, theirs.path, theirs.query)
    return same and "#" not in asked and "@" not in theirs.netloc and _port(theirs.netloc) is not None


def _port(netloc: str) -> int | None:
    try:
        return urlsplit(f"//{netloc}").port or 80
    except ValueError:
        return None


def check_redirect(uri: object) -> str:
    """A redirect URI a client may register: https; http on a loopback address only; or an app's own scheme
    (`com.example.app:/callback`, `cursor://…`). Never a fragment, credentials, or a scheme a browser runs."""
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI or not uri.isprintable() or " " in uri:
        raise BadClient(f"each redirect URI must be a URL of at most {MAX_URI} characters")
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not scheme or scheme in _NEVER:
        raise BadClient(
            f"redirect URI {shown(uri, 120)} has no scheme, or one a browser would run or the system would hand to a "
            "program that runs or searches something; use https, http://127.0.0.1:PORT/… or the app's own scheme"
        )
    if parts.fragment or "#" in uri:
        raise BadClient(f"redirect URI {shown(uri, 120)} has a fragment (#…), which RFC 6749 forbids")
    if parts.username is not None or parts.password is not None:
        raise BadClient(f"redirect URI {shown(uri, 120)} carries a user name or password")
    if scheme == "http" and parts.hostname not in _LOOPBACK:
        raise BadClient(
            f"redirect URI {shown(uri, 120)} is plain http on a host that is not loopback: use https, or "
            "http://127.0.0.1:PORT/… for a native client"
        )
    if scheme in ("http", "https") and (not parts.hostname or _port(parts.netloc) is None):
        raise BadClient(f"redirect URI {shown(uri, 120)} has no host or a port that is not a number")
    if parts.hostname and ascii_host(parts.hostname) is None:
        raise BadClient(f"redirect URI {shown(uri, 120)} has a host that is no valid domain name")
    return uri


def ascii_host(host: str) -> str | None:
    """`host` as the network sees it: each label in ASCII, punycode for an internationalised one (IDNA), lower
    case; None when a label cannot be written so. What the consent page shows, so a look-alike (`аpple.com`, its
    `а` Cyrillic) reads as the different host it is (`xn--pple-43d.com`)."""
    if host.startswith("[") or ":" in host:  # an IPv6 address
        return host.lower()
    try:
        return host.encode("idna").decode("ascii").lower()  # Python's codec: IDNA 2003, label by label
    except UnicodeError:
        return None


def unicode_host(host: str) -> str:
    """An ASCII host's punycode labels in Unicode (what a browser's address bar may show); the label as it is
    where it is no punycode."""
    labels = []
    for label in host.split("."):
        try:
            labels.append(label.encode("ascii").decode("idna") if label.startswith("xn--") else label)
        except UnicodeError:
            labels.append(label)
    return ".".join(labels)


def from_metadata(metadata: Any, client_id: str, kind: str) -> Client:
    """A client from registration metadata (RFC 7591 §2) or a metadata document: its name and redirect URIs."""
    if not isinstance(metadata, dict):
        raise BadClient("client metadata must be a JSON object")
    uris = metadata.get("redirect_uris")
    if not isinstance(uris, list) or not uris or len(uris) > MAX_REDIRECTS:
        raise BadClient(f"client metadata must list 1 to {MAX_REDIRECTS} redirect_uris")
    method = metadata.get("token_endpoint_auth_method", "none")
    if method != "none" and kind == "metadata document":
        raise BadClient("a client metadata document must use token_endpoint_auth_method none (a public client)")
    grants = metadata.get("grant_types", ["authorization_code"])
    if not isinstance(grants, list) or "authorization_code" not in grants:
        raise BadClient("this server issues codes only: grant_types must include authorization_code")
    # A client that would only ever ask for another response type (`token`, the implicit flow OAuth 2.1 drops;
    # `id_token`) could never sign in here: refused now, not at its first /authorize.
    responses = metadata.get("response_types", ["code"])
    if not isinstance(responses, list) or "code" not in responses:
        raise BadClient("this server issues codes only: response_types must include code")
    name = metadata.get("client_name")
    # One line of printable text: it reaches the consent page and the log line (no forged log lines).
    name = " ".join("".join(c for c in name if c.isprintable()).split())[:MAX_NAME] if isinstance(name, str) else ""
    name = name or "an unnamed client"
    return Client(client_id, name, tuple(check_redirect(uri) for uri in uris), kind)


REGISTERED = "gmcp.c."  # + the checked metadata, compact JSON in URL-safe base64


def register(metadata: Any, now: float) -> tuple[Client, dict[str, Any]]:
    """RFC 7591: the client, and the answer that gives it its ID: the checked metadata itself, encoded, so nothing
    is kept. Not sealed: registration is open to anyone, so an ID made by hand is no more than a registration
    anyone could make, and it is checked again whenever it is used; unsealed, it outlives every key rotation.
    A confidential method asked for is answered `none`: a public client proves itself with PKCE."""
    client = from_metadata(metadata, "", "registered")
    plain = json.dumps({"n": client.name, "r": list(client.redirect_uris)}, separators=(",", ":"))
    client_id = REGISTERED + base64.urlsafe_b64encode(plain.encode()).decode("ascii").rstrip("=")
    answer = {
        "client_id": client_id,
        "client_id_issued_at": int(now),
        "client_name": client.name,
        "redirect_uris": list(client.redirect_uris),
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    return Client(client_id, client.name, client.redirect_uris, "registered"), answer


def _registered(client_id: str) -> Client:
    unknown = BadClient("client_id is not one this server registered (register at /register)")
    if not client_id.startswith(REGISTERED) or len(client_id) > MAX_METADATA * 2:
        raise unknown
    encoded = client_id[len(REGISTERED) :]
    try:
        claims = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
        metadata = {"client_name": claims["n"], "redirect_uris": claims["r"]}
    except (ValueError, TypeError, KeyError, RecursionError):
        raise unknown from None
    return from_metadata(metadata, client_id, "registered")  # checked again: anyone can write one


@dataclass(frozen=True)
class Clients:
    """Finds the client a request names: a metadata document (`documents`, signin/documents.py; None when the
    operator turned them off) or a registration."""

    documents: Callable[[str], Client] | None

    def find(self, client_id: str | None) -> Client:
        if not client_id:
            raise BadClient("the request names no client_id")
        if client_id.startswith(("https://", "http://")):
            if self.documents is None:
                raise BadClient(
                    "this server reads no client ID metadata documents (GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false): "
                    "the client must register at /register, or use a client ID the server's operator made"
                )
            return self.documents(client_id)
        return _registered(client_id)
