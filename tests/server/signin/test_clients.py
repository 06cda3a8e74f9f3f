"""clients: which redirect URIs a client may register and use, what metadata makes a client, and registration
that keeps nothing (the checked metadata is written into the client ID, and checked again at every use). Client
ID metadata documents: test_documents.py."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from gitea_mcp.server.signin.clients import (
    MAX_NAME,
    MAX_REDIRECTS,
    MAX_URI,
    REGISTERED,
    BadClient,
    Client,
    Clients,
    check_redirect,
    from_metadata,
    matches,
    register,
)

NOW = 1_800_000_000.0


def no_document(url: str) -> Client:
    raise AssertionError(f"nothing may be fetched here ({url})")


def clients() -> Clients:
    return Clients(no_document)


def one_sentence(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message and "Traceback" not in message, message
    return message


# -- matches: exact, except a loopback redirect URI may use any port (RFC 8252 §7.3) ---------------------------

MATCHES = [
    ("https://app.example/cb", "https://app.example/cb", True),
    ("https://app.example/cb", "https://app.example:8443/cb", False),  # https: never any port
    ("https://app.example/cb", "https://app.example/cb?x=1", False),
    ("https://app.example/cb", "https://app.example/cb/", False),
    ("com.example.app:/cb", "com.example.app:/cb", True),
    ("com.example.app:/cb", "com.example.app:/cb2", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:5555/cb", True),
    ("http://127.0.0.1:8080/cb", "http://127.0.0.1:5555/cb", True),
    ("http://127.0.0.1:8080/cb", "http://127.0.0.1/cb", True),
    ("http://[::1]/cb", "http://[::1]:5555/cb", True),
    ("http://localhost/cb", "http://localhost:5555/cb", True),
    ("http://localhost/cb", "http://LOCALHOST:5555/cb", True),  # host names are case-insensitive
    ("http://127.0.0.1/cb?a=1", "http://127.0.0.1:5555/cb?a=1", True),
    ("http://127.0.0.1/cb", "http://localhost:5555/cb", False),  # another loopback name is another host
    ("http://127.0.0.1/cb", "http://[::1]:5555/cb", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:5555/other", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:5555/cb/", False),
    ("http://127.0.0.1/cb?a=1", "http://127.0.0.1:5555/cb?a=2", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:5555/cb?a=1", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:5555/cb#frag", False),  # only the port is free, not a fragment
    ("http://127.0.0.1/cb", "https://127.0.0.1:5555/cb", False),
    ("http://127.0.0.1/cb", "http://user@127.0.0.1:5555/cb", False),
    ("http://127.0.0.1/cb", "http://:pw@127.0.0.1:5555/cb", False),
    ("http://127.0.0.1/cb", "http://user:pw@127.0.0.1/cb", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:port/cb", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1:99999/cb", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1.evil.example:5555/cb", False),
    ("http://127.0.0.2/cb", "http://127.0.0.2:5555/cb", False),  # loopback means the three names, no more
    ("http://app.example/cb", "http://app.example:81/cb", False),  # plain http elsewhere: never any port
]


@pytest.mark.parametrize(("registered", "asked", "expected"), MATCHES)
def test_matches(registered: str, asked: str, expected: bool) -> None:
    assert matches(registered, asked) is expected


def test_a_client_uses_its_only_redirect_uri_when_none_is_asked() -> None:
    client = Client("id", "App", ("https://app.example/cb",), "registered")
    assert client.redirect_for(None) == "https://app.example/cb"
    assert client.redirect_for("https://app.example/cb") == "https://app.example/cb"


@pytest.mark.parametrize(
    ("uris", "asked", "said"),
    [
        (("https://app.example/a", "https://app.example/b"), None, "send redirect_uri"),
        (("https://app.example/cb",), "https://evil.example/cb", "is not one this client registered"),
        (("http://127.0.0.1/cb",), "http://127.0.0.1:5555/cb#x", "is not one this client registered"),
    ],
)
def test_a_redirect_the_client_did_not_register_is_refused(uris: tuple[str, ...], asked: str | None, said: str) -> None:
    with pytest.raises(BadClient, match=said) as caught:
        Client("id", "App", uris, "registered").redirect_for(asked)
    one_sentence(caught.value)


# -- check_redirect: what may be registered ----------------------------------------------------------------------

GOOD_REDIRECTS = [
    "https://app.example/cb",
    "https://app.example:8443/cb?x=1",
    "http://127.0.0.1:5555/callback",
    "http://127.0.0.1/callback",
    "http://[::1]:5555/callback",
    "http://localhost:5555/callback",
    "com.example.app:/cb",
    "cursor://anysphere.cursor-retrieval/oauth/callback",
    "vscode://vscode.github-authentication/did-authenticate",
]


@pytest.mark.parametrize("uri", GOOD_REDIRECTS)
def test_check_redirect_takes(uri: str) -> None:
    assert check_redirect(uri) == uri


BAD_REDIRECTS: list[tuple[object, str]] = [
    ("javascript:alert(1)", "a browser would run"),
    ("JavaScript:alert(1)", "a browser would run"),
    ("data:text/html,<script>alert(1)</script>", "a browser would run"),
    ("file:///etc/passwd", "a browser would run"),
    ("vbscript:msgbox", "a browser would run"),
    ("about:blank", "a browser would run"),
    ("/callback", "no scheme"),
    ("https://app.example/cb#x", "fragment"),
    ("https://app.example/cb#", "fragment"),
    ("com.example.app:/cb#x", "fragment"),
    ("https://user:pw@app.example/cb", "user name or password"),
    ("https://user@app.example/cb", "user name or password"),
    ("http://127.0.0.1:pw@/cb", "user name or password"),
    ("http://evil.example/cb", "not loopback"),
    ("http://127.0.0.1.evil.example/cb", "not loopback"),
    ("http://10.0.0.1/cb", "not loopback"),
    ("https:///cb", "no host"),
    ("https://app.example:port/cb", "not a number"),
    ("http://127.0.0.1:99999/cb", "not a number"),
    ("https://app.example/" + "a" * MAX_URI, f"at most {MAX_URI}"),
    ("https://app.example/c b", f"at most {MAX_URI}"),
    ("https://app.example/cb\n", f"at most {MAX_URI}"),
    ("", f"at most {MAX_URI}"),
    (None, f"at most {MAX_URI}"),
    (42, f"at most {MAX_URI}"),
    (["https://app.example/cb"], f"at most {MAX_URI}"),
]


@pytest.mark.parametrize(("uri", "said"), BAD_REDIRECTS, ids=[repr(uri)[:60] for uri, _ in BAD_REDIRECTS])
def test_check_redirect_refuses(uri: object, said: str) -> None:
    with pytest.raises(BadClient, match=said) as caught:
        check_redirect(uri)
    message = one_sentence(caught.value)
    assert "a" * 200 not in message, "a long URI is cut short in the message"


# -- from_metadata -----------------------------------------------------------------------------------------------

URI = "https://app.example/cb"


@pytest.mark.parametrize(
    ("metadata", "kind", "said"),
    [
        ([], "registered", "JSON object"),
        ("redirect_uris", "registered", "JSON object"),
        ({}, "registered", f"1 to {MAX_REDIRECTS} redirect_uris"),
        ({"redirect_uris": []}, "registered", f"1 to {MAX_REDIRECTS} redirect_uris"),
        ({"redirect_uris": URI}, "registered", f"1 to {MAX_REDIRECTS} redirect_uris"),
        ({"redirect_uris": [URI] * (MAX_REDIRECTS + 1)}, "registered", f"1 to {MAX_REDIRECTS} redirect_uris"),
        ({"redirect_uris": [URI], "grant_types": ["client_credentials"]}, "registered", "authorization_code"),
        ({"redirect_uris": [URI], "grant_types": ["refresh_token"]}, "registered", "authorization_code"),
        ({"redirect_uris": [URI], "grant_types": []}, "registered", "authorization_code"),
        ({"redirect_uris": [URI], "grant_types": "authorization_code"}, "registered", "authorization_code"),
        ({"redirect_uris": [URI, "http://evil.example/cb"]}, "registered", "not loopback"),
        (
            {"redirect_uris": [URI], "token_endpoint_auth_method": "client_secret_basic"},
            "metadata document",
            "public client",
        ),
    ],
)
def test_from_metadata_refuses(metadata: Any, kind: str, said: str) -> None:
    with pytest.raises(BadClient, match=said) as caught:
        from_metadata(metadata, "id", kind)
    one_sentence(caught.value)


@pytest.mark.parametrize("count", [1, MAX_REDIRECTS])
def test_from_metadata_takes_one_to_the_most_redirect_uris(count: int) -> None:
    uris = [f"https://app.example/cb{n}" for n in range(count)]
    client = from_metadata({"redirect_uris": uris}, "id", "registered")
    assert client.redirect_uris == tuple(uris) and client.kind == "registered"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (None, "an unnamed client"),
        ("", "an unnamed client"),
        ("   ", "an unnamed client"),
        (42, "an unnamed client"),
        ("  Claude Code  ", "Claude Code"),
        ("x" * (MAX_NAME + 50), "x" * MAX_NAME),
    ],
)
def test_from_metadata_names_the_client(name: object, shown: str) -> None:
    metadata: dict[str, Any] = {"redirect_uris": [URI]}
    if name is not None:
        metadata["client_name"] = name
    assert from_metadata(metadata, "id", "registered").name == shown


def test_a_registered_client_may_ask_for_a_confidential_method_and_is_answered_none() -> None:
    metadata = {"redirect_uris": [URI], "token_endpoint_auth_method": "client_secret_post"}
    _, answer = register(metadata, NOW)
    assert answer["token_endpoint_auth_method"] == "none"


# -- register and find: nothing kept ----------------------------------------------------------------------------


def test_registration_writes_the_client_into_its_id_and_keeps_nothing() -> None:
    uris = ["http://127.0.0.1/callback", "cursor://anysphere.cursor-retrieval/oauth/callback"]
    client, answer = register({"client_name": "Cursor", "redirect_uris": uris}, NOW)
    assert answer == {
        "client_id": client.client_id,
        "client_id_issued_at": int(NOW),
        "client_name": "Cursor",
        "redirect_uris": uris,
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    # A fresh Clients (another replica, a restart, another key after a rotation) knows the client all the same.
    found = clients().find(answer["client_id"])
    assert found == Client(answer["client_id"], "Cursor", tuple(uris), "registered")
    assert found.redirect_for("http://127.0.0.1:4321/callback") == "http://127.0.0.1:4321/callback"


def test_clients_holds_no_state_of_its_own() -> None:
    assert Clients.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert set(Clients.__dataclass_fields__) == {"documents"}  # kept documents: documents.Documents, bounded


def _written(claims: object) -> str:
    """A client ID as /register writes one, around any JSON at all."""
    return REGISTERED + base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("client_id", "said"),
    [
        (None, "names no client_id"),
        ("", "names no client_id"),
        ("gmcp.c.forged", "not one this server registered"),
        ("my-app", "not one this server registered"),
        (_written(["not", "an", "object"]), "not one this server registered"),
        (_written({"n": "App"}), "not one this server registered"),
        (_written({"n": "App", "r": ["javascript:alert(1)"]}), "a browser would run"),
        (_written({"n": "App", "r": ["http://evil.example/cb"]}), "plain http"),
        (_written({"n": "App", "r": []}), "1 to 10 redirect_uris"),
        ("gmcp.c." + "A" * 20_000, "not one this server registered"),
    ],
    ids=[
        "none",
        "empty",
        "forged",
        "unknown",
        "not-an-object",
        "no-redirects",
        "javascript",
        "plain-http",
        "empty-list",
        "huge",
    ],
)
def test_find_refuses_a_client_id_it_would_not_register(client_id: str | None, said: str) -> None:
    with pytest.raises(BadClient, match=said) as caught:
        clients().find(client_id)
    one_sentence(caught.value)
