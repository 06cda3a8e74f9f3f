"""Gitea's API: one session (gitea/outbound.py, the FORGE policy), timeouts on every request, bounded retries for
reads, never for writes."""

from __future__ import annotations

import contextvars
import copy
import enum
import functools
import hashlib
import json
import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, TypeVar, overload
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, TypeAdapter, ValidationError

import gitea_mcp.observe as observe
from gitea_mcp.gitea import outbound, traces
from gitea_mcp.gitea.errors import (
    PLAIN_HTTP_TO_TLS,
    GiteaError,
    NoAnswer,
    NotSent,
    OutOfTime,
    OverBudget,
    TlsFailed,
    UnclearAnswer,
    WrongScheme,
    from_status,
    innermost,
    kind_of,
    no_endpoint,
    redirected,
    tls_problem,
)
from gitea_mcp.gitea.outbound import FORGE, Overrun, before_sending, read_body
from gitea_mcp.gitea.rates import Budget, reset_after
from gitea_mcp.gitea.users import USERS
from gitea_mcp.redaction import redact

if TYPE_CHECKING:
    from gitea_mcp.gitea.outbound import Response, Session

log = logging.getLogger("gitea_mcp.gitea")  # the Gitea client; gitea_mcp.server.http is the MCP transport

T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")
E = TypeVar("E")
F = TypeVar("F")
G = TypeVar("G")
M = TypeVar("M", bound=BaseModel)
Segment = str | int
Params = Mapping[str, str | int]

# Statuses worth a second try on a read: the proxy or Gitea is busy or restarting. A plain 500 is not
# retried: Gitea answers 500 for some deterministic failures (comments of a missing issue).
_RETRY_STATUSES = frozenset({429, 502, 503, 504})


def transient(error: GiteaError) -> bool:
    """Whether a read that failed so is worth another try, the rule `_send` follows: a busy or restarting forge, no
    connection, an answer that never came; never a refused certificate, a body over the cap, or any other status."""
    if isinstance(error, TlsFailed | OverBudget):  # the budget already waited what a request may wait
        return False
    return error.status in _RETRY_STATUSES or isinstance(error, NoAnswer | NotSent)


_LINK_NEXT = re.compile(r'<[^>]*>\s*;\s*rel="next"')


@dataclass
class ApiResponse:
    """A Gitea answer: the body, total from X-Total-Count (None when absent), whether a next page exists.

    The body is parsed once, straight into the models a tool asks for (`one`, `many`): JSON parsing and
    validation happen together in pydantic-core instead of json.loads followed by a second walk.
    """

    content: bytes
    status: int
    total: int | None
    has_next: bool
    has_links: bool  # False when Gitea sent no Link header at all (one page — or a proxy stripped it)
    where: str = ""  # "GET /repos/…", for error messages
    write: bool = False  # the answer to a write: a body that cannot be read leaves its outcome unknown

    @functools.cached_property
    def data(self) -> Any:
        """The body as plain JSON (None when empty)."""
        if not self.content:
            return None
        try:
            return json.loads(self.content)
        except ValueError:
            raise self._malformed() from None

    def one(self, model: type[M]) -> M:
        parsed: M = self._validate(adapter(model), self.content)
        return parsed

    def many(self, model: type[M]) -> list[M]:
        parsed: list[M] = self._validate(adapter(list[model]), self.content or b"[]")  # type: ignore[valid-type]
        return parsed

    def _validate(self, adapter: TypeAdapter[Any], content: bytes) -> Any:
        try:
            return adapter.validate_json(content)
        except ValidationError:
            raise self._malformed() from None

    def _malformed(self) -> GiteaError:
        error = GiteaError(
            f"Gitea answered {self.where} with malformed JSON or an unexpected shape; "
            "a proxy in front of Gitea may be failing, or GITEA_URL points at the wrong place.",
            status=self.status,
        )
        return unclear(error, self.where, "malformed JSON or an unexpected shape") if self.write else error


@functools.cache
def adapter(kind: Any) -> TypeAdapter[Any]:
    """One validator per type, built once: building a TypeAdapter costs far more than using it."""
    return TypeAdapter(kind)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    base_delay: float = 0.25
    max_delay: float = 4.0
    # Seconds one read may take, its retries and waits included; None: the tool call's deadline (CALL_ROUNDS ×
    # GITEA_TIMEOUT), so a Retry-After the call can cover is waited out, not given up.
    budget: float | None = None


