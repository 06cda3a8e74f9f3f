"""Gitea's failures, translated once into messages a model can act on."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from gitea_mcp.domain.policy import is_name
from gitea_mcp.redaction import redact

# Gitea 1.25: "token does not have at least one of required scope(s), required=[read:user], token scope=…";
# Gitea 1.22 and Forgejo 11/12: "token does not have at least one of required scope(s): [read:user]".
_SCOPE = re.compile(r"required scope\(s\)(?:, required=|: )\[([^\]]*)\]")
_TOKEN_SCOPE = re.compile(r"token scope=([\w:,-]*)")
_MOVED = re.compile(r"(?:/api/v1)?/repos/([^/?#]+)/([^/?#]+)")
# Where a redirect points, read strictly: the whole path is a repository route, and a host is a host.
_MOVED_TO = re.compile(r"(?:/api/v1)?/repos/([^/]*)/([^/]*)(?:/.*)?", re.DOTALL)
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](?::[0-9]{1,5})?")


_UNKNOWN_USER = re.compile(r"user does not exist \[uid: \d+, name: ([^\]]*)\]")

# A 403 from a repository route to a user who may read the repository but not write to it (verified on Gitea 1.22.6
# and 1.25.4, docs/server-behaviour.md): adding or replacing an issue's labels says "write permission is required",
# creating a label "user should have a permission to write to a repo", a due date "Not repo writer"; editing
# another's issue or removing a label is a bare 403 without a body, and so is adding or replacing labels on Forgejo
# 11 and 12. An invisible repository is 404, never 403.
_WRITE_REFUSED = ("write permission is required", "user should have a permission to write to a repo", "Not repo writer")
_LOCKED = "You cannot comment on a locked issue."
_ISSUE_EDIT = re.compile(r"/issues/\d+$")
_ISSUE_LABELS = re.compile(r"/issues/\d+/labels(?:/[^/]*)?$")
_READER_REMEDY = (
    "make the user a collaborator with Write (or a member of a team with write to Issues), or use a token of such a "
    "user"
)


class GiteaError(Exception):
    """Gitea answered with an error status, or not at all. The kind is the class; `status` is for messages.

    Not a ToolFailure: this layer knows nothing of tools. The tools' error boundary (toolkit/base.guard) turns one
    into an isError result, as it does a ToolFailure; `str()` is the sentence for the model."""

    retry_after: float = 0.0  # seconds the server asked to wait (Retry-After), 0 when it asked nothing
    from_gitea: bool = False  # the answer carried Gitea's own error body, so Gitea (not a proxy) answered

    def __init__(
        self,
        message: str,
        status: int = 0,
        gitea_message: str = "",
        gitea_errors: tuple[str, ...] = (),
        path: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.gitea_message = gitea_message
        self.gitea_errors = gitea_errors  # the `errors` array some answers carry (a 404 for an unknown user)
        self.path = path  # the API path asked for, without the base URL ("" where none applies)

    @property
    def missing_scope(self) -> str | None:
        """The scope a 403 names: Gitea's own wording, which changed between 1.22 and 1.25 (see `_SCOPE`)."""
        found = _SCOPE.search(self.gitea_message) if self.status == 403 else None
        return found.group(1) if found else None

    @property
    def token_scopes(self) -> tuple[str, ...] | None:
        """The token's own scopes, where a scope 403 names them (Gitea 1.25: `token scope=read:issue,read:user`);
        None where it does not (1.22, Forgejo)."""
        found = _TOKEN_SCOPE.search(self.gitea_message) if self.missing_scope else None
        return tuple(scope for scope in found.group(1).split(",") if scope) if found else None

    @property
    def write_refused(self) -> bool:
        """A 403 saying the token's user may read the repository but lacks write access to do this."""
        return self.status == 403 and _write_refused(self.gitea_message.strip(), self.path)

    @property
    def unknown_user(self) -> str | None:
        """The user a 404 or 400 says does not exist (`user does not exist [uid: 0, name: X]`).

        The repository issue list answers an unknown created_by/assigned_by/mentioned_by with 404 and this text
        in `errors` (Gitea 1.22 and 1.25, Forgejo 11); the cross-repository search answers an unknown owner with
        400 and this text as the message. A missing repository's 404 carries no such text.
        """
        if self.status not in (400, 404):
            return None
        for text in (*self.gitea_errors, self.gitea_message):
            found = _UNKNOWN_USER.search(text)
            if found:
                return found.group(1)
        return None


