"""Other Gitea/Forgejo MCP servers' settings, so that moving from one of them loses none silently (issue 39).

Those with an equivalent here are read as aliases (each Setting's `aliases` and `alias_files` in cli/main.py);
those without are named here with the reason, and either reported at start (nothing is lost but a nicety) or
refused (ignoring them would offer more than the operator asked for: more tools, more users). A GITEA_*,
GITEA_MCP_* or FORGEJO_* variable that is none of these is reported with the nearest name this server knows.
docs/migrating.md is the table for people; tests/cli/test_migrating.py holds it to these declarations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

GO = "the official Go server (gitea-mcp)"
FORGEJO_MCP = "forgejo-mcp"
FORGEJO_TS = "forgejo-mcp-server"
PYPI = "the PyPI gitea-mcp"

# Whose name each alias is (said when it collides with ours).
ORIGIN: dict[str, str] = {
    "GITEA_HOST": GO,
    "GITEA_ACCESS_TOKEN": GO,
    "GITEA_ACCESS_TOKEN_FILE": GO,
    "GITEA_READONLY": GO,
    "GITEA_DEBUG": GO,
    "MCP_MODE": GO,
    "GITEA_OAUTH_PUBLIC_URL": GO,
    "GITEA_OAUTH_CLIENT_ID": GO,
    "GITEA_OAUTH_CLIENT_SECRET_FILE": GO,
    "FORGEJO_URL": FORGEJO_MCP,
    "FORGEJO_ACCESS_TOKEN": FORGEJO_MCP,
    "FORGEJO_DEBUG": FORGEJO_MCP,
    "FORGEJO_BASE_URL": FORGEJO_TS,
    "FORGEJO_TOKEN": FORGEJO_TS,
}
# Switches of theirs that mean a log level of ours (`GITEA_DEBUG=true` is GITEA_LOG_LEVEL=DEBUG).
DEBUG_SWITCHES = ("GITEA_DEBUG", "FORGEJO_DEBUG")


@dataclass(frozen=True)
class Unmatched:
    """One of their settings with no equivalent here: whose it is, why there is none, and whether ignoring it would
    offer more than it allowed (then it stops the start)."""

    origin: str
    why: str
    narrows: bool = False


NO_EQUIVALENT: dict[str, Unmatched] = {
    "GITEA_TOOLS": Unmatched(
        GO,
        "it offers only the tools named, while here GITEA_TOOLSETS chooses groups of tools (issues, labels, "
        "milestones, people) and GITEA_READ_ONLY drops the writes",
        narrows=True,
    ),
    "GITEA_SCOPES": Unmatched(
        GO,
        "it offers only the tools of the scopes named, while here GITEA_TOOLSETS chooses groups of tools and "
        "GITEA_READ_ONLY drops the writes",
        narrows=True,
    ),
    "GITEA_OAUTH_ALLOWED_USER": Unmatched(
        GO,
        "it lets one Gitea user sign in, while here every user of the forge may sign in, and "
        "GITEA_ALLOWED_OWNERS and the user's own rights in Gitea bound what they reach",
        narrows=True,
    ),
    "GITEA_OAUTH_ALLOWED_REDIRECT_URIS": Unmatched(
        GO,
        "it lists the client redirect URIs allowed, while here clients register their own (RFC 7591), "
        "dangerous schemes refused, and the user approves each client on the consent page",
        narrows=True,
    ),
    "GITEA_OAUTH_SIGNING_KEY_FILE": Unmatched(
        GO,
        "its key is raw or standard base64, while here GITEA_MCP_OAUTH_KEY holds URL-safe base64 keys, the "
        "same on every replica: make one with python3 -c 'import base64, os; "
        "print(base64.urlsafe_b64encode(os.urandom(32)).decode())'",
    ),
    "GITEA_MAX_INLINE_ATTACHMENT_BYTES": Unmatched(GO, "this server inlines no attachments"),
    "GITEA_MAX_RETRIES": Unmatched(PYPI, "reads are not retried here; GITEA_TIMEOUT bounds each request"),
    "GITEA_RETRY_BASE_DELAY": Unmatched(PYPI, "reads are not retried here; GITEA_TIMEOUT bounds each request"),
    "GITEA_MCP_PATH": Unmatched(PYPI, "the MCP endpoint is always /mcp (the sign-in routes sit beside it)"),
    "FORGEJO_USER_AGENT": Unmatched(FORGEJO_MCP, "the User-Agent is gitea-issues-mcp/VERSION"),
}

# Their flags, said when one is typed here (argparse would only call it unknown).
FLAG_HINTS: dict[str, str] = {
    "-t": "write --transport stdio or --transport http",
    "-H": "write --url URL (GITEA_URL): --host here is the address HTTP mode listens on",
    "-T": "the token never goes on the command line here (every user's ps shows it): set GITEA_TOKEN, or pass "
    "--token-file FILE",
    "-r": "write --read-only",
    "-k": "write --insecure",
    "-d": "write --log-level DEBUG",
    "--debug": "write --log-level DEBUG",
    "-p": "write --port N",
    "-b": "write --host ADDRESS (the address HTTP mode listens on)",
    "--bind": "write --host ADDRESS (the address HTTP mode listens on)",
    "--sse-port": "write --port N with --transport http (streamable HTTP at /mcp; SSE is not served)",
    "--http-port": "write --port N with --transport http",
    "-O": "no equivalent: choose groups of tools with --toolsets, and --read-only",
    "--tools": "no equivalent: choose groups of tools with --toolsets, and --read-only",
    "-S": "no equivalent: choose groups of tools with --toolsets, and --read-only",
    "--scope": "no equivalent: choose groups of tools with --toolsets, and --read-only",
    "--path": "no equivalent: the MCP endpoint is always /mcp",
    "--oauth-public-url": "write --public-url URL",
    "--oauth-signing-key-file": "write --oauth-key-file FILE (URL-safe base64 keys of 32 bytes)",
    "--healthcheck": "HTTP mode answers GET /healthz; `check` tests the connection to Gitea",
    "-v": "write --version",
}

# Variables of Gitea and Forgejo themselves, their runners and CI, and this project's test suite, which share the
# prefixes and are no settings of any MCP server: never reported.
NOT_OURS_PREFIXES = (
    "GITEA_ACTIONS",
    "GITEA_RUNNER",
    "FORGEJO_ACTIONS",
    "FORGEJO_RUNNER",
    "GITEA_LIVE_",
    "FORGEJO_LIVE_",
)
NOT_OURS = frozenset(
    {
        "GITEA_WORK_DIR",
        "GITEA_CUSTOM",
        "GITEA_APP_INI",
        "GITEA_TEMP",
        "FORGEJO_WORK_DIR",
        "FORGEJO_CUSTOM",
        "FORGEJO_APP_INI",
        "FORGEJO_TEMP",
    }
)
PREFIXES = ("GITEA_", "FORGEJO_")


def _not_ours(name: str) -> bool:
    # GITEA__section__KEY is Gitea's own app.ini override (Forgejo's too).
    return "__" in name or name in NOT_OURS or name.startswith(NOT_OURS_PREFIXES)


def notes(environ: Mapping[str, str], known: Iterable[str]) -> tuple[list[str], list[str]]:
    """What the environment holds that this server does not read: (sentences to report, sentences that stop the
    start). `known`: every variable some setting reads."""
    knowing = set(known) | set(DEBUG_SWITCHES)
    reports: list[str] = []
    refusals: list[str] = []
    for name in sorted(environ):
        if not name.startswith(PREFIXES) or name in knowing or _not_ours(name):
            continue
        unmatched = NO_EQUIVALENT.get(name)
        if unmatched is None:
            reports.append(_unknown(name, knowing))
        elif not environ[name].strip():
            continue  # set to nothing: it narrows nothing either
        elif unmatched.narrows:
            refusals.append(
                f"{name} is a setting of {unmatched.origin} with no equivalent here: {unmatched.why}; ignoring it "
                f"would offer more than it allowed, so say what you mean with those settings and remove {name}"
            )
        else:
            reports.append(
                f"{name}, a setting of {unmatched.origin}, has no equivalent here and is ignored: {unmatched.why}"
            )
    return reports, refusals


def _unknown(name: str, known: Iterable[str]) -> str:
    from difflib import get_close_matches  # only when such a variable is set: not at every start-up

    ours = sorted(name for name in known if name.startswith(PREFIXES))
    close = get_close_matches(name, ours, n=1, cutoff=0.6)
    guess = f"; did you mean {close[0]}?" if close else "; gitea-issues-mcp --help lists the variables it reads"
    return f"{name} is set but is no setting of this server, and is ignored{guess}"
