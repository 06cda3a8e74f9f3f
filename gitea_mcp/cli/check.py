"""check: a preflight against the configured Gitea, one line per check, a fix for each failure.

It verifies exactly the scopes the offered tools declare (each tool module's `SPEC`) and says `ready` only when
every offered tool will work. Every probe is free of side effects. The write-scope probe posts an issue with an
empty title to a repository that does not exist: Gitea checks the token's scope before it looks the repository
up (403 without write:issue, 404 with it; verified on Gitea 1.22, 1.25 and Forgejo 11), so nothing is created.
Scopes are not enough: per allowed owner, it asks whether the token's user may change issues there, by posting a
label without a name to each repository of the owner's newest issues (422 for a writer, 403 for a reader; see
docs/server-behaviour.md). Only the answers that prove something count; anything else says it could not tell.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from gitea_mcp.cli.lines import Line, Mark, lacks_scope
from gitea_mcp.cli.lockdown_check import lockdown_checks
from gitea_mcp.domain.policy import MAX_LIMIT
from gitea_mcp.domain.toolsets import TOOLSETS
from gitea_mcp.gitea.client import GiteaClient, display_url
from gitea_mcp.gitea.errors import (
    Forbidden,
    GiteaError,
    NoAnswer,
    NoEndpoint,
    NotFound,
    NotSent,
    Rejected,
    ServerFailed,
    TlsFailed,
    Unauthorized,
    WrongScheme,
)
from gitea_mcp.gitea.outbound import speaks_tls
from gitea_mcp.gitea.release import ServerInfo
from gitea_mcp.redaction import redis_display, shown
from gitea_mcp.settings import ConfigError, Settings, public_url_unreachable
from gitea_mcp.toolkit import scopes
from gitea_mcp.toolkit.registry import every, offered
from gitea_mcp.toolkit.render import counted
from gitea_mcp.toolkit.spec import ToolSpec

HELP = (
    "check the configured Gitea: URL, version, token and its scopes, owners, page size, and the sign-in set-up when "
    "one is given (exit 1 if unusable)"
)

MARKS: dict[Mark, str] = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}
ASCII_MARKS: dict[Mark, str] = {"ok": "[ok]", "warn": "[!]", "fail": "[x]", "skip": "[-]"}
TOTALS_SINCE = (1, 16)  # X-Total-Count arrived in Gitea 1.16
PROBE_REPO = "gitea-mcp-scope-probe"


@dataclass(frozen=True)
class Token:
    """What the token check learned: whether to go on, and whose token it is (None when not shown)."""

    lines: list[Line]
    usable: bool
    login: str | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """check takes only the common settings."""


def run(ns: argparse.Namespace, settings: Settings) -> int:
    # why: the MCP SDK, 0.45 s: every command module is imported for `--help`
    from gitea_mcp.server.app import make_client

    # Each line is printed as its probe ends: against a slow Gitea the whole run takes many round trips.
    lines: list[Line] = []
    marks = _marks(sys.stdout.encoding)
    print(f"gitea-issues-mcp check: {display_url(settings.url)}", flush=True)
    from gitea_mcp.cli.main import environment_notes  # why: main imports each command module; no cycle at load

    reported, _ = environment_notes()  # those refused stopped check before it began
    for line in [Line("warn", sentence, "remove it, or rename it as said") for sentence in reported]:
        lines.append(line)
        print(render_line(line, settings, marks), flush=True)
    for line in checks(settings, make_client(settings)):
        lines.append(line)
        print(render_line(line, settings, marks), flush=True)
    print(_verdict(lines), flush=True)
    return 1 if any(line.mark == "fail" for line in lines) else 0


def run_checks(settings: Settings, client: GiteaClient) -> list[Line]:
    return list(checks(settings, client))


def checks(settings: Settings, client: GiteaClient) -> Iterator[Line]:
    """Each check in order, each line as soon as it is known; the replicas' write guard last, when one is set."""
    yield from gitea_checks(settings, client)
    reach = public_url_line(settings)
    if reach is not None:
        yield reach
    yield limits_line(settings)
    if settings.redis_url is not None:
        yield check_guard(settings)
    traces = check_traces(settings)
    if traces is not None:
        yield traces
    if settings.metrics_port is not None or settings.audit_log is not None:
        yield check_metrics(settings)
        yield check_audit(settings)


