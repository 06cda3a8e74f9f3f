"""Settings: where Gitea is, which token, which owners — read once from flags and environment."""

from __future__ import annotations

import binascii
import hmac
import ipaddress
import os
import re
from base64 import urlsafe_b64decode
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationInfo, field_validator, model_validator

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.domain.policy import USER_NAME_RULE, is_user_name
from gitea_mcp.domain.toolsets import TOOLSETS, Toolset
from gitea_mcp.redaction import TOKEN_SHAPED, redact, redis_display, shown

# Tool calls one server runs at once, for all callers together (gitea_mcp.server.admission; the Gitea client keeps
# a connection for each, gitea.client.CALLER_THREADS, which tests/server/test_admission.py holds equal).
TOOL_CALLS = 40


class ConfigError(ToolFailure):
    """A setting is missing or wrong; the message says which and how to set it."""


class CannotListen(ConfigError):
    """HTTP mode cannot listen where the settings say (the port is in use, say); the message names it and the fix."""


class Settings(BaseModel):
    """Everything the server needs, validated. The token is a SecretStr so no repr can leak it."""

    model_config = ConfigDict(frozen=True)

    url: str
    token: SecretStr | None = None
    allowed_owners: frozenset[str]
    read_only: bool = False
    # The toolsets served (GITEA_TOOLSETS), in their declared order; read-only drops the writes within them.
    toolsets: tuple[Toolset, ...] = TOOLSETS
    timeout: float = 30.0
    ca_bundle: str | None = None
    insecure: bool = False
    # Streamable HTTP transport (multi-user): where to listen, which Host headers to accept, and the secret
    # that lets a request use the server-wide token instead of bringing its own.
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_hosts: tuple[str, ...] = ()
    http_secret: SecretStr | None = None
    # Replicas: the Redis (or Valkey) that holds the write guard they share (toolkit/shared_flight.py). A secret: its
    # URL may carry a password.
    redis_url: SecretStr | None = None
    # What one HTTP server takes on at once (docs/operators.md, "Limits"): connections open (None: as many as the
    # file-descriptor limit leaves room for, at most DEFAULT_CONNECTIONS), MCP requests being handled, the bytes
    # of one request's body, and the seconds a client has to send a request's head and then its body.
    max_connections: int | None = None
    max_requests: int = 32
    max_body: int = 1_048_576
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    # Over HTTP: the most tool calls one token may have running at once, so one caller cannot take all of the
    # server's TOOL_CALLS (gitea_mcp.server.admission); stdio has one caller, who may use them all.
    calls_per_token: int = 20
    # The routes a client reaches before it has a token (sign-in and discovery): their own pool of requests at
    # once, and a share of it per client address, so slow clients there never take /mcp's slots (issue 35).
    signin_requests: int = 16
    signin_per_address: int = 4
    # Gitea look-ups of bearer tokens not seen in the last minute, per client address and minute (issue 35).
    lookups_per_address: int = 60
    # Proxies whose X-Forwarded-For names the client (addresses or networks; "*" any): the address the per-address
    # limits count. uvicorn's own default, loopback, made a setting.
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    # Tool calls a minute per forge user (None: 60 over HTTP, 600 on stdio; 0: no limit), and requests a minute
    # toward the forge for the whole deployment (0: no budget), in Redis when GITEA_MCP_REDIS_URL is set
    # (gitea_mcp.server.quota, gitea_mcp.gitea.rates; docs/operators.md, "Per-user limits and the forge budget").
    calls_per_minute: int | None = None
    forge_requests_per_minute: int = 600
    # HTTP worker processes sharing one listening socket (gitea_mcp.server.workers): 1 is one process, as before.
    workers: int = 1
    # Sign-in with the forge (issue 24; docs/operators.md, "Sign-in"): on when public_url and oauth_client_id are
    # set. public_url is the origin clients reach (no trailing slash); oauth_key holds the keys every replica
    # shares, the first signing, all of them verifying, so a key can be rotated without signing everyone out.
    public_url: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: SecretStr | None = None
    oauth_key: SecretStr | None = None
    # Whether a client may name itself by the URL of its client ID metadata document (read from the internet at
    # /authorize); off, clients register at /register or use a client ID the operator made (offline, or a proxy).
    client_metadata_documents: bool = True
    # Lockdown for public forges (docs/operators.md, "Lockdown for public forges"): bodies and comments by users
    # without write access to the repository are withheld from every answer; the operator may name trusted logins
    # (lower-case), which count as writers wherever they write.
    lockdown: bool = False
    lockdown_trusted: frozenset[str] = frozenset()
    # Metrics (docs/operators.md, "Metrics, dashboard and audit log"): the Prometheus port, None for off (the
    # default), 0 for any free one; its address, loopback unless the operator names one; and whether users and
    # repositories may be label values (each one a series of its own).
    metrics_port: int | None = None
    metrics_address: str = "127.0.0.1"
    metrics_detailed: bool = False
    # The audit log: None (off, the default), "stderr", or a file's path (server/audit.py).
    audit_log: str | None = None
    # OpenTelemetry traces (issue 38; server/tracing.py): off unless switched on; where they go is OpenTelemetry's
    # own configuration (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, ...).
    traces: bool = False

    @field_validator("url")
    @classmethod
    def _normalise_url(cls, value: str) -> str:
        if value.strip():  # unset is said by the reading of the settings, in its own words
            _refuse_placeholder("GITEA_URL", value)
        url = value.strip().rstrip("/")
        # Users paste the API root as often as the site root; both mean the same server.
        for suffix in ("/api/v1", "/api"):
            if url.endswith(suffix):
                url = url[: -len(suffix)]
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"GITEA_URL must start with http:// or https:// (got {shown(value)})")
        parts = urlsplit(url)
        if parts.username is not None or parts.password is not None:
            # Never echoed: the part before @ is a credential. It would be sent as Basic auth instead of the token.
            raise ValueError(
                "GITEA_URL contains a user name or password (user:pass@host); remove it and put an access token "
                "in GITEA_TOKEN"
            )
        return url

    @field_validator("allowed_owners")
    @classmethod
    def _owner_names(cls, value: frozenset[str]) -> frozenset[str]:
        return frozenset(_check_owner_entry(owner) for owner in sorted(value))

    @field_validator("token")
    @classmethod
    def _clean_token(cls, value: SecretStr | None) -> SecretStr | None:
        """Secrets mounted from files end with a newline; a token with inner whitespace is no token."""
        if value is None:
            return None
        text = value.get_secret_value().strip()
        if not text:
            return None
        _refuse_placeholder("GITEA_TOKEN", text)
        if any(char.isspace() for char in text) or not text.isprintable():
            raise ValueError(
                "GITEA_TOKEN contains spaces or control characters inside it; paste the token alone (the 40 "
                "characters Gitea showed)"
            )
        return SecretStr(text)

    @field_validator("http_secret")
    @classmethod
    def _http_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            _refuse_placeholder("GITEA_MCP_HTTP_SECRET", value.get_secret_value())
        return value

    @field_validator("ca_bundle")
    @classmethod
    def _readable_ca(cls, value: str | None) -> str | None:
        if value is not None and not os.path.isfile(value):
            raise ValueError(f"GITEA_CA_BUNDLE={shown(value, 200)} is not a readable file; give the path of a PEM file")
        return value

    @field_validator("lockdown_trusted")
    @classmethod
    def _trusted_logins(cls, value: frozenset[str]) -> frozenset[str]:
        return frozenset(check_trusted_login(login) for login in sorted(value))

    @field_validator("toolsets")
    @classmethod
    def _toolsets_in_order(cls, value: tuple[Toolset, ...]) -> tuple[Toolset, ...]:
        if not value:
            raise ValueError(f"GITEA_TOOLSETS names no toolset; {TOOLSETS_RULE}")
        return tuple(toolset for toolset in TOOLSETS if toolset in value)

    @field_validator("timeout")
    @classmethod
    def _positive_timeout(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("GITEA_TIMEOUT must be a positive number of seconds")
        return value

    @field_validator("header_timeout", "body_timeout")
    @classmethod
    def _client_seconds(cls, value: float, info: ValidationInfo) -> float:
        if not 0 < value <= 3600:
            name = "GITEA_MCP_HEADER_TIMEOUT" if info.field_name == "header_timeout" else "GITEA_MCP_BODY_TIMEOUT"
            raise ValueError(f"{name} must be a number of seconds above 0 and at most 3600")
        return value

    @field_validator("calls_per_token")
    @classmethod
    def _a_share_of_the_calls(cls, value: int) -> int:
        if not 1 <= value <= TOOL_CALLS:
            raise ValueError(f"GITEA_MCP_CALLS_PER_TOKEN must be a whole number from 1 to {TOOL_CALLS}")
        return value

    @field_validator("calls_per_minute", "forge_requests_per_minute")
    @classmethod
    def _a_minute(cls, value: int | None, info: ValidationInfo) -> int | None:
        low, high = COUNT_BOUNDS[info.field_name or ""]
        if value is not None and not low <= value <= high:
            name = "GITEA_MCP_" + (info.field_name or "").upper()
            raise ValueError(f"{name} must be a whole number from {low} to {high:,} (0: no limit)")
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if value == ("none",):  # no proxy in front: X-Forwarded-For is never believed
            return ()
        for entry in value:
            if entry == "*":
                continue
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"GITEA_MCP_TRUSTED_PROXIES entry {shown(entry, 80)} is not an IP address or network; list the "
                    "addresses of the proxies in front (e.g. 10.0.0.0/8,127.0.0.1), '*' for any, or none"
                ) from None
        return value

    @field_validator("transport")
    @classmethod
    def _known_transport(cls, value: str) -> str:
        if value not in ("stdio", "http"):
            raise ValueError(f"GITEA_MCP_TRANSPORT must be stdio or http (got {shown(value)})")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        url = value.get_secret_value().strip()
        check_redis_url(url)
        return SecretStr(url)

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is not None and value.strip():
            _refuse_placeholder("GITEA_MCP_PUBLIC_URL", value)
        return check_public_url(value.strip()) if value is not None and value.strip() else None

    @field_validator("oauth_client_id")
    @classmethod
    def _client_id(cls, value: str | None) -> str | None:
        text = (value or "").strip()
        if text:
            _refuse_placeholder("GITEA_MCP_OAUTH_CLIENT_ID", text)
        if TOKEN_SHAPED.fullmatch(text):
            raise ValueError(
                "GITEA_MCP_OAUTH_CLIENT_ID looks like an access token (a long run of hex digits); paste the Client ID "
                "of the OAuth2 application (a UUID) here, and keep tokens out of it"
            )
        if text.lower().startswith(SECRET_PREFIX):
            # Sent to every user's browser in the sign-in URL: a secret pasted here would be shown to all of them.
            raise ValueError(
                f"GITEA_MCP_OAUTH_CLIENT_ID looks like a client secret (it begins {SECRET_PREFIX}, as Gitea's and "
                "Forgejo's do); paste the Client ID of the OAuth2 application (a UUID) here, and the secret in "
                "GITEA_MCP_OAUTH_CLIENT_SECRET"
            )
        if text and (any(char.isspace() for char in text) or not text.isprintable() or len(text) > 255):
            raise ValueError(
                "GITEA_MCP_OAUTH_CLIENT_ID is not a client ID (it holds spaces or control characters, or is over 255 "
                "characters); paste the Client ID Gitea showed for the OAuth2 application"
            )
        return text or None

    @field_validator("oauth_client_secret")
    @classmethod
    def _client_secret(cls, value: SecretStr | None) -> SecretStr | None:
        text = value.get_secret_value().strip() if value is not None else ""
        if text:
            _refuse_placeholder("GITEA_MCP_OAUTH_CLIENT_SECRET", text)
        if any(char.isspace() for char in text) or not text.isprintable():
            raise ValueError(
                "GITEA_MCP_OAUTH_CLIENT_SECRET contains spaces or control characters inside it; paste the Client "
                "Secret Gitea showed, alone"
            )
        return SecretStr(text) if text else None

    @field_validator("oauth_key")
    @classmethod
    def _oauth_key(cls, value: SecretStr | None) -> SecretStr | None:
        text = value.get_secret_value().strip() if value is not None else ""
        if not text:
            return None
        _refuse_placeholder("GITEA_MCP_OAUTH_KEY", text, examples=False)
        signin_keys(text)  # refused here, at start, not at the first sign-in
        return SecretStr(text)

    @field_validator("metrics_address")
    @classmethod
    def _metrics_address(cls, value: str) -> str:
        text = value.strip()
        if not text or any(char.isspace() for char in text) or not text.isprintable() or len(text) > 253:
            raise ValueError(
                f"GITEA_MCP_METRICS_ADDRESS={shown(value)} is not an address; name one of this machine's addresses "
                "(127.0.0.1, the pod's, or 0.0.0.0 for all of them)"
            )
        return text

    @field_validator("audit_log")
    @classmethod
    def _audit_log(cls, value: str | None) -> str | None:
        text = (value or "").strip()
        if text.lower() in ("", "off"):
            return None
        if text.lower() == "stderr":
            return "stderr"
        if not text.isprintable():
            raise ValueError("GITEA_MCP_AUDIT_LOG is not a file path; give off, stderr, or a file's path")
        return text

    @model_validator(mode="after")
    def _metrics_port_apart(self) -> Settings:
        if self.metrics_port and self.transport == "http" and self.metrics_port == self.port:
            raise ValueError(
                f"GITEA_MCP_METRICS_PORT {self.metrics_port} is GITEA_MCP_PORT too: metrics are served on a port of "
                "their own; choose another"
            )
        return self

    @model_validator(mode="after")
    def _secret_needs_token(self) -> Settings:
        if self.http_secret is not None and self.token is None:
            raise ValueError(
                "GITEA_MCP_HTTP_SECRET is set but GITEA_TOKEN is not: the secret unlocks the server's token"
            )
        return self

    @model_validator(mode="after")
    def _signin_complete(self) -> Settings:
        check_signin(self)
        return self

    @model_validator(mode="after")
    def _workers_safe(self) -> Settings:
        check_workers(self)
        return self

    @property
    def signin(self) -> bool:
        """Clients sign in at Gitea through this server (HTTP mode, a public URL and a Gitea app)."""
        return self.public_url is not None and self.oauth_client_id is not None

    def signin_keys(self) -> list[bytes]:
        """The shared keys, the one that signs first; empty when sign-in is off."""
        return signin_keys(self.oauth_key.get_secret_value()) if self.oauth_key else []

    @property
    def allow_all_owners(self) -> bool:
        return "*" in self.allowed_owners

    def token_value(self) -> str | None:
        return self.token.get_secret_value() if self.token else None


