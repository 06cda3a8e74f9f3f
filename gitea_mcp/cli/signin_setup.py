"""signin-setup: the forge's OAuth2 application for sign-in, made through Gitea's API when it is missing, and the
settings to paste printed (issue 39).

It finds the token owner's application (`GET /user/applications/oauth2`, read:user) by GITEA_MCP_OAUTH_CLIENT_ID
when set, else by its redirect URI `<GITEA_MCP_PUBLIC_URL>/callback`; when there is none it registers one (`POST`,
write:user) redirecting there, confidential unless `--public`, and prints the client ID, the secret (shown once,
on creation) and a key. It never changes an existing application unless `--rotate` is given: Gitea's update
(`PATCH …/{id}`) makes a new client secret, and every replica still holding the old one stops signing users in
until it is given the new one. Without `--rotate`, an application that needs a change is named with the page of
Gitea's web UI that makes it without a new secret.
"""

from __future__ import annotations

import argparse
import base64
import os
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr, ValidationError

from gitea_mcp.cli.lines import lacks_scope
from gitea_mcp.cli.main import FAILED, OK, PROG, USES, _Reader
from gitea_mcp.gitea.client import GiteaClient, display_url
from gitea_mcp.gitea.errors import GiteaError, Unauthorized
from gitea_mcp.settings import MAKE_KEY, ConfigError, Settings, check_public_url

HELP = (
    "create the forge's OAuth2 application for sign-in if it is missing (needs a token with write:user) and print "
    "the settings to paste; --rotate makes a new secret for an existing one"
)
DEFAULT_NAME = "gitea-issues-mcp"
CALLBACK = "/callback"  # the server's redirect URI under GITEA_MCP_PUBLIC_URL (server/signin/context.py CALLBACK)
ROTATE_WARNING = (
    "an update makes a new client secret: the old one stops working at once, and every replica still holding it "
    "cannot sign anyone in until it is given the new one"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--name", default=DEFAULT_NAME, help=f"the application's name when made (default {DEFAULT_NAME})"
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="register a public client (no secret) instead of a confidential one (docs/operators.md says why "
        "confidential is the better choice)",
    )
    parser.add_argument(
        "--rotate",
        action="store_true",
        help=f"update an existing application (its redirect URI added): {ROTATE_WARNING}",
    )


@dataclass(frozen=True)
class Wanted:
    settings: Settings
    public_url: str
    client_id: str | None
    key_set: bool

    @property
    def callback(self) -> str:
        return self.public_url + CALLBACK


def wanted(ns: argparse.Namespace) -> Wanted:
    """The settings this command reads, each checked as serve checks it; GITEA_ALLOWED_OWNERS is not needed."""
    read = _Reader(ns, USES["signin-setup"])
    url, token, public = read.value("--url"), read.value("--token"), read.value("--public-url")
    missing = [
        sentence
        for value, sentence in (
            (url, "GITEA_URL (the forge, e.g. https://gitea.example.com)"),
            (token, "GITEA_TOKEN (a token of the user who will own the application, with write:user)"),
            (public, "GITEA_MCP_PUBLIC_URL (the origin clients reach, e.g. https://mcp.example.com)"),
        )
        if not value
    ]
    if missing:
        raise ConfigError(f"signin-setup needs {' and '.join(missing)}.")
    assert url is not None and token is not None and public is not None
    try:
        public_url = check_public_url(public.strip())
        timeout = float(read.value("--timeout") or Settings.model_fields["timeout"].default)
        settings = Settings(
            url=url,
            token=SecretStr(token),
            allowed_owners=frozenset({"*"}),  # nothing is served: the owners play no part here
            ca_bundle=read.value("--ca-bundle"),
            insecure=read.switch("--insecure"),
            timeout=timeout,
            public_url=None,  # checked above; sign-in's other settings are what this command prints
        )
    except ValidationError as exc:
        raise ConfigError(
            "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
        ) from None
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    client_id = (read.value("--oauth-client-id") or "").strip() or None
    return Wanted(settings, public_url, client_id, bool(read.value("--oauth-key")))


def run(ns: argparse.Namespace, settings: Settings | None) -> int:
    # why: the MCP SDK, 0.45 s, and check's sign-in part (2 ms): every command module is imported at start-up
    from gitea_mcp.cli.signin_check import applications
    from gitea_mcp.server.app import make_client

    want = wanted(ns)
    client = make_client(want.settings)
    where = display_url(want.settings.url)
    try:
        apps = applications(client)
    except GiteaError as exc:
        print(f"{PROG} signin-setup: {_api_problem(exc, 'list', where)}")
        return FAILED
    found = _find(apps, want)
    if found is None and want.client_id is not None:
        print(
            f"{PROG} signin-setup: GITEA_MCP_OAUTH_CLIENT_ID={want.client_id} is no OAuth2 application of this "
            f"token's user at {where} (an organisation's, the site's or another user's is not listed to it); run "
            "with a token of its owner, or unset GITEA_MCP_OAUTH_CLIENT_ID to make a new application"
        )
        return FAILED
    if found is None:
        return _create(client, want, ns, where)
    return _existing(client, want, ns, found, where)