class _Shared:
    """What every client of one server shares, whatever its token: the connection pool and worker threads."""

    def __init__(
        self, session: Session | None, verify: bool | str, user_agent: str | None, api: str, budget: Budget | None
    ) -> None:
        self.budget = budget  # the deployment's requests a minute toward the forge (gitea/rates.py), or None
        self._session = session
        self._verify = outbound.forge_trust(verify)  # read once, when the client is made
        self._user_agent = user_agent
        self._api = api
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    def session(self) -> Session:
        with self._lock:
            if self._session is None:
                self._session = outbound.forge_session(self._api, self._verify, self._user_agent)
            return self._session

    def send(
        self, method: str, url: str, query: str | None, body: Any, headers: dict[str, str], timeout: float
    ) -> Response:
        """One API request, streamed, never redirected (outbound.send)."""
        return outbound.send(self.session(), method, url, query, body, headers, timeout)

    def pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix=_WORKER)
            return self._pool


def _here(call: Callable[[], T]) -> Future[T]:
    """`call` run on this thread, its outcome kept as a worker's would be."""
    outcome: Future[T] = Future()
    try:
        outcome.set_result(call())
    except Exception as exc:
        outcome.set_exception(exc)
    return outcome


WORKERS = outbound.WORKERS  # the threads `gather` and `parallel` run reads on, shared by every caller
CALLER_THREADS = outbound.CALLER_THREADS  # the server's tool threads, which send too
CONNECTIONS = outbound.CONNECTIONS  # the connection pool holds one connection for each sender


_WORKER = "gitea-worker"