class NoAnswer(GiteaError):
    """Sent, but no answer that can be trusted came (timeout, connection lost, a body that never finished): a write
    may have happened. `cause` says what came instead, as a clause for a longer sentence."""

    def __init__(
        self,
        message: str,
        status: int = 0,
        cause: str = "",
        settled: bool = False,
        detail: str = "",
        timed_out: bool = False,
    ) -> None:
        super().__init__(message, status=status)
        self.cause = cause or message.rstrip(".")
        self.settled = settled  # Gitea itself answered (its error body): whatever it did is done, not in flight
        self.detail = detail or message  # what happened, without the advice (check gives its own)
        self.timed_out = timed_out  # connected and sent, and nothing came back in time


class UnclearAnswer(NoAnswer):
    """A write answered with neither its result nor a clear refusal: a 5xx (a proxy's 502 or 504 page arrives after
    Gitea committed as often as before), an HTML page under a 2xx, JSON cut short. Its outcome is as unknown as a
    lost answer's, and it is looked up the same way (toolkit/writes.py)."""


class NotSent(GiteaError):
    """The request never left this machine: no connection could be made (refused, no such host, a connect timeout,
    an unreachable proxy) or TLS failed in the handshake. Nothing changed, so a write has no outcome to look up.
    `reason` is why, as a clause; `remedy` what to do about that cause (`check` prints it as the fix)."""

    def __init__(self, message: str, reason: str = "", remedy: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message.rstrip(".")
        self.remedy = remedy


class OutOfTime(NotSent):
    """The tool call's deadline came before a request could be sent: nothing more was sent, so no write is lost."""


class OverBudget(NotSent):
    """The deployment's budget of requests to the forge (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE) had no room within
    the wait a request may take: it was not sent, so no write is lost or doubled. `retry_after`: seconds until
    there is room."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message, "the request budget toward Gitea is spent", "try again later")
        self.retry_after = retry_after


class Moved(GiteaError):
    """A redirect (a renamed or transferred repository, a renamed owner, or a proxy); never followed.

    `str()` never names where it points: whether that place may be named, and called, is the owner allowlist's to
    say, which this layer does not know. `advice` says it, given the allowlist.
    """

    def __init__(self, message: str, status: int = 0, to: tuple[str, str] | None = None) -> None:
        super().__init__(message, status=status)
        self.to = to  # (owner, name) of the repository's new place, when Gitea named one

    def advice(self, allows: Callable[[str], bool]) -> str:
        """The whole message for an agent: call again at the new place, or, when its owner is outside the allowlist,
        only that it moved out of it (docs/decisions/0005-moves-outside-the-allowlist.md)."""
        if self.to is None:
            return str(self)
        owner, name = self.to
        if allows(owner):
            return f"{self} It is now {owner}/{name}: call again with owner={owner} name={name}."
        return (
            f"{self} Its new owner is outside GITEA_ALLOWED_OWNERS, so this server cannot work with it there; "
            "ask the operator to allow that owner if it should."
        )


class Unauthorized(GiteaError):
    """401: no token, or one Gitea does not accept."""


class Forbidden(GiteaError):
    """403: the token lacks a scope (`missing_scope`), its user may read the repository but not write to it
    (`write_refused`), or the issue is locked."""


class NotFound(GiteaError):
    """404: a missing repository or issue, or an unknown user filter (`unknown_user`); toolkit/missing.py tells."""


class NoEndpoint(GiteaError):
    """A 404 without Gitea's JSON error body: Gitea's router found no such API route (this release lacks it), or
    GITEA_URL points at something that is not Gitea's API at all. Never "no such repository"."""


def no_endpoint(method: str, path: str, base_url: str) -> NoEndpoint:
    """Gitea's router answers an unknown route with a plain-text `404 page not found` (verified on Gitea 1.22–1.25,
    Forgejo 11–12: test_no_route_is_a_plain_text_404_and_a_wrong_method_a_bare_405), its handlers with JSON."""
    return NoEndpoint(
        f"{method} {path} answered 404 without Gitea's error body: GITEA_URL ({base_url}) may not point at a Gitea "
        "or Forgejo API (check it, and its sub-path), or this server's release lacks that endpoint; "
        "`gitea-issues-mcp check` tells which.",
        status=404,
    )


class Rejected(GiteaError):
    """400 or 422: Gitea refused the request's content; nothing changed."""


class ServerFailed(GiteaError):
    """5xx: Gitea failed; its message is blank for non-admins. Some of these are deterministic (Gitea 500s)."""


_KINDS: dict[int, type[GiteaError]] = {401: Unauthorized, 403: Forbidden, 404: NotFound, 400: Rejected, 422: Rejected}


def kind_of(status: int) -> type[GiteaError]:
    return ServerFailed if status >= 500 else _KINDS.get(status, GiteaError)


def from_status(
    status: int,
    gitea_message: str,
    method: str,
    path: str,
    gitea_errors: tuple[str, ...] = (),
    anonymous: bool = False,
    bearer: bool = False,
    signed_in: bool = False,
) -> GiteaError:
    """Build the error for an HTTP error status. `path` is the API path, never a full URL with credentials;
    `anonymous`: the request carried no token (no GITEA_TOKEN; over HTTP every request must bring one); `bearer`:
    the token is the HTTP caller's own, so a refusal is theirs to fix, not the operator's; `signed_in`: it came
    from this server's sign-in, which the caller cannot fix by sending another token, only by signing in again."""
    # Gitea's message is quoted to the model; a proxy or server that echoes the Authorization header must not
    # hand it the token (the client also removes its own token, whatever its shape).
    msg = redact(gitea_message.strip())
    text = _anonymous(status, msg, path) if anonymous else None
    if status == 401 and bearer:
        said = f" Gitea said: {msg}." if msg else ""
        text = (
            f"Gitea refused the token this request sent in its Authorization header (401).{said} Send a valid Gitea "
            "access token of your own: 'Authorization: Bearer <token>'."
        )
    if status == 401 and signed_in:
        # Revoked in Gitea (Settings, Applications) or expired there, within the minute the gate trusts Gitea's
        # last answer on the token (server/bearers.py); after it the gate refuses it and the client signs in again.
        text = "Gitea no longer accepts this sign-in (401): it was revoked or has expired in Gitea; sign in again."
    text = text or _explain(status, msg, method, path)
    return kind_of(status)(text, status=status, gitea_message=gitea_message, gitea_errors=gitea_errors, path=path)


NO_TOKEN = "no GITEA_TOKEN is set, and without a token only public repositories can be seen"


def _anonymous(status: int, msg: str, path: str) -> str | None:
    """What a 401 or 404 means when no token was sent: not a token's lack, but no token at all."""
    said = f" Gitea said: {msg}." if msg else ""
    if status == 401:
        return (
            f"Gitea requires a token for this (401).{said} No GITEA_TOKEN is set: without a token only public "
            "repositories can be read and nothing can be written; set GITEA_TOKEN to a token with write:issue and "
            "read:user."
        )
    if status == 404:
        return f"Not found (404): {path}. Check the owner, repository and number; {NO_TOKEN}."
    return None


def _explain(status: int, msg: str, method: str, path: str) -> str:
    said = f" Gitea said: {msg}." if msg else ""
    if status == 401:
        return (
            f"Gitea refused the request as unauthenticated (401).{said} "
            "Set GITEA_TOKEN to a valid access token with the read:issue scope (write:issue to write)."
        )
    if status == 403:
        return _forbidden(msg, method, path, said)
    if status == 404:
        return f"Not found (404): {path}. Check the owner, repository and number, and that the token can see it."
    if status == 409:
        return f"Gitea reported a conflict (409).{said} Read the issue again and retry with its current state."
    if status == 412:
        return f"Gitea refused a precondition (412).{said}"
    if status == 422 or status == 400:
        return f"Gitea rejected the request ({status}).{said} Correct the arguments and try again."
    if status == 423:
        return f"The repository is archived or locked (423).{said} Unarchive it in Gitea to change its issues."
    if status == 429:
        return "Gitea is rate-limiting this token (429). Wait a little and try again."
    if status in (405, 501):
        # Permanent: the server (or a proxy in front of it) does not offer this request at all.
        return (
            f"This server does not offer {method} {path} ({status}).{said} It may be an older release or have the "
            "feature turned off, or a proxy may block the method; trying again will not help."
        )
    if status >= 500:
        return (
            f"Gitea failed with a server error ({status}).{said} Try again later; if it persists, check the Gitea logs."
        )
    return f"Gitea answered {method} {path} with HTTP {status}.{said}"


def _forbidden(msg: str, method: str, path: str, said: str) -> str:
    scope, repo = _SCOPE.search(msg), _repository(path)
    if scope:
        needed = scope.group(1)
        return f"The token lacks the {needed} scope (403). Create a token with {needed} and set GITEA_TOKEN."
    if repo and msg == _LOCKED:
        return (
            f"Gitea refused {method} {path} (403): the issue is locked, and only users with write access to {repo} "
            "may comment on it; ask one of them to unlock it."
        )
    if repo and _write_refused(msg, path):
        answer = f"403: {msg}" if msg else "403"
        refused = f"Gitea refused {method} {path} ({answer}): the token's user may only read {repo}"
        if _ISSUE_LABELS.search(path):
            needs = (
                "changing an issue's labels, milestone or assignees needs write access to its issues, even on an "
                "issue the user filed (whose title, body and state it may change)"
            )
        elif method == "PATCH" and _ISSUE_EDIT.search(path):
            needs = (
                "changing another's issue (or the labels, milestone or assignees of any) needs write access to its "
                "issues"
            )
        else:
            needs = "this needs write access to its issues"
        return f"{refused}, and {needs}; {_READER_REMEDY}."
    return f"Gitea forbade {method} {path} (403).{said} The token's user may lack access to this repository."


def _repository(path: str) -> str | None:
    """`owner/name` of a repository route; None for other routes (the cross-repository search, the user)."""
    found = _MOVED.match(path)
    return f"{found.group(1)}/{found.group(2)}" if found and found.groups() != ("issues", "search") else None


def _write_refused(msg: str, path: str) -> bool:
    """A repository route's 403 that is neither a scope nor a lock: the user can read it (else 404) but not write.
    Gitea answers some of these without a body, so a bare 403 counts too."""
    if _repository(path) is None or _SCOPE.search(msg) or msg == _LOCKED:
        return False
    return msg in _WRITE_REFUSED or not msg


def redirected(status: int, location: str, method: str, path: str, base_url: str) -> GiteaError:
    """A renamed or transferred repository answers with a redirect; it is never followed, but named.

    Real servers send a relative `Location` with the new names (`/api/v1/repos/acme/gizmos/issues`: 307 up to
    Gitea 1.23.6 and Forgejo 11, 301 after; a renamed owner 307 on every release). Only that case can become "call
    again with" (`Moved.advice`); a redirect to another host or to the same names would make an agent loop, so it
    is reported as what it is. The Location is upstream text: only a host and names that pass Gitea's rules are
    quoted back (never its userinfo); anything else is "could not be read".
    """
    target, here = urlsplit(location), urlsplit(base_url)
    host = target.netloc.rpartition("@")[2]  # userinfo is never compared nor shown
    nothing = f"Gitea redirected {method} {path} ({status}); nothing was done."
    if (target.scheme or target.netloc) and (target.scheme.lower(), host.lower()) != (here.scheme, here.netloc.lower()):
        readable = target.scheme in ("http", "https") and _HOST.fullmatch(host)
        shown = f"{target.scheme}://{host}" if readable else "an unreadable location"
        return Moved(
            f"{nothing} It points at {shown}, not at GITEA_URL={here.scheme}://{here.netloc}: if Gitea has moved, "
            "update GITEA_URL.",
            status=status,
        )
    prefix = here.path.rstrip("/")  # Gitea served under a sub-path names it in its Location
    rest = target.path[len(prefix) :] if prefix and target.path.startswith(prefix + "/") else target.path
    asked, moved = _MOVED.match(path), _MOVED_TO.fullmatch(rest)
    if not asked or not moved or asked.groups() == ("issues", "search"):
        return Moved(f"{nothing} A proxy in front of Gitea may be rewriting requests; check GITEA_URL.", status=status)
    was = f"The repository {asked.group(1)}/{asked.group(2)} has moved: Gitea redirected {method} {path} ({status})"
    owner, name = unquote(moved.group(1)), unquote(moved.group(2))
    if not (is_name(owner) and is_name(name)):
        return Moved(
            f"{was} and nothing was done; where it went could not be read from the answer (look it up in Gitea's "
            "web interface).",
            status=status,
        )
    if (owner.lower(), name.lower()) == _names(asked):
        return Moved(f"{nothing} A proxy in front of Gitea may be rewriting requests; check GITEA_URL.", status=status)
    return Moved(f"{was} and nothing was done.", status=status, to=(owner, name))


def _names(match: re.Match[str]) -> tuple[str, str]:
    return match.group(1).lower(), match.group(2).lower()


class TlsFailed(NotSent):
    """Gitea's certificate was refused in the TLS handshake (`reason`: e.g. "certificate verify failed: self-signed
    certificate"), or GITEA_URL's scheme does not match its port (WrongScheme): retrying will not help."""

    def __init__(self, message: str, reason: str, remedy: str) -> None:
        super().__init__(message, reason, remedy)


class WrongScheme(TlsFailed):
    """https:// to a port that answers without TLS, or http:// to a port that expects TLS (Go's server, Gitea's own,
    answers that with a 400 before any handler runs). `reason` names the URL and what its port speaks."""


@dataclass(frozen=True)
class Tls:
    """What went wrong in TLS, in OpenSSL's words without its codes, and what to do about it."""

    reason: str
    remedy: str
    certificate: bool  # refused during the handshake, so before any request was sent
    plain: bool = False  # the port answered the handshake without TLS: plain HTTP, so https:// is the wrong scheme


_PRIVATE_CA = (
    "If Gitea's certificate comes from a private CA, set GITEA_CA_BUNDLE=/path/to/ca.pem (or REQUESTS_CA_BUNDLE for "
    "the whole machine); GITEA_INSECURE=true turns verification off, for test instances only."
)
_REMEDIES = (  # (words in OpenSSL's verify message, what to do) — the first that matches
    ("mismatch", "GITEA_URL must use a host name the certificate is issued for. "),
    ("expired", "Gitea's certificate must be renewed, or this machine's clock is wrong. "),
    ("not yet valid", "This machine's clock is wrong, or Gitea's certificate is not valid yet. "),
)
# "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: … (_ssl.c:1006)": the words without the codes.
_SSL_CODES = re.compile(r"^\[[^\]]*\]\s*|\s*\(_ssl\.c:\d+\)$")


def tls_problem(exc: BaseException) -> Tls:
    """The TLS failure inside a requests/urllib3 SSL error, which wrap OpenSSL's own error two or three deep."""
    import ssl  # why: 3 ms of `--help`, which imports this through cli/check.py

    found = innermost(exc, ssl.SSLError)
    if isinstance(found, ssl.SSLCertVerificationError):
        # OpenSSL ends some of these with a period ("…not valid for 'x'."); the message goes on after the reason.
        detail = str(getattr(found, "verify_message", "") or "").strip().rstrip(".")
        reason = f"certificate verify failed: {detail}" if detail else _words(found)
        hint = next((remedy for words, remedy in _REMEDIES if words in detail.lower()), "")
        return Tls(reason, hint + _PRIVATE_CA, certificate=True)
    reason = _words(found) if found is not None else "the TLS connection failed"
    if any(words in reason.lower() for words in _NOT_TLS):
        return Tls(reason, "GITEA_URL must start with http:// for that port", certificate=True, plain=True)
    check = "Check that GITEA_URL's scheme and port match Gitea's (https:// to a plain-HTTP port fails this way)."
    return Tls(reason, check, certificate=False)


# OpenSSL's words when the answer to its ClientHello is not TLS at all (a plain-HTTP server's "HTTP/1.1 400"):
# OpenSSL 3 says "wrong version number" (or "record layer failure"), 1.1 "packet length too long" or "unknown
# protocol". They come from the handshake, before any request was sent (verified against Gitea 1.25.4's HTTP port).
_NOT_TLS = ("wrong version number", "record layer failure", "packet length too long", "unknown protocol")
# What a TLS port answers to a plain-HTTP request, before any handler runs: Go's net/http (Gitea's own HTTPS), nginx.
PLAIN_HTTP_TO_TLS = ("Client sent an HTTP request to an HTTPS server", "plain HTTP request was sent to HTTPS port")


def _words(error: BaseException) -> str:
    return _SSL_CODES.sub("", str(error)).strip() or type(error).__name__


def innermost(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first `kind` among exc, its args (how urllib3 and requests wrap), `reason`, cause and context."""
    pending, seen = [exc], set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, kind):
            return current
        linked = [*current.args, getattr(current, "reason", None), current.__cause__, current.__context__]
        pending += [item for item in linked if isinstance(item, BaseException)]
    return None


class CatalogTooBig(GiteaError):
    """A collection read whole (labels, milestones, issues filtered here) that could not all be read within the caps
    (`gitea/catalog.py` `fetch_all`): a name missing from what was read may still exist, so it is never refused as
    missing. `counted`: Gitea's count, when that is what passed the cap."""

    def __init__(self, message: str, counted: int | None = None) -> None:
        super().__init__(message)
        self.counted = counted
