"""Settings: where Gitea is, which token, which owners — read once from flags and environment."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, SecretStr, field_validator, model_validator

from gitea_mcp.errors import ToolFailure


class ConfigError(ToolFailure):
    """A setting is missing or wrong; the message says which and how to set it."""


class Settings(BaseModel):
    """Everything the server needs, validated. The token is a SecretStr so no repr can leak it."""

    model_config = ConfigDict(frozen=True)

    url: str
    token: SecretStr | None = None
    allowed_owners: frozenset[str]
    read_only: bool = False
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

    @field_validator("url")
    @classmethod
    def _normalise_url(cls, value: str) -> str:
        url = value.strip().rstrip("/")
        # Users paste the API root as often as the site root; both mean the same server.
        for suffix in ("/api/v1", "/api"):
            if url.endswith(suffix):
                url = url[: -len(suffix)]
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"GITEA_URL must start with http:// or https:// (got {value!r})")
        return url

    @field_validator("timeout")
    @classmethod
    def _positive_timeout(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("GITEA_TIMEOUT must be a positive number of seconds")
        return value

    @field_validator("transport")
    @classmethod
    def _known_transport(cls, value: str) -> str:
        if value not in ("stdio", "http"):
            raise ValueError(f"GITEA_MCP_TRANSPORT must be stdio or http (got {value!r})")
        return value

    @model_validator(mode="after")
    def _secret_needs_token(self) -> Settings:
        if self.http_secret is not None and self.token is None:
            raise ValueError(
                "GITEA_MCP_HTTP_SECRET is set but GITEA_TOKEN is not: the secret unlocks the server's token"
            )
        return self

    @property
    def allow_all_owners(self) -> bool:
        return "*" in self.allowed_owners

    def token_value(self) -> str | None:
        return self.token.get_secret_value() if self.token else None


def parse_owner_list(raw: str | None) -> frozenset[str]:
    """`acme, Widgets-Inc` → {"acme", "widgets-inc"}: Gitea compares owner names case-insensitively."""
    owners = frozenset(part.strip().lower() for part in (raw or "").split(",") if part.strip())
    if not owners:
        raise ConfigError(
            "GITEA_ALLOWED_OWNERS is not set: name the owners whose repositories agents may use, "
            "comma-separated (e.g. GITEA_ALLOWED_OWNERS=acme,alice), or '*' to allow every owner."
        )
    return owners


def parse_bool(raw: str | None) -> bool:
    return (raw or "").strip().lower() in {"1", "true", "yes", "on"}