class GiteaClient:
    """Talks to `<url>/api/v1`. Paths are built from validated segments, each percent-encoded."""

    def __init__(
        self,
        url: str,
        token: str | None,
        timeout: float,
        session: Session | None = None,
        retry: RetryPolicy | None = None,
        verify: bool | str = True,
        user_agent: str | None = None,  # None: gitea-issues-mcp/<version> (python-requests/<version>)
        budget: Budget | None = None,  # requests a minute toward the forge, for every client sharing this one's pool
    ) -> None:
        self._api = url.rstrip("/") + "/api/v1"
        # What messages and reprs show: never credentials pasted into the URL (https://user:pw@host).
        self.url = display_url(url.rstrip("/"))
        self._token = token
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._shared = _Shared(session, verify, user_agent, self._api, budget)
        self._bearer = False
        self._signed_in = False
        self._deadline: float | None = None

    @property
    def timeout(self) -> float:
        """GITEA_TIMEOUT: seconds one request may take, first byte to last."""
        return self._timeout

    @property
    def call_budget(self) -> float:
        """Seconds one tool call may take in all: room for a few sequential rounds and a retry."""
        return CALL_ROUNDS * self._timeout

    @property
    def deadline(self) -> float | None:
        """The tool call's deadline (a `time.monotonic()`) this client keeps to, or None outside a call."""
        return self._deadline

    def until(self, deadline: float) -> GiteaClient:
        """This client for one tool call: every request it makes (worker threads included: the call hands them this
        client) ends by `deadline`. The server sets it once, from the call's arrival, so time spent waiting for a
        thread is part of it; a deadline already set is never moved later."""
        clone = copy.copy(self)
        clone._deadline = deadline if self._deadline is None else min(self._deadline, deadline)
        return clone

    def time_left(self) -> float | None:
        """Seconds left of the tool call's deadline (None outside one): for waits that are no request of ours."""
        return None if self._deadline is None else self._deadline - time.monotonic()

    @property
    def cache_key(self) -> str:
        """Identifies the caller for caches without holding the token itself."""
        digest = hashlib.sha256((self._token or "").encode()).hexdigest()[:16]
        return f"{self._api}|{digest}"

    @property
    def user_id(self) -> int | None:
        """The forge user this token belongs to, once learnt (gitea/users.py), else None."""
        return USERS.of(self._token)

    def learn_user(self, user_id: int, login: str | None = None) -> None:
        USERS.learn(self._token, user_id, login)

    def quotes_token(self, text: str) -> bool:
        """Whether `text` holds this client's token, or a run of 8 characters or more of it (the audit log never
        writes such a value)."""
        token = self._token
        return token is not None and token != "" and (token in text or (len(text) >= 8 and text in token))

    @property
    def user_login(self) -> str | None:
        """The forge login of this token's user, once learnt with its id (the audit log names it), else None."""
        return USERS.login_of(self._token)

    @property
    def caller_key(self) -> str:
        """Who calls, for fair share and the duplicate guard: the forge user when known, else the token's hash (as
        `cache_key`). Two tokens of one user are one caller; caches stay per token (their scopes may differ)."""
        user = self.user_id
        return f"{self._api}|user:{user}" if user is not None else self.cache_key

    def __repr__(self) -> str:  # never show the token
        return f"GiteaClient(url={self.url!r}, token={'set' if self._token else 'none'})"

    @property
    def has_token(self) -> bool:
        return bool(self._token)

    def with_token(self, token: str | None, bearer: bool = False, signed_in: bool = False) -> GiteaClient:
        """The same connection pool with another caller's token (one per HTTP request in multi-user mode);
        `bearer`: the caller's own, sent in its Authorization header (a refusal is then said to the caller);
        `signed_in`: that token came from our sign-in, sealed in one of ours (a refusal: sign in again)."""
        clone = GiteaClient(self._api.removesuffix("/api/v1"), token, self._timeout, retry=self._retry)
        clone._shared = self._shared
        clone._bearer = bearer
        clone._signed_in = signed_in
        return clone

    def get(self, segments: Sequence[Segment], params: Params | None = None, *, retry: bool = True) -> ApiResponse:
        """A read, retried on a busy forge; `retry=False` for one whose answer may go unused (asked ahead, before it
        is known to be needed), so a failure costs no backoff: ask it again with retries once it is (`transient`)."""
        return self._send("GET", segments, params=params, body=None, retry=retry)

    def write(self, method: str, segments: Sequence[Segment], body: Any) -> ApiResponse:
        """POST/PATCH/PUT/DELETE: sent exactly once; an unknown outcome is reported, never retried here.

        Only a clear refusal (a 3xx or 4xx) says nothing changed. Any other answer that is not the result — a 5xx,
        which a proxy sends as readily after Gitea committed as before, an HTML page or broken JSON under a 2xx —
        is an UnclearAnswer: its outcome is as unknown as a lost answer's, and the tools look it up the same way.
        """
        try:
            response = self._send(method, segments, params=None, body=body, retry=False)
        except GiteaError as exc:
            if isinstance(exc, NoAnswer | NotSent) or 300 <= exc.status < 500:
                raise
            where = f"{method} {self._path(segments)}"
            raise unclear(exc, where, _what_came(exc)) from None
        response.write = True
        return response

    def site(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, Any]:
        """One request outside the API (`/login/oauth/access_token`, `/.well-known/openid-configuration`): sent
        once, never retried (a code is spent by its first use), no token header. The status and the JSON body
        (None when it is not JSON); a transport failure is the GiteaError `_transport_error` tells apart."""
        self._spend(method, path)
        if not traces.STATE.on:
            return self._site(method, path, form, {})
        where, _ = traces.route(path.strip("/").split("/"))
        with traces.request_span(method, where, None, urlsplit(self._api).netloc, 0) as span:
            headers: dict[str, str] = {}
            traces.inject(headers)
            try:
                status, data = self._site(method, path, form, headers)
            except GiteaError as exc:
                traces.unanswered(span, exc)
                raise
            traces.answered(span, status)
            return status, data

    def _site(self, method: str, path: str, form: dict[str, str] | None, headers: dict[str, str]) -> tuple[int, Any]:
        timeout = self._timeout_now(method, path)
        sent = time.monotonic()
        deadline = sent + timeout
        site = self._api.removesuffix("/api/v1")
        try:
            response = outbound.send_form(self._shared.session(), method, site + path, form, timeout, headers)
            with response:
                content = read_body(response, deadline, FORGE.max_document)
        except outbound.failures().any as exc:
            observe.forge_request(method, None, time.monotonic() - sent)
            raise self._transport_error(exc, method, path, timeout) from None
        except Overrun as exc:
            observe.forge_request(method, response.status_code, time.monotonic() - sent)
            raise self._overrun_error(exc, method, path, response.status_code, timeout) from None
        self._slow_down(_Answer(response.status_code, response.headers, b""))
        observe.forge_request(method, response.status_code, time.monotonic() - sent)
        try:
            return response.status_code, json.loads(content)
        except ValueError:
            return response.status_code, None

    def parallel(self, *calls: Callable[[], T]) -> list[T]:
        """Run independent reads of one kind at once (pages, one per name) so a slow forge costs one round trip."""
        return self._run_at_once(calls)

    @overload
    def gather(self, a: Callable[[], A], b: Callable[[], B], /) -> tuple[A, B]: ...
    @overload
    def gather(self, a: Callable[[], A], b: Callable[[], B], c: Callable[[], C], /) -> tuple[A, B, C]: ...
    @overload
    def gather(
        self, a: Callable[[], A], b: Callable[[], B], c: Callable[[], C], d: Callable[[], D], /
    ) -> tuple[A, B, C, D]: ...
    @overload
    def gather(
        self, a: Callable[[], A], b: Callable[[], B], c: Callable[[], C], d: Callable[[], D], e: Callable[[], E], /
    ) -> tuple[A, B, C, D, E]: ...
    @overload
    def gather(
        self,
        a: Callable[[], A],
        b: Callable[[], B],
        c: Callable[[], C],
        d: Callable[[], D],
        e: Callable[[], E],
        f: Callable[[], F],
        /,
    ) -> tuple[A, B, C, D, E, F]: ...
    @overload
    def gather(
        self,
        a: Callable[[], A],
        b: Callable[[], B],
        c: Callable[[], C],
        d: Callable[[], D],
        e: Callable[[], E],
        f: Callable[[], F],
        g: Callable[[], G],
        /,
    ) -> tuple[A, B, C, D, E, F, G]: ...
    def gather(self, *calls: Callable[[], object]) -> tuple[object, ...]:
        """Independent reads of different kinds at once, each result typed as its call's: `issue, comments =
        client.gather(read_issue, read_comments)`."""
        return tuple(self._run_at_once(calls))

    def _run_at_once(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        # A worker never waits on other workers (nested calls run inline), so the pool cannot deadlock
        # however many requests share it. The caller's own thread runs the first call, then takes back each call no
        # worker has started yet and runs it too: with every worker busy (another caller's slow reads, say) a call
        # runs its reads one after another, never waiting in the queue behind reads that are not its own.
        if len(calls) <= 1 or threading.current_thread().name.startswith(_WORKER):
            return [call() for call in calls]
        pool = self._shared.pool()
        if traces.STATE.on:  # each worker's requests are children of the caller's span: its context goes with them
            futures = [pool.submit(contextvars.copy_context().run, call) for call in calls[1:]]
        else:
            futures = [pool.submit(call) for call in calls[1:]]
        try:
            first = calls[0]()
        finally:
            # Every call runs, even after the first failed, and every request ends before the tool answers.
            pairs = zip(calls[1:], futures, strict=True)
            outcomes = [_here(call) if future.cancel() else future for call, future in pairs]
            wait(outcomes)
        return [first, *(outcome.result() for outcome in outcomes)]

    # -- internals -------------------------------------------------------------------------------

    def _path(self, segments: Sequence[Segment]) -> str:
        return "/" + "/".join(quote(str(segment), safe="") for segment in segments)

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._token:
            headers["Authorization"] = f"token {self._token}"
        return headers

    def _send(
        self, method: str, segments: Sequence[Segment], params: Params | None, body: Any, retry: bool
    ) -> ApiResponse:
        path = self._path(segments)
        attempts = self._retry.attempts if retry else 1
        deadline = self._retry_deadline()
        for attempt in range(1, attempts + 1):
            if traces.STATE.on:
                outcome = self._traced(method, path, params, body, segments, attempt - 1)
            else:
                outcome = self._attempt(method, path, params, body, self._headers())
            if isinstance(outcome, ApiResponse):
                return outcome
            error = outcome
            if attempt == attempts or not transient(error):
                raise error
            delay = error.retry_after or self._backoff(attempt)
            # A wait is taken only if the retry can still be sent after it (`_timeout_now`'s margin).
            if time.monotonic() + delay > deadline - _LAST_MOMENT:
                raise error
            log.info("retrying %s %s in %.2fs after: %s", method, path, delay, error)
            time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _retry_deadline(self) -> float:
        """When a read's retries must be over: the tool call's deadline (or a call's budget from now, outside one),
        or the policy's own budget when that is sooner. It counts the requests' own time too, so retries can never
        stretch a call into a hang."""
        now = time.monotonic()
        deadline = self._deadline
        if deadline is None:
            deadline = now + self.call_budget
        return deadline if self._retry.budget is None else min(deadline, now + self._retry.budget)

    def _traced(
        self, method: str, path: str, params: Params | None, body: Any, segments: Sequence[Segment], resend: int
    ) -> ApiResponse | GiteaError:
        """`_attempt` in a span of its own (gitea/traces.py), its trace context sent on to the forge."""
        where, repository = traces.route(segments)
        with traces.request_span(method, where, repository, urlsplit(self._api).netloc, resend) as span:
            headers = self._headers()
            traces.inject(headers)
            try:
                outcome = self._attempt(method, path, params, body, headers)
            except GiteaError as exc:  # not sent at all: out of the call's time
                traces.unanswered(span, exc)
                raise
            if isinstance(outcome, GiteaError):
                traces.unanswered(span, outcome)
            else:
                traces.answered(span, outcome.status)
            return outcome

    def _attempt(
        self, method: str, path: str, params: Params | None, body: Any, headers: dict[str, str]
    ) -> ApiResponse | GiteaError:
        """One request: the parsed answer, or the error (whose `retry_after` is what the server asked to wait)."""
        self._spend(method, path)
        timeout = self._timeout_now(method, path)
        sent = time.monotonic()
        deadline = sent + timeout
        try:
            # Streamed: the body is read here, against a deadline and a size cap.
            response = self._shared.send(method, self._api + path, _query(params), body, headers, timeout)
            with response:
                answer = _Answer(response.status_code, response.headers, read_body(response, deadline, MAX_BODY))
        except outbound.failures().any as exc:
            observe.forge_request(method, None, time.monotonic() - sent)
            return self._transport_error(exc, method, path, timeout)
        except Overrun as exc:
            observe.forge_request(method, response.status_code, time.monotonic() - sent)
            return self._overrun_error(exc, method, path, response.status_code, timeout)
        self._slow_down(answer)
        observe.forge_request(method, answer.status, time.monotonic() - sent)
        if answer.status < 300:
            try:
                return self._parse(answer, method, path)
            except GiteaError as exc:
                return exc
        error = self._status_error(answer, method, path)
        wait = _retry_after(answer) if answer.status in _RETRY_STATUSES else None
        # Raised as is when the wait is not taken (a write, the call's time, the last attempt): say how long.
        return _asked_to_wait(error, wait) if wait else error

    def _spend(self, method: str, path: str) -> None:
        """Take this request's place in the deployment's budget toward the forge, waiting up to BUDGET_WAIT (and
        never past the call's time) for it; else OverBudget, raised before anything is sent."""
        budget = self._shared.budget
        if budget is None:
            return
        left = self.time_left()
        most = BUDGET_WAIT if left is None else min(BUDGET_WAIT, left - 2 * _LAST_MOMENT)
        taken = budget.spend(most)
        if taken.granted:
            if taken.wait > 0:
                time.sleep(taken.wait)
            return
        seconds = max(1, math.ceil(taken.wait))
        observe.limit_refused("forge")
        unsent = "nothing was sent, so nothing changed" if method != "GET" else "it was not sent"
        raise OverBudget(
            f"This server's budget of requests to Gitea is spent for now ({budget.rate.per_minute} a minute for all "
            f"its users, GITEA_MCP_FORGE_REQUESTS_PER_MINUTE, or a pause Gitea asked for), so {method} {path} "
            f"waited no longer and {unsent}; try again in {seconds} s.",
            seconds,
        )

    def _slow_down(self, answer: _Answer) -> None:
        """The forge's own limits pause the budget: a 429 or 503 with Retry-After, or rate-limit headers saying
        nothing is left until a reset."""
        budget = self._shared.budget
        if budget is None:
            return
        if answer.status in (429, 503):
            wait = _retry_after(answer)
            if wait is not None:
                budget.pause(wait.seconds)
                return
        reset = reset_after(answer.headers)
        if reset is not None:
            budget.pause(reset)

    def _backoff(self, attempt: int) -> float:
        # Full jitter keeps many agents from retrying in lock-step against one forge.
        ceiling = min(self._retry.max_delay, self._retry.base_delay * (2 ** (attempt - 1)))
        return random.uniform(0, ceiling)

    def _timeout_now(self, method: str, path: str) -> float:
        """This request's time: GITEA_TIMEOUT, or what is left of the tool call's, whichever is less."""
        deadline = self._deadline
        if deadline is None:
            return self._timeout
        left = deadline - time.monotonic()
        if left <= _LAST_MOMENT:
            # Not sent at all, so never a lost write: a plain failure, not something to look up.
            raise OutOfTime(
                f"The call ran out of time before {method} {path} could be sent (GITEA_TIMEOUT={self._timeout:g}s per "
                "request, a few per call); nothing more was sent. Gitea is slow: try again later."
            )
        return min(self._timeout, left)

    def _overrun_error(self, exc: Overrun, method: str, path: str, status: int, timeout: float) -> GiteaError:
        if exc.too_big:
            return Unreadable(
                f"Gitea's answer to {method} {path} is larger than {MAX_BODY // 2**20} MiB, more than any issue "
                "listing needs; a proxy in front of Gitea may be misbehaving.",
                status=status,
                what=f"larger than {MAX_BODY // 2**20} MiB",
            )
        slow = self._no_answer(f"Gitea did not finish answering {method} {path} {self._within(timeout)}.", method)
        slow.timed_out = True
        return slow

    def _within(self, timeout: float) -> str:
        why = "GITEA_TIMEOUT" if timeout >= self._timeout else "what was left of this call's time"
        return f"within {timeout:.3g}s ({why})"

    def _no_answer(self, text: str, method: str) -> NoAnswer:
        """Sent, and no answer came: a write's outcome is unknown (`cause` is what toolkit/writes.py quotes)."""
        cause = f"Gitea's answer was lost ({text.rstrip('.')})"
        detail = text
        if method != "GET":
            text += " The write may or may not have been applied."
        else:
            text += " Gitea, or a proxy in front of it, may be overloaded or restarting: try again shortly."
        return NoAnswer(text, cause=cause, detail=detail)

    def _transport_error(self, exc: Exception, method: str, path: str, timeout: float) -> GiteaError:
        """Told apart exactly: not sent at all (NotSent, TlsFailed), or sent with the answer lost (NoAnswer)."""
        kinds = outbound.failures()
        unsent = " Nothing was sent, so nothing changed." if method != "GET" else ""
        timed_out = False
        if isinstance(exc, kinds.tls):  # before ConnectionError, which it is too
            tls = tls_problem(exc)
            if tls.plain:
                reason = f"{self.url} answers without TLS ({tls.reason})"
                remedy = (
                    f"set GITEA_URL={_with_scheme(self.url, 'http')} (that port serves plain HTTP), or use the port "
                    "where Gitea serves HTTPS"
                )
                return WrongScheme(f"{reason}: {remedy}.{unsent}", reason, remedy)
            text = f"TLS with Gitea at {self.url} failed: {tls.reason}. {tls.remedy}"
            if tls.certificate:
                return TlsFailed(text + unsent, tls.reason, tls.remedy)
        elif before_sending(exc):
            if isinstance(exc, kinds.proxy):
                why, remedy = "the proxy could not be reached", _PROXY_REMEDY
            elif isinstance(exc, kinds.timeout):
                why, remedy = f"no connection {self._within(timeout)}", self._unreachable()
            else:
                why, remedy = self._refused(exc)
            text = f"Cannot reach Gitea at {self.url} ({why}).{unsent} {remedy[:1].upper()}{remedy[1:]}."
            return NotSent(text, why, remedy)
        elif isinstance(exc, kinds.timeout):
            text, timed_out = f"Gitea did not answer {method} {path} {self._within(timeout)}.", True
        elif isinstance(exc, kinds.connection):
            text = f"The connection to Gitea at {self.url} broke off during {method} {path}."
        else:
            text = f"The request {method} {path} to Gitea failed ({type(exc).__name__})."
        answer = self._no_answer(text, method)
        answer.timed_out = timed_out
        return answer

    def _refused(self, exc: BaseException) -> tuple[str, str]:
        """Why no connection was made, and the remedy for that cause."""
        parts = urlsplit(self.url)
        host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
        why = _refusal(exc)
        if why is Refusal.NO_SUCH_HOST:
            return why.value, f"correct the host name in GITEA_URL: {host} is not known to this machine's DNS"
        if why is Refusal.REFUSED:
            return why.value, f"nothing listens on port {port} of {host}: start Gitea, or correct the port in GITEA_URL"
        return why.value, self._unreachable()

    def _unreachable(self) -> str:
        host = urlsplit(self.url).hostname or ""
        return (
            f"make sure {host} is reachable from this machine: a firewall may drop the connection, or a proxy is "
            "needed (HTTPS_PROXY, HTTP_PROXY)"
        )

    def _status_error(self, response: _Answer, method: str, path: str) -> GiteaError:
        if 300 <= response.status < 400:
            return redirected(response.status, response.headers.get("Location", ""), method, path, self.url)
        if response.status == 400 and any(words.encode() in response.content[:512] for words in PLAIN_HTTP_TO_TLS):
            reason = f"{self.url} speaks HTTPS (TLS), but GITEA_URL says http://"
            remedy = f"set GITEA_URL={_with_scheme(self.url, 'https')} (that port serves HTTPS)"
            return WrongScheme(f"{reason}: {remedy}. Nothing was done.", reason, remedy)
        body = _gitea_message(response.content)
        message, errors = body or ("", ())
        message, errors = redact(message, self._token), tuple(redact(error, self._token) for error in errors)
        if response.status == 404 and not message and not errors:
            return no_endpoint(method, path, self.url)
        error = from_status(
            response.status, message, method, path, errors, anonymous=not self._token, bearer=self._bearer,
            signed_in=self._signed_in,
        )  # fmt: skip
        error.from_gitea = body is not None
        return error

    def _parse(self, response: _Answer, method: str, path: str) -> ApiResponse:
        content = b"" if response.status == 204 else response.content
        if content[:1] == b"<" or b"<html" in content[:512].lower():
            raise Unreadable(
                f"Gitea answered {method} {path} with an HTML page instead of JSON; "
                "a proxy in front of Gitea may be failing, or GITEA_URL points at the wrong place.",
                status=response.status,
                what="an HTML page instead of JSON",
            )
        return ApiResponse(
            content=content,
            status=response.status,
            total=_total(response.headers.get("X-Total-Count")),
            has_next=bool(_LINK_NEXT.search(response.headers.get("Link", ""))),
            has_links="Link" in response.headers,
            where=f"{method} {path}",
        )


CALL_ROUNDS = 4  # a tool call's deadline, in GITEA_TIMEOUTs
# Seconds a request waits at most for room in the budget toward the forge: a tool's burst of parallel reads is spread
# out rather than failed, but a spent budget is said plainly rather than held on the tool threads (docs/operators.md).
BUDGET_WAIT = 2.0
_LAST_MOMENT = 0.05  # seconds: with less of the call left, a request is not sent at all


MAX_BODY = FORGE.max_body  # bytes of one answer of the API


@dataclass(frozen=True)
class _Answer:
    """A response as read here, body and all (`outbound.read_body`): what the rest of the client looks at."""

    status: int
    headers: Mapping[str, str]  # requests' case-insensitive mapping
    content: bytes


def _query(params: Params | None) -> str | None:
    """The query string exactly as requests would encode `params` (in order, UTF-8, `quote_plus`, a None left out),
    given to it ready: from a mapping it checks each value against a runtime Protocol, a tenth of a GET's CPU."""
    if not params:
        return None
    return urlencode([(key, value) for key, value in params.items() if value is not None])


def display_url(url: str) -> str:
    """The URL as every message shows it: never a user:password@ part, which may hold a credential, nor a query or
    fragment (GITEA_URL has neither; config refuses them)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


_PROXY_REMEDY = "check the proxy settings (HTTPS_PROXY, HTTP_PROXY) and NO_PROXY for Gitea's host"


def _with_scheme(url: str, scheme: str) -> str:
    """The same URL under the other scheme (a port given stays; a default one goes with its scheme)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme=scheme))