def public_url_line(settings: Settings) -> Line | None:
    """A warning when GITEA_MCP_PUBLIC_URL cannot reach the port serve would listen on (GITEA_MCP_HOST and
    GITEA_MCP_PORT as check reads them; any free port, 0, is not judged); nothing otherwise."""
    found = public_url_unreachable(settings, settings.port)
    return None if found is None else Line("warn", f"sign-in: {found[0]}", found[1])


def limits_line(settings: Settings) -> Line:
    """The per-user limit and the forge budget in force, and where they are kept (nothing is asked)."""
    from gitea_mcp.server.quota import calls_per_minute  # why: anyio and the limiter, for check alone here

    per_user = calls_per_minute(settings)
    mode = "over HTTP" if settings.transport == "http" else "on stdio"
    calls = (
        f"{per_user} tool calls a minute per user {mode} (GITEA_MCP_CALLS_PER_MINUTE)"
        if per_user
        else "no limit of tool calls per user (GITEA_MCP_CALLS_PER_MINUTE=0)"
    )
    forge = settings.forge_requests_per_minute
    budget = (
        f"{forge} requests a minute to Gitea for the whole deployment (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE)"
        if forge
        else "no budget of requests to Gitea (GITEA_MCP_FORGE_REQUESTS_PER_MINUTE=0)"
    )
    if settings.redis_url is not None:
        where = f"kept in Redis at {redis_display(settings.redis_url.get_secret_value())}, shared by every replica"
    else:
        where = "kept in this process: each replica its own (GITEA_MCP_REDIS_URL shares them)"
    return Line("ok", f"limits: {calls}; {budget}; {where}")


def gitea_checks(settings: Settings, client: GiteaClient) -> Iterator[Line]:
    """Gitea's checks in order; when Gitea or the token fails, the rest would only repeat that failure."""
    url = display_url(settings.url)
    version, server = read_version(client, url, settings.timeout)
    yield version
    if version.mark == "fail":
        yield Line("skip", "other checks skipped: Gitea's API did not answer")
        return
    if settings.toolsets != TOOLSETS:
        yield served_toolsets(settings)
    token = check_token(settings, client, url, _offered(settings))
    yield from token.lines
    if not token.usable:
        yield Line("skip", "other checks skipped: the token was refused")
        return
    read = check_read(client, url, anonymous=settings.token is None, fix=new_token_fix(url, _offered(settings)))
    yield read
    write = check_write(settings, client, token.login, new_token_fix(url, _offered(settings)))
    yield write
    yield from check_reviews(settings, client, token.login)
    # Whether the user may change issues matters only where the write tools are offered and the token may write.
    writes = _writes_offered(settings)
    access = Access(token.login) if write.mark != "fail" and writes and settings.token else None
    if read.mark == "ok":
        yield from check_owners(settings, client, access, token.login)
    else:
        yield Line("skip", "owners not checked: issues cannot be read")
    yield from lockdown_checks(settings, client)
    yield check_page_size(client)
    if settings.signin and server is not None:
        # why: 2 ms of every start-up (parsing loads each command module), for sign-in set-ups only
        from gitea_mcp.cli.signin_check import signin_checks

        yield from signin_checks(settings, client, server)


def render(lines: list[Line], settings: Settings, encoding: str | None) -> str:
    """The whole report at once, as `run` prints it line by line."""
    marks = _marks(encoding)
    out = [f"gitea-issues-mcp check: {display_url(settings.url)}"]
    out += [render_line(line, settings, marks) for line in lines]
    return "\n".join([*out, _verdict(lines)])


def render_line(line: Line, settings: Settings, marks: dict[Mark, str]) -> str:
    text = f"{marks[line.mark]} {line.text}" + (f"\n    fix: {line.fix}" if line.fix else "")
    # The HTTP layer's messages quote the configured URL as given, credentials included.
    return text.replace(settings.url, display_url(settings.url))


def _marks(encoding: str | None) -> dict[Mark, str]:
    return MARKS if _can_encode("".join(MARKS.values()), encoding) else ASCII_MARKS


