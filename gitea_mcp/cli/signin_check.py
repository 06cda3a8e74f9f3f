"""check's sign-in lines (issue 24), when GITEA_MCP_PUBLIC_URL and GITEA_MCP_OAUTH_CLIENT_ID are given: Gitea's
OAuth2 provider, the application and its redirect URI, the scopes the release can narrow, and this server's own
discovery document. Nothing is written anywhere.

The two documents outside Gitea's API (`/.well-known/…` of Gitea and of the public URL) are read under the Gitea
client's policy (gitea/outbound.py FORGE): no cookies, no `~/.netrc`, no redirects followed, Gitea's TLS settings.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gitea_mcp.cli.lines import Line, lacks_scope
from gitea_mcp.gitea import outbound
from gitea_mcp.gitea.client import GiteaClient, display_url
from gitea_mcp.gitea.errors import GiteaError, tls_problem
from gitea_mcp.gitea.outbound import before_sending
from gitea_mcp.gitea.release import ServerInfo
from gitea_mcp.settings import Settings

CALLBACK = "/callback"  # the server's own redirect URI under GITEA_MCP_PUBLIC_URL, where Gitea sends the user back
DISCOVERY = "/.well-known/oauth-protected-resource/mcp"
PAGE = 50  # applications per page; Gitea's default MAX_RESPONSE_ITEMS
MAX_PAGES = 20


@dataclass(frozen=True)
class Fetched:
    status: int
    document: Any  # the JSON body, or None when the body is not JSON


class Unreached(Exception):
    """No answer came: `str(exc)` says why, in a few words."""


def fetch(url: str, settings: Settings) -> Fetched:
    """GET `url` for a JSON document (the FORGE policy, gitea/outbound.py); Unreached when nothing answers."""
    kinds = outbound.failures()
    try:
        status, body = outbound.forge_document(url, False if settings.insecure else settings.ca_bundle or True,
                                               settings.timeout)  # fmt: skip
    except kinds.tls as exc:
        raise Unreached(f"TLS failed: {tls_problem(exc).reason}") from None
    except kinds.timeout:
        raise Unreached(f"no answer within {settings.timeout:g}s") from None
    except kinds.any as exc:
        raise Unreached("no connection could be made" if before_sending(exc) else "the connection broke off") from None
    try:
        return Fetched(status, json.loads(body))
    except ValueError:
        return Fetched(status, None)


def signin_checks(settings: Settings, client: GiteaClient, server: ServerInfo) -> Iterator[Line]:
    yield check_provider(settings)
    yield from check_app(settings, client)
    yield check_scopes(settings, server)
    yield check_discovery(settings)


def check_provider(settings: Settings) -> Line:
    """Gitea's OAuth2 provider is on: its OpenID document names an authorization endpoint."""
    url = f"{display_url(settings.url.rstrip('/'))}/.well-known/openid-configuration"
    try:
        answer = fetch(settings.url.rstrip("/") + "/.well-known/openid-configuration", settings)
    except Unreached as exc:
        return Line("warn", f"sign-in: could not tell whether Gitea's OAuth2 provider is on: {url} {exc}", _AGAIN)
    if answer.status == 404:
        return Line(
            "fail",
            f"sign-in: Gitea's OAuth2 provider is off ({url} answers 404): no one can sign in",
            "set [oauth2] ENABLED = true in Gitea's app.ini and restart Gitea",
        )
    document = answer.document
    if answer.status == 200 and isinstance(document, dict) and isinstance(document.get("authorization_endpoint"), str):
        return Line("ok", f"sign-in: Gitea's OAuth2 provider is on (sign-in page {document['authorization_endpoint']})")
    what = "without an authorization_endpoint" if answer.status == 200 else f"with {answer.status}"
    return Line("warn", f"sign-in: could not tell whether Gitea's OAuth2 provider is on: {url} answers {what}", _AGAIN)


_AGAIN = "run check again; if this stays, make sure GITEA_URL reaches Gitea itself (no proxy or sign-in page in front)"


def check_app(settings: Settings, client: GiteaClient) -> list[Line]:
    """The application GITEA_MCP_OAUTH_CLIENT_ID names, among the token owner's: its redirect URI and its kind."""
    client_id = settings.oauth_client_id
    callback = f"{settings.public_url}{CALLBACK}"
    owner_fix = "run check with GITEA_TOKEN of the application's owner (read:user) to verify it"
    if settings.token is None:
        return [
            Line(
                "warn",
                f"sign-in: the OAuth2 application {client_id} is not verified without GITEA_TOKEN: "
                f"whether it redirects to {callback} is not known",
                owner_fix,
            )
        ]
    try:
        apps = applications(client)
    except GiteaError as exc:
        if lacks_scope(exc):
            return [
                Line(
                    "warn",
                    "sign-in: the OAuth2 application is not verified: listing the token's applications needs read:user",
                    owner_fix,
                )
            ]
        return [Line("warn", f"sign-in: could not list the token's OAuth2 applications: {exc}", _AGAIN)]
    app = next((app for app in apps if app.get("client_id") == client_id), None)
    if app is None:
        # Gitea lists only the token owner's own: an organisation's or the site's application is not among them.
        return [
            Line(
                "warn",
                f"sign-in: no OAuth2 application of the token's user has the client ID {client_id}: "
                "it belongs to another user, an organisation or the site (not verified here), or it does not "
                "exist",
                f"check GITEA_MCP_OAUTH_CLIENT_ID against the application in Gitea, or {owner_fix}",
            )
        ]
    return _app_lines(settings, app, callback)


