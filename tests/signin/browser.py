"""The browser user: Debian's chromium, headless, driven by Playwright for Python, signs in and consents.

`sign_in` opens an authorization URL and clicks through whatever comes: our consent page (`#approve`), Gitea's
sign-in form, Gitea's consent page (`#authorize-app`, skipped by Gitea when consent was given before), until the
browser is sent to the client's loopback redirect. It stops there and returns that URL. The request is let through
to the client's own loopback listener (as a real browser would), unless `intercept` answers it in the browser (for
a check with no listener behind the redirect). Playwright's own browser download cannot work here, hence
`executable_path`.
"""

from __future__ import annotations

import os
import shutil
import time

CHROMIUM = os.environ.get("GITEA_SIGNIN_CHROMIUM", "/usr/bin/chromium")
# Real Gitea 1.25.4's sign-in button; the stand-in's form has a bare submit button.
SUBMIT = "form.ui.form button.ui.primary.button, form.ui.form button[type=submit]"


def unavailable() -> str | None:
    """Why the browser user cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]'): the browser sign-in was not run"
    if shutil.which(CHROMIUM) is None:
        return f"no chromium at {CHROMIUM} (apt-get install chromium): the browser sign-in was not run"
    return None


class SignInFailed(AssertionError):
    pass


def sign_in(
    authorize_url: str,
    user: str,
    password: str,
    *,
    expect_redirect_prefix: str,
    intercept: bool = False,
    seconds: float = 30.0,
) -> str:
    """Sign in and consent from `authorize_url`; the URL the browser was finally sent to (it starts with
    `expect_redirect_prefix`). Raises SignInFailed naming the page it was stuck on after `seconds`."""
    from playwright.sync_api import Request, Route, sync_playwright

    reached: list[str] = []

    def seen(request: Request) -> None:
        if request.url.startswith(expect_redirect_prefix) and request.is_navigation_request() and not reached:
            reached.append(request.url)

    def answer(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body="<p>Signed in; you may close this window.</p>")

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
        try:
            page = browser.new_page()
            page.set_default_timeout(seconds * 1000)
            page.on("request", seen)
            if intercept:
                page.route(lambda url: url.startswith(expect_redirect_prefix), answer)
            page.goto(authorize_url, wait_until="commit")
            deadline = time.monotonic() + seconds
            clicked: list[str] = []  # each step once: a page that comes back means the step did not take
            while not reached:
                if time.monotonic() > deadline:
                    text = page.locator("body").inner_text(timeout=1000) if page.url.startswith("http") else ""
                    raise SignInFailed(f"sign-in stuck after {clicked} at {page.url}: {' '.join(text.split())[:300]}")
                step = _step(page, user, password, clicked)
                if step:
                    clicked.append(step)
                else:
                    page.wait_for_timeout(100)
            return reached[0]
        finally:
            browser.close()


def _step(page: object, user: str, password: str, clicked: list[str]) -> str | None:
    """Do what the page in front of the user asks, once; the step's name, or None when nothing is there yet."""
    from playwright.sync_api import Error, Page

    assert isinstance(page, Page)
    try:
        if page.locator("#approve").count() and "approve" not in clicked:
            page.click("#approve", no_wait_after=True)
            return "approve"
        if page.locator("#user_name").count() and page.locator("#password").count() and "login" not in clicked:
            page.fill("#user_name", user)
            page.fill("#password", password)
            page.locator(SUBMIT).first.click(no_wait_after=True)
            return "login"
        if page.locator("#authorize-app").count() and "authorize-app" not in clicked:
            page.click("#authorize-app", no_wait_after=True)
            return "authorize-app"
    except Error:  # the page navigated away under the click: look again
        return None
    return None