class Unreadable(GiteaError):
    """An answer with a success status whose body is not Gitea's JSON; `what` says what it is instead."""

    def __init__(self, message: str, status: int, what: str) -> None:
        super().__init__(message, status=status)
        self.what = what


def unclear(error: GiteaError, where: str, what: str) -> UnclearAnswer:
    """A write's answer that is neither its result nor a clear refusal: the write may or may not have happened."""
    cause = f"Gitea's answer did not come through: {where} was answered with {what}"
    text = f"{cause}, so the write may or may not have been applied."
    return UnclearAnswer(text, status=error.status, cause=cause, settled=error.from_gitea)


def _what_came(error: GiteaError) -> str:
    if isinstance(error, Unreadable):
        return f"{error.what} (HTTP {error.status})"
    said = f": {redact(error.gitea_message.strip())[:200]}" if error.gitea_message.strip() else ""
    return f"a server error (HTTP {error.status}{said})"


class Refusal(enum.Enum):
    """Why no connection was made, each cause in the words a message uses (no errno codes, no urllib3 names)."""

    NO_SUCH_HOST = "its host name does not resolve"
    REFUSED = "connection refused"
    NO_ROUTE = "no route to host"
    NETWORK_UNREACHABLE = "network is unreachable"
    RESET = "connection reset"
    UNKNOWN = "no connection could be made"


