"""The web side of Gitea's OAuth2 provider: sign-in, authorize and consent, token, keys, userinfo, discovery.

Each handler follows Gitea 1.25.4's routers/web/auth/oauth2_provider.go in the order it checks things, which decides
the error a client sees; the wording and statuses were measured on a live 1.25.4 (tests/contract/test_oauth.py).
Where Gitea 1.22.6 answers otherwise (measured live too), the profile says so.
The sign-in is the least of Gitea's form (`user_name`, `password`; `_csrf` is served and not required, as 1.25 does
for a same-origin post), enough for a test to drive consent with plain HTTP.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import json
from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit, urlunsplit

from gitea_mcp.standin.core import Request, Response
from gitea_mcp.standin.oauth.model import ALGORITHM, GENERAL_SCOPES, Grant, OAuthApp, OAuthProvider, WebSession
from gitea_mcp.standin.profile import Profile
from gitea_mcp.standin.store import Store, User

SESSION_COOKIE = "i_like_gitea"
_COOKIE_TAIL = "Path=/; HttpOnly; SameSite=Lax"
_JSON = "application/json;charset=utf-8"
_INCONSISTENT = "inconsistent with Authorization header"
_GRANT_TYPE_IS = "grant type is supported"
_AUTHORIZE_FAILED = (
    "The authorization failed because we detected an invalid request. "
    "Please contact the maintainer of the app you tried to authorize."
)


class Web:
    """One request to a web path; `handle` answers None for a path that is not the provider's."""

    def __init__(self, store: Store, profile: Profile, root: str) -> None:
        self.store = store
        self.oauth: OAuthProvider = store.oauth
        self.profile = profile
        self.root = root

    def handle(self, request: Request) -> Response | None:
        routes: dict[str, tuple[tuple[str, ...], Callable[[Request], Response]]] = {
            "/.well-known/openid-configuration": (("GET",), self.discovery),
            "/user/login": (("GET", "POST"), self.login),
            "/login/oauth/authorize": (("GET", "POST"), self.authorize),
            "/login/oauth/grant": (("POST",), self.grant),
            "/login/oauth/access_token": (("POST",), self.access_token),
            "/login/oauth/keys": (("GET",), self.keys),
            "/login/oauth/userinfo": (("GET", "POST"), self.userinfo),
        }
        found = routes.get(request.raw_path)
        if found is None:
            return None
        methods, handler = found
        method = "GET" if request.method == "HEAD" else request.method
        if method not in methods:
            return Response(405, b"", "")  # the router's bare 405 (measured: GET /login/oauth/access_token)
        return handler(request)

    # -- discovery, keys, userinfo -----------------------------------------------------------------------

    def discovery(self, request: Request) -> Response:
        base = self.root
        claims = "aud exp iat iss sub name preferred_username profile picture website locale updated_at email"
        document = {
            "issuer": self._issuer(),
            "authorization_endpoint": f"{base}/login/oauth/authorize",
            "token_endpoint": f"{base}/login/oauth/access_token",
            "jwks_uri": f"{base}/login/oauth/keys",
            "userinfo_endpoint": f"{base}/login/oauth/userinfo",
            "introspection_endpoint": f"{base}/login/oauth/introspect",
            "response_types_supported": ["code", "id_token"],
            "id_token_signing_alg_values_supported": [ALGORITHM],
            "subject_types_supported": ["public"],
            "scopes_supported": ["openid", "profile", "email", "groups"],
            "claims_supported": [*claims.split(), "email_verified", "groups"],
            "code_challenge_methods_supported": ["plain", "S256"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
        }
        # A template in Gitea, indented by four spaces.
        return Response(200, json.dumps(document, indent=4).encode(), "application/json")

    def _issuer(self) -> str:
        """[oauth2] JWT_CLAIM_ISSUER by default: ROOT_URL, without its slash after Gitea 1.22 (1.22 keeps it, in the
        document and in ID tokens alike; measured)."""
        return self.root + "/" if self.profile.oauth_issuer_has_slash else self.root

    def keys(self, request: Request) -> Response:
        """An HMAC key is not published: its JWK names the algorithm only (hmacSigningKey.ToJWK)."""
        body = json.dumps({"keys": [{"alg": ALGORITHM, "kty": "oct", "use": "sig"}]}, separators=(",", ":"))
        return Response(200, (body + "\n").encode(), "application/json")

    def userinfo(self, request: Request) -> Response:
        """Any token the OAuth2 method accepts: an OAuth access token, or a personal access token (measured)."""
        given = _bearer_value(request)
        user = self._bearer_user(given) if given else None
        if given and user is None:
            # The sign-in middleware refuses a token it cannot verify before the handler runs (Go's http.Error).
            return Response(401, self.profile.oauth_userinfo_refusal.encode(), "text/plain; charset=utf-8")
        if user is None:
            response = Response(401, b"no valid authorization", "text/plain;charset=utf-8")
            response.headers["WWW-Authenticate"] = f'Bearer realm="{self.profile.oauth_userinfo_realm}"'
            return response
        fallback = user.login if self.profile.userinfo_name_falls_back_to_login else ""
        document = {
            "sub": str(user.id),
            "name": user.full_name or fallback,
            "preferred_username": user.login,
            "email": f"{user.login.lower()}@example.com",
            "picture": _avatar(self.root, user),
            "groups": None,  # the stand-in does not list organisations here (Gitea: null for a user in none)
        }
        return _json(document, 200)

    def _bearer_user(self, value: str) -> User | None:
        token = self.store.token(value)
        if token is not None:
            return self.store.user(token.login)
        grant = self.oauth.access_token_grant(value)
        return self.store.user(grant.login) if grant else None

    # -- sign-in -------------------------------------------------------------------------------------------

    def login(self, request: Request) -> Response:
        session = self._session(request)
        if session is not None and session.login is not None:
            return _see_other("/")  # reqSignOut: a signed-in user is sent home
        if request.method != "POST":
            return _page(200, "Sign In", _LOGIN_FORM)
        form = _form(request)
        user = self.store.user(form.get("user_name", ""))
        if user is None or not self.oauth.password_matches(user.login, form.get("password", "")):
            return _page(200, "Sign In", '<div class="ui negative message">Username or password is incorrect.</div>')
        session = self.oauth.new_session()
        session.login = user.login
        target = _cookies(request).get("redirect_to", "")
        response = _see_other(target if target.startswith("/") and not target.startswith("//") else "/")
        response.cookies.append(f"{SESSION_COOKIE}={session.id}; {_COOKIE_TAIL}")
        if target:
            response.cookies.append("redirect_to=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        return response

    def _session(self, request: Request) -> WebSession | None:
        return self.oauth.session(_cookies(request).get(SESSION_COOKIE))

    def _signed_in(self, request: Request) -> WebSession | Response:
        """reqSignIn: an anonymous browser goes to the sign-in page, which sends it back here afterwards."""
        session = self._session(request)
        if session is not None and session.login is not None:
            return session
        response = _see_other("/user/login")
        target = request.raw_path + (f"?{request.raw_query}" if request.raw_query else "")
        response.cookies.append(f"redirect_to={quote(target, safe='')}; {_COOKIE_TAIL}")
        return response

    # -- authorize and consent ------------------------------------------------------------------------------

    def authorize(self, request: Request) -> Response:
        session = self._signed_in(request)
        if isinstance(session, Response):
            return session
        form = _form(request)
        state, redirect_uri = form.get("state", ""), form.get("redirect_uri", "")
        app = self.oauth.apps.get(form.get("client_id", ""))
        if app is None:
            return _authorize_error("unauthorized_client", "Client ID not registered", state, "")
        if not app.contains_redirect_uri(redirect_uri):
            return _authorize_error("invalid_request", "Unregistered Redirect URI", state, "")
        if form.get("response_type") != "code":
            return _authorize_error(
                "unsupported_response_type", "Only code response type is supported.", state, redirect_uri
            )
        method, challenge = form.get("code_challenge_method", ""), form.get("code_challenge", "")
        refused = _pkce_refusal(app, method)
        if refused:
            return _authorize_error("invalid_request", refused, state, redirect_uri)
        if method == "plain":
            # Only `plain` is kept in the session, and it stays there for this browser's later consents: Gitea
            # 1.25.4 keeps no S256 challenge for the consent page, so a consented S256 code checks no verifier
            # (read from source, measured).
            session.data.update(CodeChallengeMethod=method, CodeChallenge=challenge)
            if self.profile.oauth_plain_challenge_as_method:
                # 1.22 writes the challenge over the method: those codes name a method no verifier passes.
                session.data.update(CodeChallengeMethod=challenge, CodeChallenge="")
        assert session.login is not None
        grant = self.oauth.grant_of(app, session.login)
        skips = app.skip_secondary_authorization and self.profile.oauth_app_skips_secondary_authorization
        if grant is not None and (app.confidential or skips):
            # Consent given before, to a client that can keep a secret: straight back with a code, whose PKCE
            # challenge is the one of this request.
            grant.nonce = form.get("nonce") or grant.nonce
            code = self.oauth.new_code(grant, redirect_uri, challenge, method)
            return _see_other(_with_query(redirect_uri, _code_query(code.code, state)))
        session.data.update(client_id=app.client_id, redirect_uri=redirect_uri, state=state)
        return _page(200, f"Authorize {app.name}", _consent(app, form, redirect_uri))

    def grant(self, request: Request) -> Response:
        session = self._signed_in(request)
        if isinstance(session, Response):
            return session
        form = _form(request)
        state, redirect_uri = form.get("state", ""), form.get("redirect_uri", "")
        data = session.data
        if (data.get("client_id"), data.get("state"), data.get("redirect_uri")) != (
            form.get("client_id", ""), state, redirect_uri,
        ):  # fmt: skip
            return Response(400, b"Bad Request\n", "text/plain; charset=utf-8")
        if form.get("granted", "") not in ("1", "t", "T", "TRUE", "true", "True"):
            return _authorize_error("access_denied", "the request is denied", state, redirect_uri)
        app = self.oauth.apps[data["client_id"]]
        assert session.login is not None
        grant = self.oauth.grant_of(app, session.login)
        scope = form.get("scope", "")
        if grant is None:
            grant = self.oauth.create_grant(app, session.login, scope)
        elif grant.scope != scope:
            return _authorize_error("server_error", "a grant exists with different scope", state, redirect_uri)
        grant.nonce = form.get("nonce") or grant.nonce
        challenge, method = data.get("CodeChallenge", ""), data.get("CodeChallengeMethod", "")
        code = self.oauth.new_code(grant, redirect_uri, challenge, method)
        return _see_other(_with_query(redirect_uri, _code_query(code.code, state)), body=False)

    # -- tokens ----------------------------------------------------------------------------------------------

    def access_token(self, request: Request) -> Response:
        form = _form(request, json_body=True)
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        if (not client_id or not secret) and self._reads_authorization(request.authorization):
            basic = _basic(request.authorization or "")
            if basic is None:
                return _token_error("invalid_request", "cannot parse basic auth header")
            for name, given, told in (("client_id", client_id, basic[0]), ("client_secret", secret, basic[1])):
                if given and given != told:
                    return _token_error("invalid_request", f"{name} in request body {_INCONSISTENT}")
            client_id, secret = basic
        grant_type = form.get("grant_type", "")
        if grant_type == "refresh_token":
            return self._refresh(form, client_id, secret)
        if grant_type == "authorization_code":
            return self._exchange(form, client_id, secret)
        return _token_error("unsupported_grant_type", f"Only refresh_token or authorization_code {_GRANT_TYPE_IS}")

    def _reads_authorization(self, authorization: str | None) -> bool:
        """Whether the header is taken for client credentials: any on 1.25 (refused unless Basic), Basic on 1.22."""
        if not authorization:
            return False
        scheme = authorization.strip().partition(" ")[0]
        return scheme.lower() == "basic" or not self.profile.oauth_token_reads_only_basic

    def _exchange(self, form: dict[str, str], client_id: str, secret: str) -> Response:
        app = self.oauth.apps.get(client_id)
        if app is None:
            return _token_error("invalid_client", f"cannot load client with client id: '{client_id}'")
        if app.confidential and not app.secret_is(secret):
            return _token_error("unauthorized_client", _secret_refusal(secret))
        redirect_uri = form.get("redirect_uri", "")
        if redirect_uri and not app.contains_redirect_uri(redirect_uri):
            return _token_error("unauthorized_client", "unexpected redirect URI")
        code = self.oauth.codes.get(form.get("code", ""))
        grant = self.oauth.grants.get(code.grant_id) if code else None
        if code is None or grant is None:
            return _token_error("unauthorized_client", "client is not authorized")
        if not code.verifies(form.get("code_verifier", "")):
            return _token_error("unauthorized_client", "failed PKCE code challenge")  # the code stays usable
        if grant.app_id != app.id:
            return _token_error("invalid_grant", "invalid grant")
        del self.oauth.codes[code.code]  # used once; the redirect URI sent with it is not compared to the code's
        return _json(self._tokens(grant, app), 200)

    def _refresh(self, form: dict[str, str], client_id: str, secret: str) -> Response:
        app = self.oauth.apps.get(client_id)
        if app is None:
            return _token_error("invalid_client", f"cannot load client with client id: {json.dumps(client_id)}")
        if app.confidential and not app.secret_is(secret):
            # A refresh names the client as the one that failed (invalid_client); the exchange does not.
            return _token_error("invalid_client", _secret_refusal(secret))
        claims = self.oauth.parse(form.get("refresh_token", ""))
        if claims is None:
            return _token_error("unauthorized_client", "unable to parse refresh token")
        grant = self.oauth.grants.get(claims.grant_id)
        if grant is None:
            return _token_error("invalid_grant", "grant does not exist")
        # Neither the token's kind (an access token refreshes too) nor its application is checked (measured).
        if self.profile.invalidate_refresh_tokens and (grant.counter != claims.counter or claims.counter == 0):
            return _token_error("unauthorized_client", "token was already used")
        granted_to = self.oauth.app_by_id(grant.app_id)
        return _json(self._tokens(grant, granted_to or app), 200)

    def _tokens(self, grant: Grant, app: OAuthApp) -> dict[str, Any]:
        return self.oauth.token_response(grant, self.profile.invalidate_refresh_tokens, self._id_token(grant, app))

    def _id_token(self, grant: Grant, app: OAuthApp) -> str:
        """OpenID Connect's id_token when `openid` was granted. Signed with the provider's key, as Gitea signs it
        with an RSA key (with an HMAC key Gitea would use the client's secret)."""
        scopes = grant.scope.split(" ")
        if "openid" not in scopes:
            return ""
        user = self.store.user(grant.login)
        now = int(self.oauth.clock())
        claims: dict[str, Any] = {"iss": self._issuer(), "sub": str(user.id if user else 0), "aud": [app.client_id],
                                  "exp": now + 3600, "iat": now}  # fmt: skip
        if grant.nonce:
            claims["nonce"] = grant.nonce
        if "profile" in scopes and user is not None:
            claims.update(name=user.full_name or user.login, preferred_username=user.login,
                          profile=f"{self.root}/{user.login}", picture=_avatar(self.root, user))  # fmt: skip
        if "email" in scopes and user is not None:
            claims.update(email=f"{user.login.lower()}@example.com", email_verified=True)
        return self.oauth.sign(claims)


# -- helpers --------------------------------------------------------------------------------------------------


def _secret_refusal(secret: str) -> str:
    return "invalid empty client secret" if not secret else "invalid client secret"


def _pkce_refusal(app: OAuthApp, method: str) -> str:
    if method in ("S256", "plain"):
        return ""
    if method == "":
        return "" if app.confidential else "PKCE is required for public clients"
    return "unsupported code challenge method"


def _authorize_error(code: str, description: str, state: str, redirect_uri: str) -> Response:
    """handleAuthorizeError: back to the client with the error when its redirect URI is trusted, else a page."""
    if not redirect_uri:
        body = (
            '<h1 class="ui top attached header">Authorization failed</h1>\n'
            f'<h3 class="ui attached segment">{html.escape(description)}</h3>\n'
            f'<div class="ui attached segment"><p>{_AUTHORIZE_FAILED}</p></div>'
        )
        return _page(400, "Authorization failed", body)
    query = {"error": code, "error_description": description, "state": state}
    return _see_other(_with_query(redirect_uri, query))


def _code_query(code: str, state: str) -> dict[str, str]:
    return {"code": code, "state": state} if state else {"code": code}


def _with_query(uri: str, values: dict[str, str]) -> str:
    """Go's url.Values: the URI's own parameters kept, ours set, all sorted by name and encoded as a form."""
    split = urlsplit(uri)
    query = parse_qs(split.query, keep_blank_values=True)
    query.update({name: [value] for name, value in values.items()})
    encoded = urlencode(sorted(query.items()), doseq=True)
    return urlunsplit((split.scheme, split.netloc, split.path, encoded, split.fragment))


def _see_other(location: str, body: bool = True) -> Response:
    text = f'<a href="{html.escape(location)}">See Other</a>.\n\n'.encode() if body else b""
    return Response(303, text, "text/html; charset=utf-8" if body else "", {"Location": location})


def _form(request: Request, json_body: bool = False) -> dict[str, str]:
    """Go's request form: the body's fields first, then the URL's; the first value of each. The token endpoint
    also binds a JSON body (measured)."""
    fields: dict[str, str] = {}
    content_type = request.header("Content-Type").lower()
    if json_body and content_type.startswith("application/json"):
        try:
            document = json.loads(request.raw_body or b"{}")
        except ValueError:
            document = {}
        if isinstance(document, dict):
            fields.update({k: v if isinstance(v, str) else json.dumps(v) for k, v in document.items()})
    elif request.method == "POST":
        body = request.raw_body.decode("utf-8", "replace")
        fields.update({k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()})
    for name, values in request.query.items():
        fields.setdefault(name, values[0])
    return fields


def _cookies(request: Request) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(request.header("Cookie"))
    except CookieError:
        return {}
    return {name: unquote(morsel.value) for name, morsel in jar.items()}


def _bearer_value(request: Request) -> str:
    """The token of `Authorization: Bearer <t>` or `token <t>`; "" without one."""
    scheme, _, value = (request.authorization or "").strip().partition(" ")
    return value.strip() if scheme.lower() in ("bearer", "token") else ""


def _basic(authorization: str) -> tuple[str, str] | None:
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, colon, password = base64.b64decode(value.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (user, password) if colon else None


def _json(document: Any, status: int) -> Response:
    """ctx.JSON: Go's encoder, which ends the body with a newline."""
    return Response(status, (json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n").encode(), _JSON)


def _token_error(code: str, description: str) -> Response:
    return _json({"error": code, "error_description": description}, 400)


def _avatar(root: str, user: User) -> str:
    return f"{root}/avatars/{hashlib.md5(user.login.encode()).hexdigest()}"


def _consent(app: OAuthApp, form: dict[str, str], redirect_uri: str) -> str:
    """Gitea's grant page: what the application asks for, and the form the user posts back."""
    scope = form.get("scope", "")
    narrowing = [part for part in scope.split(" ") if part and part not in GENERAL_SCOPES]
    hidden = {"client_id": app.client_id, "state": form.get("state", ""), "scope": scope,
              "nonce": form.get("nonce", ""), "redirect_uri": redirect_uri}  # fmt: skip
    inputs = "\n".join(
        f'<input type="hidden" name="{name}" value="{html.escape(value)}">' for name, value in hidden.items()
    )
    notice = "" if narrowing else "<b>It will have access to all your account data.</b><br>"
    return (
        f"<p>{notice}This application was created by @{html.escape(app.owner)}<br>"
        f"It will have access to: <b>{html.escape(scope)}</b></p>\n"
        f"<p>You will be redirected to <strong>{html.escape(redirect_uri)}</strong> if you authorize.</p>\n"
        f'<form method="post" action="/login/oauth/grant">\n{inputs}\n'
        '<button type="submit" id="authorize-app" name="granted" value="true">Authorize Application</button>\n'
        '<button type="submit" name="granted" value="false">Cancel</button>\n</form>'
    )


_LOGIN_FORM = (
    '<form class="ui form" action="/user/login" method="post">\n'
    '<input type="hidden" name="_csrf" value="standin">\n'
    '<input id="user_name" name="user_name" type="text" required>\n'
    '<input id="password" name="password" type="password" required>\n'
    '<input name="remember" type="checkbox">\n'
    '<button type="submit">Sign In</button>\n</form>'
)


def _page(status: int, title: str, content: str) -> Response:
    head = f"<!DOCTYPE html>\n<html><head><title>{html.escape(title)}</title></head>\n"
    page = f"{head}<body>\n{content}\n</body></html>\n"
    return Response(status, page.encode(), "text/html; charset=utf-8")