# Unexpanded variables as MCP clients leave them: ${VAR} (and ${VAR:-x}, VS Code's ${env:VAR} and ${input:id}),
# $VAR, %VAR% (Windows), {env:VAR} (OpenCode), {{ var }} (templates). Gitea's tokens, client IDs and secrets, and
# our URL-safe base64 keys, hold none of $ % { < — so no real value matches.
_VARIABLE = re.compile(
    r"\$\{(?:env:|input:)?(?P<a>[A-Za-z_][A-Za-z0-9_.-]*)[^}]*\}"
    r"|^\$(?P<b>[A-Za-z_][A-Za-z0-9_]*)"
    r"|%(?P<c>[A-Za-z_][A-Za-z0-9_]*)%"
    r"|\{env:(?P<d>[A-Za-z_][A-Za-z0-9_]*)\}"
    r"|\{\{\s*(?P<e>[^}]*?)\s*\}\}"
)
# An example's placeholder left in: <token>, <your personal access token>, your-token-here, YOUR_TOKEN, changeme.
_EXAMPLE = re.compile(
    r"(?i:(?:your|my)[-_ ]\S*|\S*[-_ ]here|changeme|change[-_]me|placeholder|x{3,}|todo|null|undefined)"
)
_ANGLED = re.compile(r"<[^<>]*>")


