"""Gitea's OAuth2 sign-in driven with plain HTTP, as a browser would: sign in on the web form, open the authorize
page, post the consent form, exchange the code. The same steps against a live Gitea and the stand-in.

No redirect is followed: each step looks at what the server said (a page, or a 303 and where it points).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

SCOPE = "read:issue read:user"  # what every probe asks for: a public app's grant keeps the scope of its first consent
_HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)"')
_GRANT_FORM = re.compile(r'<form method="post" action="[^"]*/login/oauth/grant">(.*?)</form>', re.S)


@dataclass(frozen=True)
class App:
    id: int
    client_id: str
    secret: str
    confidential: bool
    redirect: str  # the first registered redirect URI


def pkce() -> tuple[str, str]:
    """A verifier and its S256 challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(40)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def query_of(location: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query, keep_blank_values=True).items()}


def claims_of(jwt: str) -> dict[str, Any]:
    """The payload of a JWT, unverified: what the token says about itself."""
    payload = jwt.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


class Browser:
    """One browser: its own cookies, so its own Gitea session."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.session = requests.Session()
        self.session.trust_env = False

    def sign_in(self, login: str, password: str) -> None:
        page = self.session.get(f"{self.url}/user/login", timeout=30)
        csrf = re.search(r'name="_csrf" value="([^"]+)"', page.text)
        form = {"user_name": login, "password": password, "_csrf": csrf[1] if csrf else ""}
        answer = self.session.post(f"{self.url}/user/login", data=form, allow_redirects=False, timeout=30)
        assert answer.status_code == 303, f"sign-in answered {answer.status_code}"

    def authorize(self, app: App, redirect: str | None = None, **params: str | None) -> requests.Response:
        query: dict[str, str | None] = {
            "client_id": app.client_id, "redirect_uri": redirect or app.redirect, "response_type": "code",
            "state": "probe-state", "scope": SCOPE,
        }  # fmt: skip
        query.update(params)
        sent = {name: value for name, value in query.items() if value is not None}
        return self.session.get(f"{self.url}/login/oauth/authorize", params=sent, allow_redirects=False, timeout=30)

    def consent(self, page: requests.Response, **changes: str) -> requests.Response:
        """Post the consent page's form as its Authorize button does; `changes` alter its fields."""
        assert page.status_code == 200, f"authorize answered {page.status_code}: {page.text[:200]}"
        form_html = _GRANT_FORM.search(page.text)
        assert form_html is not None, "the authorize page has no consent form"
        form = dict(_HIDDEN.findall(form_html[1]))
        form.update({"granted": "true", **changes})
        return self.session.post(f"{self.url}/login/oauth/grant", data=form, allow_redirects=False, timeout=30)

    def code(self, app: App, challenge: str, method: str = "S256", redirect: str | None = None) -> str:
        """Authorize, consent when asked, and return the code the redirect carries."""
        page = self.authorize(app, redirect, code_challenge=challenge, code_challenge_method=method)
        answer = page if page.status_code == 303 else self.consent(page)
        assert answer.status_code == 303, f"consent answered {answer.status_code}: {answer.text[:200]}"
        found = query_of(answer.headers["Location"])
        assert "code" in found, answer.headers["Location"]
        return found["code"]


def token(url: str, form: dict[str, str], basic: tuple[str, str] | None = None, **kwargs: Any) -> requests.Response:
    return requests.post(f"{url.rstrip('/')}/login/oauth/access_token", data=form, auth=basic, timeout=30, **kwargs)


def bearer(access_token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {access_token}", "Accept": "application/json"}