# The OS's words for each cause, as they appear in the text of the error urllib3 wraps.
_OS_WORDS = {
    "Connection refused": Refusal.REFUSED,
    "No route to host": Refusal.NO_ROUTE,
    "Network is unreachable": Refusal.NETWORK_UNREACHABLE,
    "Connection reset": Refusal.RESET,
}


def _refusal(exc: BaseException) -> Refusal:
    if innermost(exc, outbound.failures().no_such_host) is not None:
        return Refusal.NO_SUCH_HOST
    text = str(exc)
    return next((cause for words, cause in _OS_WORDS.items() if words in text), Refusal.UNKNOWN)


# Gitea writes the count with strconv.FormatInt: ASCII digits. Anything else (a sign, `1_000`, other scripts' digits,
# which Python's int() takes) is unknown, never shown as "-7 matches"; 19 digits is more than any int64 count needs.
_COUNT = re.compile(r"[0-9]{1,19}")


def _total(raw: str | None) -> int | None:
    return int(raw) if raw is not None and _COUNT.fullmatch(raw.strip()) else None


@dataclass(frozen=True)
class _Wait:
    """What a Retry-After asks: seconds from now, and the moment named when it was an HTTP date."""

    seconds: float
    until: datetime | None = None


_DELAY_SECONDS = re.compile(r"\d+(?:\.\d+)?")


