"""The live Gitea the end-to-end tests sign in at, from the environment; None when it is not configured.

GITEA_SIGNIN_E2E=1 turns them on, with GITEA_SIGNIN_URL (e.g. http://127.0.0.1:3135, [oauth2] ENABLED=true) and
GITEA_SIGNIN_ADMIN_TOKEN (an administrator's token with every scope). Each run makes its own user (a password it
signs in with) and its own OAuth2 application, both named after the run, and deletes them afterwards.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from typing import Any

import pytest
import requests

ON = "GITEA_SIGNIN_E2E"
NEEDED = ("GITEA_SIGNIN_URL", "GITEA_SIGNIN_ADMIN_TOKEN")


def missing() -> str | None:
    """Why the live end-to-end tests cannot run, or None."""
    if os.environ.get(ON) != "1":
        return f"{ON}=1 is not set: the live sign-in tests need a running Gitea with [oauth2] on (tests/signin/live.py)"
    unset = [name for name in NEEDED if not os.environ.get(name)]
    return f"{ON}=1 but {', '.join(unset)} unset (tests/signin/live.py)" if unset else None


def forge_for_the_browser() -> LiveGitea:
    """The live Gitea a browser sign-in test runs against; the test is skipped, saying why, when it is not
    configured or the browser user cannot run."""
    from tests.signin.browser import unavailable

    reason = missing() or unavailable()
    if reason:
        pytest.skip(reason)
    return LiveGitea.from_env()


@dataclass(frozen=True)
class Account:
    login: str
    password: str


@dataclass(frozen=True)
class OAuthApp:
    id: int
    client_id: str
    client_secret: str


class LiveGitea:
    def __init__(self, url: str, admin_token: str) -> None:
        self.url = url.rstrip("/")
        self.session = requests.Session()
        self.session.trust_env = False
        self.session.headers["Authorization"] = f"token {admin_token}"

    @classmethod
    def from_env(cls) -> LiveGitea:
        return cls(os.environ["GITEA_SIGNIN_URL"], os.environ["GITEA_SIGNIN_ADMIN_TOKEN"])

    def _call(self, method: str, path: str, **body: Any) -> Any:
        answer = self.session.request(method, f"{self.url}/api/v1{path}", json=body or None, timeout=30)
        assert answer.ok, f"{method} {path} answered {answer.status_code}: {answer.text[:200]}"
        return answer.json() if answer.content else None

    def user(self, prefix: str = "signin-e2e") -> Account:
        account = Account(f"{prefix}-{secrets.token_hex(3)}", secrets.token_urlsafe(16))
        self._call(
            "POST", "/admin/users", username=account.login, password=account.password,
            email=f"{account.login}@example.com", must_change_password=False,
        )  # fmt: skip
        return account

    def delete_user(self, account: Account) -> None:
        self.session.delete(f"{self.url}/api/v1/admin/users/{account.login}?purge=true", timeout=30)

    def app(self, redirect_uris: list[str], confidential: bool = False, name: str = "signin-e2e") -> OAuthApp:
        made = self._call(
            "POST", "/user/applications/oauth2", name=f"{name}-{secrets.token_hex(3)}",
            redirect_uris=redirect_uris, confidential_client=confidential,
        )  # fmt: skip
        return OAuthApp(made["id"], made["client_id"], made["client_secret"])

    def delete_app(self, app: OAuthApp) -> None:
        self.session.delete(f"{self.url}/api/v1/user/applications/oauth2/{app.id}", timeout=30)

    def repo_with_issue(self, account: Account, title: str) -> str:
        """A repository of the account's with one issue filed by it; the repository's name."""
        name = f"signin-e2e-{secrets.token_hex(3)}"
        self._call("POST", f"/admin/users/{account.login}/repos", name=name, private=True)
        answer = self.session.post(
            f"{self.url}/api/v1/repos/{account.login}/{name}/issues", json={"title": title},
            headers={"Sudo": account.login}, timeout=30,
        )  # fmt: skip
        assert answer.status_code == 201, f"filing the issue answered {answer.status_code}: {answer.text[:200]}"
        return name

    def revoke_grants(self, account: Account) -> list[str]:
        """Revoke every OAuth2 application the account authorized, as the user does in Gitea's web UI (Settings,
        Applications, "Authorized OAuth2 Applications", Revoke); the revoke URLs posted. There is no API for it.
        Each Revoke button names its URL (Gitea 1.25: /user/settings/applications/oauth2/{app}/revoke/{grant})."""
        web = requests.Session()
        web.trust_env = False
        page = web.get(f"{self.url}/user/login", timeout=30)
        form = {"user_name": account.login, "password": account.password, "_csrf": _csrf(page.text)}
        signed_in = web.post(f"{self.url}/user/login", data=form, allow_redirects=False, timeout=30)
        assert signed_in.status_code == 303, f"signing in to Gitea's web UI answered {signed_in.status_code}"
        settings = web.get(f"{self.url}/user/settings/applications", timeout=30)
        revokes = sorted(set(re.findall(r'data-url="(/[^"]*/revoke/\d+)"', settings.text)))
        for path in revokes:
            revoked = web.post(f"{self.url}{path}", data={"_csrf": _csrf(settings.text)}, timeout=30)
            assert revoked.ok, f"POST {path} answered {revoked.status_code}: {revoked.text[:200]}"
        return revokes


def _csrf(page: str) -> str:
    found = re.search(r'name="_csrf" value="([^"]+)"', page) or re.search(r"csrfToken: '([^']+)'", page)
    assert found, "Gitea's page carries no _csrf"
    return found[1]