def placeholder_problem(name: str, value: str, examples: bool = True) -> str | None:
    """The sentence that names the client-side cause when `value` is no value but a placeholder: a variable the MCP
    client did not expand, an example's placeholder, or nothing at all; None for a value. `name`: the setting as it
    was given (GITEA_TOKEN, or "the token in the Authorization header"). `examples` False: only unexpanded
    variables and blanks (a random key may spell a word)."""
    text = value.strip()
    if not text:
        return (
            f"{name} is set but empty: the MCP client most likely put in a variable that is not set in the "
            "environment it starts from; set it there (and restart the client), or write the value itself in the "
            f"client's configuration, or remove {name}"
        )
    found = _VARIABLE.search(text)
    if found is not None:
        variable = next(group for group in found.groups() if group is not None) or "the variable"
        return (
            f"{name} is {shown(text, 80)}, a variable the MCP client did not expand: a client passes the text as "
            f"written when {variable} is not set in the environment it starts from; set {variable} there (and restart "
            "the client), or write the value itself in the client's configuration"
        )
    if examples and (_EXAMPLE.fullmatch(text) or _ANGLED.search(text)):
        return f"{name} is {shown(text, 80)}, an example's placeholder, not a value: write the real one in its place"
    return None


def _refuse_placeholder(name: str, value: str | None, examples: bool = True) -> None:
    problem = placeholder_problem(name, value, examples) if value is not None else None
    if problem is not None:
        raise ValueError(problem)


