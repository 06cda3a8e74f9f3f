"""A user's OAuth2 applications: `POST /user/applications/oauth2`, `GET` (the list, and `…/{id}`), `PATCH …/{id}`
and `DELETE …/{id}` (measured on Gitea 1.25.4, and 1.22.6, which has no `skip_secondary_authorization`: its JSON
lacks it and a body's is ignored).

Only the answers to POST and PATCH carry a client secret; the list and `GET …/{id}` say `"client_secret": ""`. A
PATCH replaces name, redirect URIs and confidentiality with the body's (the URIs required, as on creation) and
makes a new secret, the old one refused from then on: every replica holding it must be given the new one.

The answer carries the client secret in plain text once; Gitea keeps only its hash. Name and redirect URIs are
required (`[Name]: Required`, `[RedirectURIs]: Required`), an empty list of URIs is not; the URIs are not checked.
Without `confidential_client` the API registers a public client (the web form's default is confidential).
"""

from __future__ import annotations

from typing import Any

from gitea_mcp.standin.core import ApiError, Call, Response, bind, counted, json_response, list_options
from gitea_mcp.standin.oauth.model import OAuthApp

APP_FIELDS = {"name": "string", "confidential_client": "bool", "skip_secondary_authorization": "bool"}


def _app_form(call: Call) -> tuple[dict[str, Any], list[str]]:
    """The body of a create or an update, bound and refused as Gitea binds CreateOAuth2ApplicationOptions (both
    routes take it): the form, and its redirect URIs."""
    skips = call.profile.oauth_app_skips_secondary_authorization
    fields = APP_FIELDS if skips else {k: v for k, v in APP_FIELDS.items() if k != "skip_secondary_authorization"}
    form = bind(call, "CreateOAuth2ApplicationOptions", fields)
    if not form.get("name"):
        raise ApiError(422, "[Name]: Required")
    uris = form.get("redirect_uris")
    if uris is None:
        raise ApiError(422, "[RedirectURIs]: Required")
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        raise ApiError(422, "[]: json: cannot unmarshal into Go struct field of type []string")
    return form, list(uris)


def _skip_secondary(call: Call, app: OAuthApp, form: dict[str, Any]) -> None:
    if call.profile.oauth_app_skips_secondary_authorization:
        app.skip_secondary_authorization = bool(form.get("skip_secondary_authorization"))


def create_app(call: Call) -> Response:
    owner = call.require_token()
    form, uris = _app_form(call)
    app, secret = call.store.oauth.create_app(owner.login, form["name"], uris, bool(form.get("confidential_client")))
    _skip_secondary(call, app, form)
    return json_response(_app(call, app, secret), 201)


def list_apps(call: Call) -> Response:
    """The token owner's applications, oldest first; X-Total-Count and no Link (Gitea 1.25.4)."""
    owner = call.require_token()
    mine = sorted(
        (app for app in call.store.oauth.apps.values() if app.owner.lower() == owner.login.lower()),
        key=lambda app: app.id,
    )
    page, limit = list_options(call)
    return counted(mine, lambda app: _app(call, app, ""), page, limit)


def get_app(call: Call) -> Response:
    app = _own_app(call)
    if app is None:
        return _not_found(call)
    return json_response(_app(call, app, ""))


def update_app(call: Call) -> Response:
    app = _own_app(call)
    if app is None:
        return _not_found(call)
    form, uris = _app_form(call)
    secret = call.store.oauth.update_app(app, form["name"], uris, bool(form.get("confidential_client")))
    _skip_secondary(call, app, form)
    return json_response(_app(call, app, secret))


def _own_app(call: Call) -> OAuthApp | None:
    owner = call.require_token()
    wanted = call.args["id"]
    app = call.store.oauth.app_by_id(int(wanted)) if wanted.isdigit() else None
    return app if app is not None and app.owner.lower() == owner.login.lower() else None


def _not_found(call: Call) -> Response:
    # Gitea's answer here names no cause, and says so with `"errors": null`.
    body = {"errors": None, "message": call.profile.not_found_message, "url": f"{call.view.root}/api/swagger"}
    return json_response(body, 404)


def delete_app(call: Call) -> Response:
    owner = call.require_token()
    provider = call.store.oauth
    wanted = call.args["id"]
    app = provider.app_by_id(int(wanted)) if wanted.isdigit() else None
    if app is None or app.owner.lower() != owner.login.lower():
        # Gitea's answer here names no cause, and says so with `"errors": null`.
        body = {"errors": None, "message": call.profile.not_found_message, "url": f"{call.view.root}/api/swagger"}
        return json_response(body, 404)
    provider.delete_app(app)
    return Response(204)


def _app(call: Call, app: OAuthApp, secret: str) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": app.id,
        "name": app.name,
        "client_id": app.client_id,
        "client_secret": secret,
        "confidential_client": app.confidential,
    }
    if call.profile.oauth_app_skips_secondary_authorization:
        shown["skip_secondary_authorization"] = app.skip_secondary_authorization
    shown.update(redirect_uris=app.redirect_uris, created=call.view.time(app.created.replace(microsecond=0)))
    return shown