def _verdict(lines: list[Line]) -> str:
    fails = sum(line.mark == "fail" for line in lines)
    warns = sum(line.mark == "warn" for line in lines)
    warnings = f"{warns} warning{'s' * (warns != 1)}"
    if fails:
        return f"not ready: {fails} problem{'s' * (fails != 1)} to fix" + (f", {warnings}" if warns else "")
    return f"ready, with {warnings}" if warns else "ready"


def _can_encode(text: str, encoding: str | None) -> bool:
    # A Windows console or pipe in a legacy code page cannot print ✓ and ✗.
    try:
        text.encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


# -- the checks ----------------------------------------------------------------------------------------------------


def read_version(client: GiteaClient, url: str, timeout: float) -> tuple[Line, ServerInfo | None]:
    """The version's line, and the release read from it (None when no version came: Gitea did not answer)."""
    found: list[ServerInfo] = []
    line = _version_line(client, url, timeout, found)
    return line, (found[0] if found else None)


def _version_line(client: GiteaClient, url: str, timeout: float, found: list[ServerInfo]) -> Line:
    try:
        data = _version(client)
    except WrongScheme as exc:
        return Line("fail", exc.reason, exc.remedy)
    except TlsFailed as exc:
        return Line("fail", f"TLS with {url} failed: {exc.reason}", exc.remedy)
    except NotSent as exc:  # each cause its own remedy: a refused port is not a wrong URL form
        return Line("fail", f"cannot reach Gitea at {url}: {exc.reason}", exc.remedy)
    except NoAnswer as exc:
        return _lost(exc, url, timeout)
    except (NotFound, NoEndpoint):
        # Every Gitea and Forgejo answers /version (without a token too), so a 404 is some other server or page,
        # not a missing repository or owner as a 404 means elsewhere.
        return Line("fail", f"{url}/api/v1/version answers 404: {_NOT_GITEA}", _SITE_ROOT)
    except GiteaError as exc:
        return Line("fail", f"no Gitea API answers at {url}/api/v1: {exc}", _version_fix(exc))
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(version, str):
        return Line("fail", f"{url}/api/v1/version answers without a version: {_NOT_GITEA}", _SITE_ROOT)
    server = ServerInfo.parse(version)  # the reading every tool acts on
    found.append(server)
    kind, level = server.flavor, server.gitea_api
    api = f" (Gitea {'.'.join(map(str, level))} API)" if kind == "Forgejo" and level else ""
    if not server.understood:
        return Line("warn", f"{kind} {version} at {url}: version not understood, assuming a current API")
    if level is not None and level < TOTALS_SINCE:
        return Line(
            "warn",
            f"{kind} {version} at {url} is older than Gitea 1.16: lists carry no X-Total-Count, so no totals",
            "upgrade Gitea to 1.16 or later",
        )
    return Line("ok", f"{kind} {version}{api} at {url}")


def _version(client: GiteaClient) -> object:
    try:
        return client.get(["version"]).data
    except GiteaError as exc:
        if not isinstance(exc, Unauthorized):
            raise
        # Gitea refuses a bad token on every route, this one included: ask anonymously so that the version
        # still shows and the token check names the real problem.
        return client.with_token(None).get(["version"]).data


_NOT_GITEA = "the URL does not look like a Gitea or Forgejo API"
_SITE_ROOT = (
    "set GITEA_URL to the address of Gitea's home page, without a repository or other page after it, "
    "e.g. GITEA_URL=https://gitea.example.com (or https://example.com/gitea when Gitea lives under a path)"
)


def _lost(exc: NoAnswer, url: str, timeout: float) -> Line:
    """Connected, and no answer: a TLS port hangs up on plain HTTP (a look at the port tells), or something there
    accepts connections and says nothing."""
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    https = urlunsplit(parts._replace(scheme="https"))
    if parts.scheme == "http" and not exc.timed_out and speaks_tls(host, port, timeout):
        return Line(
            "fail",
            f"{url} speaks HTTPS (TLS), but GITEA_URL says http://",
            f"set GITEA_URL={https} (that port serves HTTPS)",
        )
    if exc.timed_out:
        fix = (
            f"something listens on port {port} of {host} but does not answer: make sure that is Gitea's port "
            "and that Gitea is not stuck, or raise GITEA_TIMEOUT for a slow server"
        )
    else:
        fix = (
            f"something on port {port} of {host} closes connections without an answer: make sure that is "
            "Gitea's port and that Gitea (or the proxy in front of it) is running; run check again if it was "
            "restarting"
        )
    return Line("fail", f"no Gitea API answers at {url}/api/v1: {exc.detail}", fix)