def parse_owner_list(raw: str | None) -> frozenset[str]:
    """`acme, Widgets-Inc` → {"acme", "widgets-inc"}: Gitea compares owner names case-insensitively."""
    owners = frozenset(part.strip().lower() for part in (raw or "").split(",") if part.strip())
    if not owners:
        raise ConfigError(
            "GITEA_ALLOWED_OWNERS is not set: name the owners whose repositories agents may use, "
            "comma-separated (e.g. GITEA_ALLOWED_OWNERS=acme,alice), or '*' to allow every owner."
        )
    return owners


def _check_owner_entry(owner: str) -> str:
    """An entry that can never match (a Cyrillic а, a trailing dot, a zero-width space) would let the server start
    and then refuse the very owner the operator meant; a token pasted here would be printed by `check`."""
    if owner == "*":
        return owner
    if TOKEN_SHAPED.fullmatch(owner):
        raise ValueError(
            "GITEA_ALLOWED_OWNERS holds an entry that looks like an access token (a long run of hex digits); put the "
            "token in GITEA_TOKEN and name owners here"
        )
    if not is_user_name(owner):
        # ascii(): invisible and look-alike characters show as escapes ('\u200b', '\u0430'), so the entry can be found.
        raise ValueError(
            f"GITEA_ALLOWED_OWNERS entry {redact(owner)[:100]!a} is not a Gitea owner name: use {USER_NAME_RULE}, "
            "or '*' for every owner"
        )
    return owner


