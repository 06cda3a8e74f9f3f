"""pages: the consent and error pages escape every value they show, forbid framing, scripts and caching, and are
compared whole with golden/; regenerate deliberately with `UPDATE_GOLDEN=1 pytest tests/server/signin/test_pages.py`
and review the diff."""

from __future__ import annotations

import os
from collections.abc import Callable
from html import escape
from pathlib import Path

import pytest
from starlette.responses import HTMLResponse

from gitea_mcp.server.signin import pages

GOLDEN = Path(__file__).parent / "golden"
SCRIPT = "<script>alert('x')</script>"
NAME = f'Evil "App" {SCRIPT}'
REDIRECT = 'https://evil.example"onmouseover="alert(1)/cb'
SCOPE = f"read:issue{SCRIPT}"
GITEA = 'https://gitea.example/"><img src=x>'
PENDING = 'gmcp.p."><input name="evil" value="approve">'


def consent(**changes: str) -> HTMLResponse:
    values = {"client": "Claude Code", "redirect": "http://127.0.0.1:33418/callback", "gitea": "https://gitea.example",
              "pending": "gmcp.p.sealed-request", **changes}  # fmt: skip
    return pages.consent(scopes=["read:issue", "write:issue"], **values)


def text(page: HTMLResponse) -> str:
    return bytes(page.body).decode("utf-8")


HOSTILE = [
    ("client", NAME, [NAME, SCRIPT], escape(NAME)),
    ("redirect", REDIRECT, ['"onmouseover="'], escape('https://evil.example"onmouseover="alert(1)')),
    ("gitea", GITEA, ['"><img', "<img src=x>"], escape(GITEA)),
    ("pending", PENDING, ['"><input name="evil"', '<input name="evil" value="approve">'], escape(PENDING)),
]


@pytest.mark.parametrize(("field", "value", "raw", "escaped"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_the_consent_page_escapes_what_it_shows(field: str, value: str, raw: list[str], escaped: str) -> None:
    html = text(consent(**{field: value}))
    assert escaped in html
    for piece in raw:
        assert piece not in html, f"{piece!r} reached the page unescaped"


def test_the_consent_page_escapes_scopes() -> None:
    html = text(pages.consent(client="c", redirect="https://a.example/cb", scopes=[SCOPE], gitea="g", pending="p"))
    assert escape(SCOPE) in html and SCRIPT not in html


def test_the_error_page_escapes_its_reason() -> None:
    html = text(pages.error(f"client {NAME} is unknown"))
    assert escape(NAME) in html and SCRIPT not in html and NAME not in html


def test_no_page_runs_a_script() -> None:
    assert "<script" not in text(consent()) + text(pages.error("stopped"))


PAGES: list[tuple[str, Callable[[], HTMLResponse], int]] = [
    ("consent", consent, 200),
    ("error", lambda: pages.error("the client ID is not one this server registered"), 400),
    ("error-404", lambda: pages.error("no such sign-in", 404), 404),
]


@pytest.mark.parametrize(("name", "make", "status"), PAGES, ids=[p[0] for p in PAGES])
def test_every_page_forbids_framing_scripts_and_caching(
    name: str, make: Callable[[], HTMLResponse], status: int
) -> None:
    page = make()
    assert page.status_code == status
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy and "script-src" not in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["content-type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize(
    ("name", "make"),
    [("consent", consent), ("consent-hostile", lambda: consent(client=NAME, redirect=REDIRECT, pending=PENDING)),
     ("error", lambda: pages.error(f"client {NAME} is unknown"))],
)  # fmt: skip
def test_the_pages_are_the_golden_ones(name: str, make: Callable[[], HTMLResponse]) -> None:
    path = GOLDEN / f"{name}.html"
    html = text(make()) + "\n"  # a text file ends with a newline; the page itself has none
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(html, encoding="utf-8")
    assert path.exists(), f"no golden file for {name}: run UPDATE_GOLDEN=1 pytest tests/server/signin/test_pages.py"
    assert html == path.read_text(encoding="utf-8"), f"{path.name} changed; UPDATE_GOLDEN=1 and review the diff"