def _version_fix(exc: GiteaError) -> str:
    if isinstance(exc, Unauthorized | Forbidden):
        return "this Gitea requires sign-in for its API: set GITEA_TOKEN"
    if isinstance(exc, ServerFailed):  # something answers there, so the URL's form is not the question
        return (
            f"the server at GITEA_URL answers, but fails ({exc.status}): check that Gitea (and the proxy in front of "
            "it) is running and read its log, then run check again"
        )
    return _SITE_ROOT


def _offered(settings: Settings) -> list[ToolSpec]:
    return list(offered(settings.read_only, settings.toolsets))


def _writes_offered(settings: Settings) -> bool:
    """Whether any write tool is served: not read-only, and a toolset served has one."""
    return any(spec.writes for spec in _offered(settings))


def served_toolsets(settings: Settings) -> Line:
    """Which toolsets GITEA_TOOLSETS serves, and the tools it leaves out (said only when it leaves some out)."""
    left = [spec.name for spec in every() if spec.toolset not in settings.toolsets]
    return Line(
        "ok",
        f"toolsets (GITEA_TOOLSETS): {', '.join(settings.toolsets)} served; not offered: "
        f"{', '.join(left) or 'no tool (the others have none)'}",
    )


def new_token_fix(url: str, tools: list[ToolSpec]) -> str:
    return (
        f"create a token at {url}/user/settings/applications with {' and '.join(scopes.needed(tools))}, set GITEA_TOKEN"
    )


def check_token(settings: Settings, client: GiteaClient, url: str, tools: list[ToolSpec]) -> Token:
    new_token = new_token_fix(url, tools)
    if settings.token is None:
        text = "no GITEA_TOKEN: anonymous reads of public repositories only, no writes"
        # Over HTTP each request brings its own token, so a server without one is a valid setup.
        return Token([Line("warn", text, new_token + " (with --transport http, callers send their own)")], True)
    try:
        data = client.get(["user"]).data
    except GiteaError as exc:
        if lacks_scope(exc):  # the token authenticated; it only may not read its own profile
            return Token([_without_read_user(tools, new_token)], True)
        if isinstance(exc, Unauthorized):
            return Token([Line("fail", "Gitea refused the token (401): wrong, expired or revoked", new_token)], False)
        return Token([Line("fail", f"the token does not work: {exc}", new_token)], False)
    login = str(data.get("login", "?")) if isinstance(data, dict) else "?"
    lines = [Line("ok", f"token valid: acts as @{login}"), _read_user(tools)]
    if isinstance(data, dict) and data.get("is_admin"):
        lines.append(Line("warn", f"@{login} is a site administrator: agents act with admin rights", _DEDICATED_USER))
    return Token(lines, True, login)


def _read_user(tools: list[ToolSpec]) -> Line:
    """GET /user answered: the token has read:user; say what it serves."""
    users = scopes.users_of(scopes.READ_USER, tools)
    writes = f"{' and '.join(users)} find your earlier writes (no duplicates), " if users else ""
    return Line("ok", f"{scopes.READ_USER}: {writes}issue_search takes @me")


def _without_read_user(tools: list[ToolSpec], fix: str) -> Line:
    users = scopes.users_of(scopes.READ_USER, tools)
    if not users:
        return Line("ok", "token accepted (its user is not shown without read:user; the offered tools need none)")
    return Line("fail", f"the token lacks read:user: {', '.join(users)} cannot check for your earlier writes", fix)


_DEDICATED_USER = "use a token of a dedicated user with access to the allowed owners only"