def _find(apps: list[dict[str, Any]], want: Wanted) -> dict[str, Any] | None:
    if want.client_id is not None:
        return next((app for app in apps if app.get("client_id") == want.client_id), None)
    return next((app for app in apps if want.callback in (app.get("redirect_uris") or [])), None)


def _create(client: GiteaClient, want: Wanted, ns: argparse.Namespace, where: str) -> int:
    body = {"name": ns.name, "redirect_uris": [want.callback], "confidential_client": not ns.public}
    try:
        made = client.write("POST", ["user", "applications", "oauth2"], body).data
    except GiteaError as exc:
        print(f"{PROG} signin-setup: {_api_problem(exc, 'create', where)}")
        return FAILED
    kind = "a public client (no secret)" if ns.public else "a confidential client"
    print(f'Created the OAuth2 application "{made.get("name")}" (id {made.get("id")}) at {where}, redirecting to '
          f"{want.callback}, {kind}.")  # fmt: skip
    _paste(want, made, secret=not ns.public)
    return OK


def _existing(client: GiteaClient, want: Wanted, ns: argparse.Namespace, app: dict[str, Any], where: str) -> int:
    uris = [str(uri) for uri in app.get("redirect_uris") or []]
    confidential = bool(app.get("confidential_client"))
    edit = f"{where}/user/settings/applications/oauth2/{app.get('id')}"
    needs = [] if want.callback in uris else [f"add the redirect URI {want.callback}"]
    name = f'"{app.get("name")}" (id {app.get("id")})'
    if ns.rotate:
        redirects = [*uris, want.callback] if needs else uris
        body = {"name": app.get("name") or ns.name, "redirect_uris": redirects, "confidential_client": confidential}
        try:
            made = client.write("PATCH", ["user", "applications", "oauth2", str(app.get("id"))], body).data
        except GiteaError as exc:
            print(f"{PROG} signin-setup: {_api_problem(exc, 'update', where)}")
            return FAILED
        print(f"Updated the OAuth2 application {name} at {where}: {ROTATE_WARNING}.")
        _paste(want, made, secret=confidential, new_key=False)
        return OK
    kind = "confidential" if confidential else "public (no secret)"
    print(f"The OAuth2 application {name} at {where} exists ({kind}); it was not changed.")
    if needs:
        print(
            f"It does not redirect to {want.callback}, so Gitea would refuse every sign-in: {needs[0]} at {edit} "
            f"(the web form keeps the secret), or run again with --rotate ({ROTATE_WARNING})."
        )
    _paste(want, app, secret=False, new_key=False)
    if confidential:
        print(
            "# GITEA_MCP_OAUTH_CLIENT_SECRET: shown only when the application was made; lost, --rotate makes a new "
            f"one ({ROTATE_WARNING})"
        )
    return FAILED if needs else OK


def _paste(want: Wanted, app: dict[str, Any], secret: bool, new_key: bool = True) -> None:
    print("\nSettings for every replica (keep the secret and the key as secrets):")
    print(f"GITEA_MCP_PUBLIC_URL={want.public_url}")
    print(f"GITEA_MCP_OAUTH_CLIENT_ID={app.get('client_id')}")
    if secret and app.get("client_secret"):
        print(f"GITEA_MCP_OAUTH_CLIENT_SECRET={app.get('client_secret')}  # shown this once")
    if want.key_set:
        return
    if new_key:  # a new set-up: no replica holds a key yet
        key = base64.urlsafe_b64encode(os.urandom(32)).decode()
        print(f"GITEA_MCP_OAUTH_KEY={key}  # new: the same on every replica")
    else:  # a new key where replicas share one would sign every user out: not offered unasked
        print(f"# GITEA_MCP_OAUTH_KEY: the one your replicas already share; for a first one: {MAKE_KEY}")


def _api_problem(exc: GiteaError, doing: str, where: str) -> str:
    scope = "read:user" if doing == "list" else "write:user"
    if lacks_scope(exc):
        return (
            f"the token may not {doing} OAuth2 applications at {where}: it needs {scope} (a token made for this "
            "command, Settings → Applications, with write:user, which includes read:user)"
        )
    if isinstance(exc, Unauthorized):
        return f"{where} refused the token (401): give a valid GITEA_TOKEN of the user who will own the application"
    return f"could not {doing} the OAuth2 applications at {where}: {exc}"
