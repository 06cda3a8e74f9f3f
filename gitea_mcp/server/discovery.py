"""What a client reads to find out how to sign in (issue 24): Protected Resource Metadata (RFC 9728) and
Authorization Server Metadata (RFC 8414), served when sign-in is on.

This server is the authorization server its MCP clients see (Gitea, where the user signs in, is behind it), so
both documents name this server's public URL. They are built with the MCP SDK's own models, whose field names
follow the MCP authorization spec (`client_id_metadata_document_supported`, say). The endpoints they name are
served by server/signin.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

from gitea_mcp.settings import Settings
from gitea_mcp.toolkit.registry import offered
from gitea_mcp.toolkit.scopes import READ_USER, folded, needed

MCP_PATH = "/mcp"
RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
# RFC 9728 §3.1: the document of the resource https://host/mcp is at /.well-known/oauth-protected-resource/mcp;
# clients that ask at the root (older MCP clients do) find the same one there.
RESOURCE_METADATA_PATHS = (RESOURCE_METADATA, RESOURCE_METADATA + MCP_PATH)
SERVER_METADATA = "/.well-known/oauth-authorization-server"


def _origin(settings: Settings) -> str:
    if settings.public_url is None:
        raise ValueError("sign-in is off: GITEA_MCP_PUBLIC_URL is not set")
    return settings.public_url


def scopes(settings: Settings) -> list[str]:
    """The scopes a client may ask for: exactly the Gitea scopes the offered tools need (read-only asks less)."""
    return needed(offered(settings.read_only, settings.toolsets))


def gitea_scopes(asked: list[str]) -> list[str]:
    """What Gitea is asked for on a sign-in: the client's scopes, and read:user, by which the server learns who
    signed in (the session's subject and its log line) even in read-only mode."""
    return folded([*asked, READ_USER])


def resource_metadata(settings: Settings) -> dict[str, Any]:
    origin = _origin(settings)
    # Validated from plain values, not built from AnyHttpUrl objects: the models' own configuration keeps an
    # origin as written (https://mcp.example.com, no trailing slash added), so the issuer matches exactly.
    document = ProtectedResourceMetadata.model_validate(
        {
            "resource": origin + MCP_PATH,
            "authorization_servers": [origin],
            "scopes_supported": scopes(settings),
            "bearer_methods_supported": ["header"],
            "resource_name": "gitea-issues-mcp",
        }
    )
    return document.model_dump(mode="json", exclude_none=True)


def server_metadata(settings: Settings) -> dict[str, Any]:
    origin = _origin(settings)
    document = OAuthMetadata.model_validate(
        {
            "issuer": origin,
            "authorization_endpoint": origin + "/authorize",
            "token_endpoint": origin + "/token",
            "registration_endpoint": origin + "/register",
            "scopes_supported": scopes(settings),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            # Required of every client here, whatever Gitea enforces behind us (it does not on consent-page codes).
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],  # public clients: PKCE, not a client secret
            # Off (GITEA_MCP_CLIENT_METADATA_DOCUMENTS=false), clients that would use one register instead.
            "client_id_metadata_document_supported": settings.client_metadata_documents,
            # Every redirect back to the client carries iss (RFC 9207): a client can tell our answer from a
            # mix-up with another authorization server's.
            "authorization_response_iss_parameter_supported": True,
        }
    )
    return document.model_dump(mode="json", exclude_none=True)


def challenge(settings: Settings, error: str | None = None) -> str:
    """The 401's WWW-Authenticate: with sign-in on it names the resource's metadata (RFC 9728 §5.1), where a
    client starts signing in."""
    parts = ['Bearer realm="gitea-mcp"']
    if settings.signin:
        parts.append(f'resource_metadata="{_origin(settings)}{RESOURCE_METADATA}{MCP_PATH}"')
    if error is not None:
        parts.append(error)
    return ", ".join(parts)