def check_read(client: GiteaClient, url: str, anonymous: bool = False, fix: str = "") -> Line:
    """`fix`: the new token to make, with every scope the offered tools need (not only the one missing)."""
    try:
        response = client.get(["repos", "issues", "search"], {"limit": 1, "type": "issues"})
    except GiteaError as exc:
        if lacks_scope(exc):
            fix = fix or f"create a token at {url}/user/settings/applications with read:issue, set GITEA_TOKEN"
            return Line("fail", "the token lacks read:issue: no tool can read issues", fix)
        return Line("fail", f"reading issues failed: {exc}")
    # The search without an owner: every repository the token can read, whoever owns it; open issues only.
    if anonymous:  # no scope is in question: without a token Gitea shows public repositories only
        count = "" if response.total is None else f": {counted(response.total, 'open issue')} visible"
        return Line("ok", f"anonymous reads (no token){count or ' work'} in public repositories")
    if response.total is None:
        return Line("ok", "read:issue")
    return Line(
        "ok", f"read:issue: {counted(response.total, 'open issue')} visible across every repository it can read"
    )


def _write_tools() -> str:
    return ", ".join(spec.name for spec in every() if spec.writes)


def check_write(settings: Settings, client: GiteaClient, login: str | None, new_token: str = "") -> Line:
    tools = _write_tools()
    if settings.read_only:
        return Line("ok", f"read-only mode (GITEA_READ_ONLY): {tools} hidden, write:issue not needed")
    if not _writes_offered(settings):
        return Line("ok", "no write tool in the toolsets served (GITEA_TOOLSETS): write:issue not needed")
    hide = "set GITEA_READ_ONLY=true to hide them from agents"
    if settings.token is None:
        # Over HTTP callers bring their own tokens; over stdio the write tools would fail on every call.
        mark: Mark = "warn" if settings.transport == "http" else "fail"
        return Line(mark, f"without a token {tools} fail", f"set GITEA_TOKEN, or {hide}")
    owner = _probe_owner(settings, login)
    try:
        client.write("POST", ["repos", owner, PROBE_REPO, "issues"], {"title": ""})
    except GiteaError as exc:
        if lacks_scope(exc):
            fix = f"{new_token}, or {hide}" if new_token else f"add write:issue, or {hide}"
            return Line("fail", f"the token lacks write:issue: {tools} would fail", fix)
        if proves_scope(exc):
            return Line("ok", "write:issue (probed with an empty title Gitea refuses; nothing was created)")
        return Line("warn", f"could not tell whether the token has write:issue: {exc}", _UNPROVEN)
    # Unreachable on any Gitea we know: an empty title is refused after the scope check.
    return Line("warn", f"Gitea accepted an empty-titled issue in {owner}/{PROBE_REPO}", "delete that issue")


def proves_scope(exc: GiteaError) -> bool:
    """Only answers Gitea gives once the scope check has passed: its JSON 404 for the missing probe repository, or
    the 422 for the empty title where that repository exists. A proxy's 405, a router's plain-text 404 (NoEndpoint),
    a redirect or a sign-in page come from before Gitea's scope check, or from something else entirely."""
    return isinstance(exc, NotFound) or (isinstance(exc, Rejected) and exc.status == 422)


_UNPROVEN = (
    "run check again; if this stays, make sure GITEA_URL reaches Gitea's API directly (no proxy that blocks POST, "
    "no sign-in page in front of it)"
)


def check_reviews(settings: Settings, client: GiteaClient, login: str | None) -> list[Line]:
    """read:repository is optional (issue_get reads the state and inline comments of pull request reviews with it):
    say whether the token has it, asking for the probe repository, which Gitea looks up only after the scope check
    (404 with it, 403 without)."""
    if settings.token is None:
        return []
    try:
        client.get(["repos", _probe_owner(settings, login), PROBE_REPO])
    except GiteaError as exc:
        if lacks_scope(exc) and exc.missing_scope == scopes.READ_REPOSITORY:
            return [
                Line(
                    "skip",
                    f"no {_OPTIONAL}: issue_get shows a pull request's reviews without their state "
                    "or inline comments; add it to the token to see them",
                )
            ]
        if not isinstance(exc, NotFound):
            return []  # not Gitea's own answer: nothing to tell about an optional scope
    return [Line("ok", f"{_OPTIONAL}: issue_get shows pull request reviews with their state and inline comments")]