# Whole-number HTTP limits: (least, most) each may be set to.
COUNT_BOUNDS: dict[str, tuple[int, int]] = {
    "calls_per_token": (1, TOOL_CALLS),
    "signin_requests": (1, 10_000),
    "signin_per_address": (1, 10_000),
    "lookups_per_address": (1, 100_000),
    "max_connections": (1, 100_000),
    "max_requests": (1, 10_000),
    "max_body": (1_024, 64 * 1_048_576),
    "workers": (1, 64),
    "calls_per_minute": (0, 1_000_000),
    "forge_requests_per_minute": (0, 1_000_000),
}


def parse_count(raw: str, name: str, bounds: tuple[int, int]) -> int:
    """A whole number within `bounds`, or one sentence naming the setting (`name`: its flag or variable)."""
    low, high = bounds
    text = raw.strip().replace("_", "")
    if not text.isdigit() or not low <= int(text) <= high:
        given = f"{name} {shown(raw)}" if name.startswith("-") else f"{name}={shown(raw)}"
        raise ConfigError(f"{given} is not a whole number from {low:,} to {high:,}")
    return int(text)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def parse_trusted(raw: str, name: str) -> frozenset[str]:
    """`alice, Bob` → {"alice", "bob"}: Gitea compares logins case-insensitively; each is checked by the Settings."""
    return frozenset(part.strip().lower() for part in raw.split(",") if part.strip())


