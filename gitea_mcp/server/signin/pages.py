"""The two pages a person sees here: the consent page (which client, which redirect, which scopes; Approve or
Deny) and the error page for a request that must not be redirected anywhere (an unknown client, a redirect URI
not registered). Every value is escaped; nothing runs on them (no script at all), no other site may frame them,
and none is cached.
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from gitea_mcp.server.signin.clients import ascii_host, unicode_host

HEADERS = {
    # No form-action: browsers apply it to the redirects after the post too (to Gitea, to the client's URI).
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Referrer-Policy": "same-origin",  # no-referrer would make the form's Origin "null"
    "X-Content-Type-Options": "nosniff",
}
_STYLE = "body{font:16px system-ui,sans-serif;max-width:34em;margin:3em auto;padding:0 1em}button{font:inherit}"


def _page(title: str, body: str, status: int) -> HTMLResponse:
    html = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width"><style>{_STYLE}</style></head>'
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def shown_url(url: str, *, origin: bool = False) -> str:
    """A URL (its origin alone with `origin`) as the consent page shows it: its host in ASCII, punycode for an
    internationalised one, so a look-alike reads as the other host it is; the Unicode form follows in brackets only
    when it differs. Plain text, to be escaped."""
    parts = urlsplit(url)
    if not parts.netloc:
        return f"{parts.scheme}:" if origin else url
    host = parts.hostname or ""
    ascii_form = ascii_host(host) or ascii(host)  # never the look-alike bare; check_redirect refuses such hosts
    bracketed = f"[{ascii_form}]" if ":" in ascii_form else ascii_form
    port = f":{parts.port}" if parts.port is not None else ""
    rest = "" if origin else url[len(f"{parts.scheme}://{parts.netloc}") :]
    written = f"{parts.scheme}://{bracketed}{port}{rest}"
    readable = unicode_host(ascii_form)
    if readable == ascii_form:
        return written
    return f"{written} (in Unicode: {parts.scheme}://{readable}{port}{rest})"


def consent(*, client: str, redirect: str, scopes: list[str], gitea: str, pending: str) -> HTMLResponse:
    target = shown_url(redirect, origin=True)
    items = "".join(f"<li><code>{escape(scope)}</code></li>" for scope in scopes)
    body = (
        f"<p><strong>{escape(client)}</strong> asks to use your Gitea account at {escape(shown_url(gitea))} "
        f"through this server, with these scopes:</p><ul>{items}</ul>"
        f"<p>Approving sends you to Gitea to sign in; the client then gets a token for this server, delivered to "
        f"<code>{escape(target)}</code>. It never gets your Gitea token.</p>"
        '<form method="post" action="/authorize">'
        f'<input type="hidden" name="pending" value="{escape(pending)}">'
        '<button id="approve" name="decision" value="approve" type="submit">Approve</button> '
        '<button id="deny" name="decision" value="deny" type="submit">Deny</button>'
        "</form><p>Approve only a client you are setting up yourself right now.</p>"
    )
    return _page("Sign in to gitea-issues-mcp", body, 200)


def error(reason: str, status: int = 400) -> HTMLResponse:
    body = (
        f"<p>{escape(reason)}.</p><p>The sign-in was stopped here, and you were not sent anywhere. Start it again "
        "from your MCP client; if this repeats, tell the client's developer or the server's operator.</p>"
    )
    return _page("Sign-in stopped", body, status)