_OPTIONAL = f"{scopes.READ_REPOSITORY} (optional)"


def _probe_owner(settings: Settings, login: str | None) -> str:
    return next(iter(sorted(settings.allowed_owners - {"*"})), login or "gitea-mcp")


@dataclass(frozen=True)
class Access:
    """Probe, per owner, whether the token's user may change issues; `login` is None without read:user."""

    login: str | None

    @property
    def who(self) -> str:
        return f"@{self.login}" if self.login else "the token's user"


ACCESS_SAMPLE = 50  # issues read per owner: their repositories are the ones probed for write access
MAX_PROBED = 10  # repositories probed per owner: those of its newest issues first


def check_owners(
    settings: Settings, client: GiteaClient, access: Access | None = None, login: str | None = None
) -> Iterator[Line]:
    """Per allowed owner: whether it exists and its issues are visible, and with `access` whether the token's user
    may change them. `login`: the token's user (None when not known), who may change issues in every repository it
    owns, so an owner that is that user is never a warning, issues or none."""
    if settings.allow_all_owners:
        fix = "name the owners instead, e.g. GITEA_ALLOWED_OWNERS=acme,alice"
        unknown = f", and whether {access.who} may change issues is checked for none of them" if access else ""
        yield Line("warn", f"GITEA_ALLOWED_OWNERS='*': every owner this token can see is allowed{unknown}", fix)
        return
    for owner in sorted(settings.allowed_owners):  # one owner's lines at a time, as they are known
        yield from _check_owner(client, owner, access, login)


def _check_owner(client: GiteaClient, owner: str, access: Access | None, login: str | None) -> list[Line]:
    # The issue search needs only read:issue, unlike /users and /orgs (read:user, read:organization), and it
    # answers 400 for an owner that does not exist. Its rows name their repositories (without permissions).
    params: dict[str, str | int] = {"owner": owner, "limit": ACCESS_SAMPLE, "type": "issues", "state": "all"}
    try:
        response = client.get(["repos", "issues", "search"], params)
    except GiteaError as exc:
        if isinstance(exc, Rejected | NotFound):
            return [Line("fail", f"owner {owner}: no such user or organisation", "correct GITEA_ALLOWED_OWNERS")]
        return [Line("fail", f"owner {owner}: {exc}")]
    repos = _repositories(response.data)
    if (response.total == 0 or not repos) and not client.has_token:
        fix = "if its repositories are private, set GITEA_TOKEN to a token of a user who can see them"
        text = f"owner {owner}: exists, but no issues of its repositories are visible without a token (public "
        return [Line("warn", text + "repositories only)", fix)]
    if (response.total == 0 or not repos) and _is_user(owner, login):
        return [Line("ok", f"owner {owner}: no issues yet; {_own(login)}")]
    if response.total == 0 or not repos:
        unknown = f", so whether {access.who} may change issues there is not known" if access else ""
        fix = "if its repositories are private, give the token's user access to them"
        return [Line("warn", f"owner {owner}: exists, but this token sees no issues there{unknown}", fix)]
    count = "issues" if response.total is None else counted(response.total, "issue")
    lines = [Line("ok", f"owner {owner}: {count} (open and closed) visible in its repositories")]
    return lines + ([_check_access(client, owner, repos[:MAX_PROBED], access)] if access else [])


def _is_user(owner: str, login: str | None) -> bool:
    """Whether the owner is the token's user: logins are case-insensitive in Gitea and Forgejo."""
    return login is not None and owner.casefold() == login.casefold()


def _own(login: str | None) -> str:
    return f"the token's own user: @{login} may change issues in every repository it owns"


def _repositories(rows: object) -> list[tuple[str, str]]:
    """The distinct repositories of the search's rows, in the order they come (newest issue first)."""
    found: dict[tuple[str, str], None] = {}
    for row in rows if isinstance(rows, list) else []:
        repo = row.get("repository") if isinstance(row, dict) else None
        owner, _, name = str(repo.get("full_name", "")).partition("/") if isinstance(repo, dict) else ("", "", "")
        if owner and name:
            found[(owner, name)] = None
    return list(found)