def check_trusted_login(login: str) -> str:
    """A login that can never match would trust no one the operator meant; a token pasted here would be printed."""
    if TOKEN_SHAPED.fullmatch(login):
        raise ValueError(
            "GITEA_LOCKDOWN_TRUSTED holds an entry that looks like an access token (a long run of hex digits); put the "
            "token in GITEA_TOKEN and name trusted logins here"
        )
    if not is_user_name(login):
        raise ValueError(
            f"GITEA_LOCKDOWN_TRUSTED entry {login[:40]!a} is not a Gitea login (letters, digits, '-', '_', "
            "'.'); name trusted users by login, comma-separated"
        )
    return login


def parse_bool(raw: str | None, name: str) -> bool:
    """A yes/no setting, failing closed: `GITEA_READ_ONLY=treu` is an error, not a quiet "no"."""
    text = (raw or "").strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{name}={shown(raw or '')} is not true or false; use true or false (also 1/0, yes/no, on/off)")


TOOLSETS_RULE = f"name one or more of {', '.join(TOOLSETS)}, comma-separated, or all (the default)"
# Words an operator may reach for that no difflib would lead to the toolset meant.
_TOOLSET_WORDS: dict[str, Toolset] = {"assignees": "people", "users": "people", "members": "people"}


def parse_toolsets(raw: str, name: str) -> tuple[Toolset, ...]:
    """`issues, Labels` → ("issues", "labels"); `all` → every toolset. An unknown name stops the server, naming the
    toolset it most likely meant: a subset quietly served without it would hide tools the operator asked for."""
    wanted: list[Toolset] = []
    for entry in (part.strip() for part in raw.split(",")):
        word = entry.lower()
        if not word:
            continue
        if word == "all":
            return TOOLSETS
        known = next((toolset for toolset in TOOLSETS if toolset == word), None)
        if known is None:
            meant = _nearest_toolset(word)
            guess = f"; did you mean {meant}?" if meant else ""
            raise ConfigError(f"{name} entry {shown(entry, 40)} is not a toolset{guess} ({TOOLSETS_RULE})")
        wanted.append(known)
    return tuple(toolset for toolset in TOOLSETS if toolset in wanted) or TOOLSETS


def _nearest_toolset(word: str) -> Toolset | None:
    from difflib import get_close_matches  # only after a mistake: not at start-up

    close = get_close_matches(word, TOOLSETS, n=1, cutoff=0.6)
    return _TOOLSET_WORDS.get(word) or next((toolset for toolset in TOOLSETS if close and toolset == close[0]), None)


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def parse_log_level(raw: str | None) -> str:
    name = (raw or "WARNING").strip().upper()
    if name not in LOG_LEVELS:
        raise ConfigError(f"GITEA_LOG_LEVEL={shown(raw or '')} is not a log level; use one of {', '.join(LOG_LEVELS)}")
    return name


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def check_redis_url(url: str) -> None:
    """A Redis URL redis-py can use, or a ValueError that never quotes its credentials."""
    if not url.startswith(REDIS_SCHEMES):
        got = f" (got {shown(redis_display(url))})" if "://" in url else ""
        raise ValueError(
            f"GITEA_MCP_REDIS_URL must start with redis://, rediss:// or unix://{got}, e.g. redis://redis.example:6379/0"
        )
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 -- a port that is no number raises here, not inside the client at the first write
    except ValueError:
        raise ValueError(
            f"GITEA_MCP_REDIS_URL {shown(redis_display(url))} has a port that is not a number; "
            "write it as redis://host:6379/0"
        ) from None
    if (parts.scheme == "unix" and not parts.path) or (parts.scheme != "unix" and not parts.hostname):
        raise ValueError(
            f"GITEA_MCP_REDIS_URL {shown(redis_display(url))} names no server; write it as redis://host:6379/0 "
            "(or unix:///path/to/redis.sock)"
        )