def applications(client: GiteaClient) -> list[dict[str, Any]]:
    """The token owner's OAuth2 applications, every page (signin-setup reads them too)."""
    found: list[dict[str, Any]] = []
    for page in range(1, MAX_PAGES + 1):
        response = client.get(["user", "applications", "oauth2"], {"page": page, "limit": PAGE})
        rows = [row for row in response.data if isinstance(row, dict)] if isinstance(response.data, list) else []
        found += rows
        if len(rows) < PAGE or (response.total is not None and len(found) >= response.total):
            break
    return found


def _app_lines(settings: Settings, app: dict[str, Any], callback: str) -> list[Line]:
    name = f"OAuth2 application {json.dumps(str(app.get('name', '')), ensure_ascii=False)}"
    edit = f"{display_url(settings.url.rstrip('/'))}/user/settings/applications/oauth2/{app.get('id')}"
    uris = [str(uri) for uri in app.get("redirect_uris") or []]
    lines: list[Line] = []
    confidential = bool(app.get("confidential_client"))
    if not gitea_redirects(uris, callback, confidential):
        listed = ", ".join(uris) or "none"
        lines.append(
            Line(
                "fail",
                f"sign-in: the {name} does not redirect to {callback} (its redirect URIs: {listed}): "
                "Gitea would refuse every sign-in",
                f"add {callback} to its redirect URIs at {edit}",
            )
        )
    secret = settings.oauth_client_secret is not None
    if confidential and not secret:
        lines.append(
            Line(
                "fail",
                f"sign-in: the {name} is a confidential client but GITEA_MCP_OAUTH_CLIENT_SECRET is "
                "not set: Gitea would refuse the server's token requests",
                f"set GITEA_MCP_OAUTH_CLIENT_SECRET to its client secret (regenerate it at {edit} if it is lost)",
            )
        )
    if secret and not confidential:
        lines.append(
            Line(
                "fail",
                f"sign-in: GITEA_MCP_OAUTH_CLIENT_SECRET is set but the {name} is a public client, which has no secret",
                "remove GITEA_MCP_OAUTH_CLIENT_SECRET, or use the client ID of the "
                "confidential application it belongs to",
            )
        )
    if lines:
        return lines
    kind = "confidential (GITEA_MCP_OAUTH_CLIENT_SECRET set)" if confidential else "public (no client secret)"
    return [Line("ok", f"sign-in: the {name} redirects to {callback}, a {kind} client")]


def gitea_redirects(registered: list[str], callback: str, confidential: bool) -> bool:
    """Whether Gitea sends the browser to `callback`: one of the registered URIs exactly, or, for a public client,
    an http IPv4 loopback URI registered without a port, which Gitea takes with any port (RFC 8252 §7.3), e.g.
    http://127.0.0.1/callback for a trial at http://127.0.0.1:8080. Seen live at Gitea 1.22.6 and 1.25.4, which
    refuse the same for [::1] and localhost."""
    if callback in registered:
        return True
    parts = urlsplit(callback)
    if confidential or parts.scheme != "http" or parts.port is None or parts.hostname is None:
        return False
    try:
        address = ipaddress.ip_address(parts.hostname)
    except ValueError:  # a name, localhost too
        return False
    loopback = address.version == 4 and address.is_loopback
    return loopback and parts._replace(netloc=parts.hostname).geturl() in registered


def check_scopes(settings: Settings, server: ServerInfo) -> Line:
    """What a signed-in user's Gitea token may do: the scopes asked, narrowed by Gitea 1.23+ alone."""
    from gitea_mcp.server.discovery import gitea_scopes, scopes  # the SDK import: only once a check runs

    asked = ", ".join(gitea_scopes(scopes(settings)))
    if server.narrows_oauth_scopes:
        return Line("ok", f"sign-in: asks Gitea for {asked}; {server} narrows OAuth tokens to the scopes asked")
    return Line(
        "warn",
        f"sign-in: asks Gitea for {asked}, but {server} gives OAuth tokens full access whatever is asked: a signed-in "
        "user's token may do all the user may (the tools still keep to the allowed owners"
        f"{' and read-only mode' if settings.read_only else ''})",
        "upgrade to Gitea 1.23 or later for tokens narrowed to these scopes, or keep to personal access tokens",
    )


def check_discovery(settings: Settings) -> Line:
    """Our own Protected Resource Metadata, as a client reads it; unreachable is only a warning (serve may not run
    yet, or the public URL may not be reachable from where check runs)."""
    origin = settings.public_url or ""
    url, resource = origin + DISCOVERY, origin + "/mcp"
    try:
        answer = fetch(url, settings)
    except Unreached as exc:
        return Line(
            "warn",
            f"sign-in: {url} cannot be reached from here ({exc}), so discovery is not checked",
            "run check again once serve runs, from where clients reach GITEA_MCP_PUBLIC_URL",
        )
    document = answer.document
    found = document.get("resource") if isinstance(document, dict) else None
    if answer.status == 200 and found == resource:
        return Line("ok", f"sign-in: {url} names the resource {resource}: clients find how to sign in")
    if answer.status == 200 and isinstance(found, str):
        return Line(
            "fail",
            f"sign-in: {url} names the resource {found}, not {resource}: clients would refuse it",
            "give serve and check the same GITEA_MCP_PUBLIC_URL, the origin clients reach",
        )
    if answer.status == 421:
        return Line(
            "fail",
            f"sign-in: {url} answers 421: the server refuses the public host name",
            f"add {origin.split('://', 1)[-1]} to GITEA_MCP_ALLOWED_HOSTS",
        )
    what = "without a resource" if answer.status == 200 else f"with {answer.status}"
    return Line(
        "fail",
        f"sign-in: {url} answers {what}, not this server's discovery document: no client can sign in",
        "start serve with the same sign-in settings, and let the proxy in front pass /.well-known/ to it",
    )