# -- may the user change issues? -------------------------------------------------------------------------------
# The issue routes' documented scopes cannot read a repository's permissions (GET /repos/{o}/{r} needs
# read:repository), but creating a label can tell, changing nothing: Gitea checks that the user may write to the
# repository's issues or pull requests before it reads the body, so a label without a name is refused with 422 for
# a writer and 403 for a reader (docs/server-behaviour.md, test_creating_a_nameless_label_tells_writers_from_readers).

Verdict = Literal["writer", "reader", "unknown"]


def _check_access(client: GiteaClient, owner: str, repos: list[tuple[str, str]], access: Access) -> Line:
    verdicts: dict[Verdict, list[str]] = {"writer": [], "reader": [], "unknown": []}
    errors: list[GiteaError] = []
    for repo_owner, name in repos:
        verdict, error = _may_write(client, repo_owner, name)
        verdicts[verdict].append(name if repo_owner.lower() == owner.lower() else f"{repo_owner}/{name}")
        errors += [error] if error else []
    writers, readers, unknown = (", ".join(verdicts[kind]) for kind in ("writer", "reader", "unknown"))
    who = access.who
    if not readers and not unknown:
        return Line(
            "ok", f"owner {owner}: {who} can change issues in {writers} (write access; probed, nothing changed)"
        )
    if not writers and not unknown:
        text = (
            f"owner {owner}: {who} may only read {readers}: issue_update is refused (403) on issues others filed, "
            "and issue_create drops labels, milestone, assignees and due date"
        )
        fix = (
            f"give {who} write access to {owner}'s repositories (a collaborator with Write, or a team with write "
            "to Issues), or set GITEA_READ_ONLY=true"
        )
        return Line("fail", text, fix)
    # A mixture, or some answers that prove nothing: a warning naming each part.
    text = f"owner {owner}: "
    if writers:
        text += f"{who} can change issues in {writers}" + (", but " if readers else "")
    if readers:
        text += f"{'' if writers else who + ' '}may only read {readers}: issue_update is refused (403) there on issues "
        text += "others filed"
    if unknown:
        text += f"{'; ' if writers or readers else ''}could not tell whether {who} can change issues in {unknown}: "
        text += str(errors[0])
    return Line("warn", text, f"give {who} write access to {readers}" if readers else _UNPROVEN)


def _may_write(client: GiteaClient, owner: str, name: str) -> tuple[Verdict, GiteaError | None]:
    try:
        client.write("POST", ["repos", owner, name, "labels"], {"name": "", "color": ""})
    except GiteaError as exc:
        if isinstance(exc, Rejected) and exc.status == 422:
            return "writer", None
        if isinstance(exc, Forbidden) and exc.gitea_message and not lacks_scope(exc):
            return "reader", None
        return "unknown", exc
    # Unreachable on any Gitea we know: a label without a name is refused after the access check.
    return "unknown", GiteaError(f"Gitea created a label without a name in {owner}/{name}; delete it")


GUARD_FIX = "check GITEA_MCP_REDIS_URL (host, port, password) and that the Redis server is up"


def check_guard(settings: Settings) -> Line:
    """The write guard replicas share (GITEA_MCP_REDIS_URL): one PING, nothing written."""
    # why: redis, an optional dependency (86 ms), and the MCP SDK: only where GITEA_MCP_REDIS_URL is set
    from gitea_mcp.server.app import shared_flights
    from gitea_mcp.toolkit import shared_flight

    if settings.read_only:
        return Line("skip", "shared write guard not asked: GITEA_READ_ONLY offers no write tools")
    if not _writes_offered(settings):
        return Line("skip", "shared write guard not asked: the toolsets served (GITEA_TOOLSETS) hold no write tool")
    try:
        guard = shared_flights(settings)
    except ConfigError as exc:
        return Line("fail", str(exc))
    assert guard is not None  # the URL is set
    try:
        guard.ping()
    except shared_flight.Unreachable as exc:
        return Line(
            "fail",
            f"shared write guard at {guard.where} cannot be reached ({exc.cause}): every write would be refused",
            GUARD_FIX,
        )
    return Line("ok", f"shared write guard at {guard.where} answers: a write in flight on one replica runs once on all")