SECRET_PREFIX = "gto_"  # what a Gitea or Forgejo OAuth2 client secret begins with (models/auth/oauth2.go)
SIGNIN_SETTINGS = {
    "public_url": "GITEA_MCP_PUBLIC_URL",
    "oauth_client_id": "GITEA_MCP_OAUTH_CLIENT_ID",
    "oauth_client_secret": "GITEA_MCP_OAUTH_CLIENT_SECRET",
    "oauth_key": "GITEA_MCP_OAUTH_KEY",
}
_PUBLIC_URL_FORM = "https://mcp.example.com (or http://127.0.0.1:PORT for a trial)"
KEY_BYTES = 32
MAKE_KEY = "python3 -c 'import base64, os; print(base64.urlsafe_b64encode(os.urandom(32)).decode())'"


def check_public_url(url: str) -> str:
    """The origin clients reach, without its trailing slash; https, or plain http only on 127.0.0.1 (a trial: any
    other http origin would carry sign-in codes and tokens in the clear). Never echoed past its origin."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"GITEA_MCP_PUBLIC_URL must be an origin such as {_PUBLIC_URL_FORM} (got {shown(url)})")
    if parts.username is not None or parts.password is not None:
        raise ValueError("GITEA_MCP_PUBLIC_URL contains a user name or password (user:pass@host); remove it")
    try:
        parts.port  # noqa: B018 -- a port that is no number raises here
    except ValueError:
        raise ValueError(
            f"GITEA_MCP_PUBLIC_URL has a port that is not a number; write it as {_PUBLIC_URL_FORM}"
        ) from None
    if parts.path not in ("", "/") or parts.query or parts.fragment or url.endswith(("?", "#")):
        raise ValueError(
            "GITEA_MCP_PUBLIC_URL must be the origin alone, without a path, query or fragment (the server serves "
            f"/mcp and its sign-in pages at the root): write it as {_PUBLIC_URL_FORM}"
        )
    if parts.scheme == "http" and parts.hostname == "localhost":
        raise ValueError(
            f"GITEA_MCP_PUBLIC_URL {shown(url)} names localhost, which a browser or client may resolve to ::1 or to "
            "127.0.0.1 while the server listens on one of them, and Gitea matches the redirect URI as written; write "
            "the address itself: http://127.0.0.1:PORT"
        )
    if parts.scheme == "http" and parts.hostname != "127.0.0.1":
        raise ValueError(
            f"GITEA_MCP_PUBLIC_URL {shown(url)} is plain http on a host other than 127.0.0.1: sign-in codes and "
            "tokens would cross the network in the clear; use https (a TLS proxy in front), or http://127.0.0.1:PORT "
            "for a trial"
        )
    return f"{parts.scheme}://{parts.netloc}".lower()


_THIS_MACHINE = ("127.0.0.1", "::1", "localhost")


def public_url_unreachable(settings: Settings, port: int) -> tuple[str, str] | None:
    """Why clients that follow GITEA_MCP_PUBLIC_URL cannot reach this server listening on `port` (the bound port;
    0, not bound yet, is not judged), and the remedy; None when they may. Only a public URL naming this listener's
    host (loopback, or the listen address) is judged: any other host is a proxy's, which may serve https, or any
    port, in front of it. The server speaks plain HTTP, so plain http must name its port, and https cannot be on it."""
    if settings.public_url is None or port == 0:
        return None
    parts = urlsplit(settings.public_url)
    host = (parts.hostname or "").casefold()
    if host not in _THIS_MACHINE and host != settings.host.strip("[]").casefold():
        return None
    public_port = parts.port or (443 if parts.scheme == "https" else 80)
    named = f"[{host}]" if ":" in host else host
    if parts.scheme == "http" and public_port != port:
        return (
            f"GITEA_MCP_PUBLIC_URL {settings.public_url} names port {public_port}, but this server listens on port "
            f"{port}: clients, and Gitea's redirect after sign-in, would not reach it",
            f"set GITEA_MCP_PUBLIC_URL=http://{named}:{port}, or listen on port {public_port} (--port, GITEA_MCP_PORT)",
        )
    if parts.scheme == "https" and public_port == port:
        return (
            f"GITEA_MCP_PUBLIC_URL {settings.public_url} is https on the port this server listens on ({port}), but "
            "the server speaks plain HTTP there: clients would open TLS and get no answer",
            "name the TLS proxy in front of it (its own port or host) in GITEA_MCP_PUBLIC_URL, or for a trial "
            f"http://127.0.0.1:{port}",
        )
    return None


def signin_keys(raw: str) -> list[bytes]:
    """`GITEA_MCP_OAUTH_KEY`: one or more comma-separated URL-safe base64 keys of 32 bytes. A wrong entry is named by
    its position, never quoted (it is a secret)."""
    entries = [entry.strip() for entry in raw.split(",")]
    keys: list[bytes] = []
    for at, entry in enumerate(entries, start=1):
        try:
            key = urlsafe_b64decode(entry.encode("ascii")) if entry.isascii() else b""
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != KEY_BYTES:
            which = f"entry {at} of {len(entries)}" if len(entries) > 1 else "key"
            raise ValueError(
                f"GITEA_MCP_OAUTH_KEY {which} is not {KEY_BYTES} bytes in URL-safe base64 (44 characters); make one "
                f"with {MAKE_KEY}"
            )
        keys.append(key)
    return keys


def check_signin(settings: Settings) -> None:
    """Sign-in is all or nothing, and HTTP's alone: half a set-up would start a server that cannot sign anyone in."""
    given = [name for field, name in SIGNIN_SETTINGS.items() if getattr(settings, field) is not None]
    if not given:
        return
    if settings.transport != "http":
        raise ValueError(
            f"{given[0]} is set but the transport is stdio: sign-in is for the HTTP server; set "
            "GITEA_MCP_TRANSPORT=http (--transport http), or remove the sign-in settings"
        )
    for field in ("public_url", "oauth_client_id"):
        if getattr(settings, field) is None:
            raise ValueError(
                f"{given[0]} is set but {SIGNIN_SETTINGS[field]} is not: sign-in needs GITEA_MCP_PUBLIC_URL and "
                "GITEA_MCP_OAUTH_CLIENT_ID together; set both, or remove the sign-in settings"
            )
    if settings.oauth_key is None:
        raise ValueError(
            f"sign-in is on but GITEA_MCP_OAUTH_KEY is not set: give every replica the same key, made with {MAKE_KEY}"
        )
    secret = settings.oauth_client_secret
    if secret is not None and hmac.compare_digest(
        secret.get_secret_value().encode(), str(settings.oauth_client_id).encode()
    ):
        raise ValueError(
            "GITEA_MCP_OAUTH_CLIENT_ID is the same as GITEA_MCP_OAUTH_CLIENT_SECRET: the client ID is sent to every "
            "user's browser; paste the application's Client ID (a UUID) there"
        )