def _retry_after(response: _Answer) -> _Wait | None:
    """Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3); None when absent, unreadable or past."""
    raw = response.headers.get("Retry-After", "").strip()
    if _DELAY_SECONDS.fullmatch(raw):
        return _Wait(float(raw)) if float(raw) > 0 else None
    until = _http_date(raw)
    if until is None:
        return None
    # Counted from the server's own clock (its Date header) where it sent one: ours may be off.
    now = _http_date(response.headers.get("Date", "")) or datetime.now(UTC)
    seconds = (until - now).total_seconds()
    return _Wait(seconds, until) if seconds > 0 else None


def _http_date(raw: str) -> datetime | None:
    try:
        moment = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment  # asctime has no zone: it is GMT


def _asked_to_wait(error: GiteaError, wait: _Wait) -> GiteaError:
    """The same error, saying how long the server asked to wait: the caller's only useful next step."""
    how_long = f"{wait.seconds:.1f}".removesuffix(".0") + " s"
    if wait.until is not None:
        how_long = f"until {wait.until.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC ({wait.seconds:.0f} s)"
    text = f"Gitea asked to wait {how_long} before the next request ({error.status}); try again after that."
    waiting = kind_of(error.status)(
        text, status=error.status, gitea_message=error.gitea_message, gitea_errors=error.gitea_errors, path=error.path
    )
    waiting.retry_after = wait.seconds
    return waiting


def _gitea_message(content: bytes) -> tuple[str, tuple[str, ...]] | None:
    """Gitea's `{"message": ..., "errors": [...]}`; None when the body is not Gitea's error (a proxy's page)."""
    try:
        body = json.loads(content)
    except ValueError:  # UnicodeDecodeError is one
        return None
    if not isinstance(body, dict) or not ("message" in body or "errors" in body):
        return None
    errors = body.get("errors")
    listed = tuple(str(e)[:500] for e in errors[:10]) if isinstance(errors, list) else ()
    return str(body.get("message", ""))[:500], listed