METRICS_FIX = "pip install 'gitea-issues-mcp[metrics]', or unset GITEA_MCP_METRICS_PORT"


def check_metrics(settings: Settings) -> Line:
    """Whether metrics are on, where a scraper finds them, and whether their library is installed."""
    if settings.metrics_port is None:
        return Line("skip", "metrics off (GITEA_MCP_METRICS_PORT unset)")
    try:
        from importlib.metadata import PackageNotFoundError, version  # why: only with metrics on

        library = version("prometheus-client")
    except PackageNotFoundError:
        return Line(
            "fail", "GITEA_MCP_METRICS_PORT is set but the prometheus-client package is not installed", METRICS_FIX
        )
    host = f"[{settings.metrics_address}]" if ":" in settings.metrics_address else settings.metrics_address
    port = settings.metrics_port or "any free port"
    said = f"metrics in the Prometheus format at http://{host}:{port}/metrics (prometheus-client {library})"
    if settings.transport == "http" and settings.workers > 1:
        said += f", the sum of the {settings.workers} workers"
    if settings.metrics_detailed:
        said += "; users and repositories are label values (GITEA_MCP_METRICS_DETAILED)"
    return Line("ok", said)


def check_audit(settings: Settings) -> Line:
    """Whether the audit log is on, and where its lines go (a file: whether it can be appended to)."""
    where = settings.audit_log
    if where is None:
        return Line("skip", "audit log off (GITEA_MCP_AUDIT_LOG unset or off)")
    if where == "stderr":
        return Line("ok", "audit log: one JSON line per tool call, to stderr")
    target = where if os.path.exists(where) else (os.path.dirname(where) or ".")
    if not os.access(target, os.W_OK):
        return Line(
            "fail",
            f"audit log {shown(where, 200)} cannot be appended to by this user",
            "give GITEA_MCP_AUDIT_LOG a file this user may write in an existing directory, or stderr, or off",
        )
    return Line("ok", f"audit log: one JSON line per tool call, appended to {shown(where, 200)}")


def check_traces(settings: Settings) -> Line | None:
    """Whether traces are on (GITEA_MCP_TRACES) and where they go, as serve would set them up; nothing is sent.
    Off is the default and goes unsaid, unless OpenTelemetry's variables show traces were wanted."""
    from gitea_mcp.server import tracing  # why: only check says it; serve sets traces up itself

    if not settings.traces:
        wanted = tracing.wanted()
        if wanted is None:
            return None
        return Line("warn", f"traces off (GITEA_MCP_TRACES), though {wanted} is set: no spans are made",
                    "set GITEA_MCP_TRACES=true to export them, or unset it")  # fmt: skip
    try:
        said = tracing.describe(settings)
    except ConfigError as exc:
        return Line("fail", str(exc).removesuffix("."), "correct the OTEL_* variable named, or unset it")
    if tracing.sdk_missing():
        return Line("fail", f"{said}, but OpenTelemetry's SDK is not installed: serve would not start", tracing.EXTRA)
    return Line("ok", said)


def check_page_size(client: GiteaClient) -> Line:
    try:
        data = client.get(["settings", "api"]).data
    except GiteaError as exc:
        return Line("warn", f"could not read max_response_items: {exc}")
    items = data.get("max_response_items") if isinstance(data, dict) else None
    if not isinstance(items, int):
        return Line("warn", "Gitea's /settings/api has no max_response_items")
    # Gitea's page-size cap: a page asked larger comes back cut to it, without saying so (the tools notice).
    if items < MAX_LIMIT:
        return Line(
            "warn",
            f"max_response_items={items}: Gitea serves at most {items} issues a page, fewer than the {MAX_LIMIT} a "
            f"tool may ask for: a larger limit comes back as pages of {items} (the tools say so)",
            f"raise [api] MAX_RESPONSE_ITEMS to {MAX_LIMIT} in Gitea's app.ini, or ask agents for limit<={items}",
        )
    return Line(
        "ok",
        f"max_response_items={items}: Gitea serves up to {items} issues a page, the most a tool asks for (limit is "
        f"capped at {MAX_LIMIT}), so every page arrives whole; further rows come with page=2, page=3 and so on",
    )