def check_workers(settings: Settings) -> None:
    """More than one worker only over HTTP, and with writes or sign-in only when Redis holds what must be shared:
    each process's own write guard and spent sign-in marks would let a repeated write, or a replayed code, through
    on another worker."""
    if not 1 <= settings.workers <= COUNT_BOUNDS["workers"][1]:
        raise ValueError(f"GITEA_MCP_WORKERS must be a whole number from 1 to {COUNT_BOUNDS['workers'][1]}")
    if settings.workers == 1:
        return
    if not hasattr(os, "fork"):
        raise ValueError(
            f"GITEA_MCP_WORKERS={settings.workers} needs os.fork, which this system lacks (Windows); set "
            "GITEA_MCP_WORKERS=1 and run replicas behind a load balancer instead"
        )
    if settings.transport != "http":
        raise ValueError(
            f"GITEA_MCP_WORKERS={settings.workers} needs the HTTP transport: stdio has one client and one process; "
            "set GITEA_MCP_TRANSPORT=http (--transport http), or GITEA_MCP_WORKERS=1"
        )
    if settings.redis_url is None and (not settings.read_only or settings.signin):
        needs = "sign-in" if settings.read_only else "write tools"
        raise ValueError(
            f"GITEA_MCP_WORKERS={settings.workers} with {needs} needs GITEA_MCP_REDIS_URL, so the workers share one "
            "write guard and one record of spent sign-in codes; set it, or set GITEA_READ_ONLY=true without sign-in, "
            "or GITEA_MCP_WORKERS=1"
        )
