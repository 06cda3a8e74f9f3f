"""The stand-in as a server: lifecycle, keep-alive, recording, auth and scopes, the small endpoints."""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from gitea_mcp.standin import (
    ALICE_TOKEN,
    DEMO_PUBLIC_TOKEN,
    DEMO_READ_TOKEN,
    DEMO_TOKEN,
    DEMO_USER_TOKEN,
    GITEA_VERSION,
    PROFILES,
    TOKENS,
    StandIn,
)
from tests.standin.conftest import Client

# -- the server --------------------------------------------------------------------------------------


def test_start_returns_the_loopback_base_url_and_stop_refuses_connections() -> None:
    standin = StandIn()
    url = standin.start()
    assert url == standin.url and url.startswith("http://127.0.0.1:") and not url.endswith("/")
    session = requests.Session()
    assert session.get(f"{url}/api/v1/version", timeout=5).status_code == 200
    standin.stop()
    # The pooled keep-alive connection is cut too: no handler thread answers after stop().
    with pytest.raises(requests.ConnectionError):
        session.get(f"{url}/api/v1/version", timeout=5)
    standin.stop()  # idempotent


def test_refuses_to_bind_anything_but_loopback() -> None:
    with pytest.raises(ValueError, match=r"127\.0\.0\.1"):
        StandIn().start(host="0.0.0.0")


def test_keep_alive_round_trips_are_fast(reader: Client) -> None:
    # Without TCP_NODELAY and a single write per answer, each round trip would cost ~40 ms.
    reader.get("/version")
    started = time.perf_counter()
    for _ in range(50):
        assert reader.get("/repos/acme/widgets/issues/1").status_code == 200
    assert time.perf_counter() - started < 1.0


def test_latency_is_added_to_every_request_and_settable_at_runtime(fresh: Client) -> None:
    fresh.standin.latency = 0.2
    started = time.perf_counter()
    fresh.get("/version")
    assert time.perf_counter() - started >= 0.2
    fresh.standin.latency = 0.0
    started = time.perf_counter()
    fresh.get("/version")
    assert time.perf_counter() - started < 0.2


def test_every_request_is_recorded_in_order(fresh: Client) -> None:
    fresh.get("/repos/acme/widgets/issues", state="all", labels="good first issue")
    fresh.call("POST", "/repos/acme/widgets/issues", json={"title": "Recorded request body here"})
    fresh.call("GET", "/repos/acme/widgets%2Fx/issues", token="bad-token")
    first, second, third = fresh.standin.requests
    assert (first.method, first.path, first.body, first.authorized_as) == (
        "GET",
        "/api/v1/repos/acme/widgets/issues",
        None,
        "demo",
    )
    assert first.query == {"state": ["all"], "labels": ["good first issue"]}
    assert second.method == "POST" and second.body == {"title": "Recorded request body here"}
    assert (
        third.raw_path == "/api/v1/repos/acme/widgets%2Fx/issues"
        and third.path == "/api/v1/repos/acme/widgets/x/issues"
    )
    assert third.authorized_as is None
    fresh.standin.clear_requests()
    assert fresh.standin.requests == []


def test_head_answers_headers_only(reader: Client) -> None:
    get = reader.get("/repos/acme/widgets/issues")
    head = reader.call("HEAD", "/repos/acme/widgets/issues")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["Content-Length"] == get.headers["Content-Length"]
    assert head.headers["X-Total-Count"] == get.headers["X-Total-Count"]


@pytest.mark.parametrize(
    ("method", "path", "status", "body"),
    [
        ("GET", "/nope", 404, b"404 page not found\n"),
        ("GET", "/repos/acme/widgets/nope", 404, b"404 page not found\n"),
        ("DELETE", "/version", 405, b""),
    ],
)
def test_unknown_routes_answer_as_gitea_s_router(
    reader: Client, method: str, path: str, status: int, body: bytes
) -> None:
    """Not a handler's JSON error: the router's plain-text 404 and bare 405 (verified on Gitea 1.22–1.25, Forgejo)."""
    response = reader.call(method, path)
    assert (response.status_code, response.content) == (status, body)


def test_outside_the_api_is_404(reader: Client) -> None:
    assert reader.session.get(f"{reader.standin.url}/acme/widgets", timeout=5).status_code == 404


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
@pytest.mark.parametrize(
    "before_start",
    # A shell's background job (`python -m gitea_mcp.standin &`) starts with SIGINT ignored, and Python keeps an
    # inherited SIG_IGN: the stand-in must still stop on Ctrl-C.
    [None, _ignore_sigint],
    ids=["from a terminal", "sigint ignored by the parent, as in a background job"],
)
def test_main_serves_until_interrupted_and_prints_url_and_tokens_to_stderr(
    before_start: Callable[[], None] | None,
) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "gitea_mcp.standin", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=before_start,
    )
    try:
        assert process.stderr is not None
        banner = [process.stderr.readline() for _ in range(1 + len(TOKENS))]
        url = banner[0].split(" at ")[1].split()[0]
        assert requests.get(f"{url}/api/v1/version", timeout=5).json() == {"version": GITEA_VERSION}
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=10)
    finally:
        process.kill()
    assert out == ""
    assert all(token in "".join(banner) for token in TOKENS.values())
    assert process.returncode == 0


# -- misc endpoints ----------------------------------------------------------------------------------------


def test_version_and_api_settings(reader: Client) -> None:
    assert reader.json("/version", token=None) == {"version": GITEA_VERSION}
    settings = reader.json("/settings/api", token=None)
    assert (settings["max_response_items"], settings["default_paging_num"]) == (50, 30)


def test_user_is_the_tokens_user(reader: Client) -> None:
    assert reader.json("/user")["login"] == "demo"
    assert reader.json("/user", token=ALICE_TOKEN)["login"] == "alice"


@pytest.mark.parametrize(
    ("path", "status", "key", "value"),
    [
        ("/users/alice", 200, "login", "alice"),
        ("/users/ALICE", 200, "login", "alice"),
        ("/users/acme", 200, "login", "acme"),  # an organisation is a user too
        ("/users/nobody", 404, "message", "user redirect does not exist [name: nobody]"),
        ("/orgs/acme", 200, "username", "acme"),
        ("/orgs/Acme", 200, "name", "acme"),
        ("/orgs/alice", 404, "message", "not found"),  # a user is not an organisation
        ("/orgs/nobody", 404, "message", "not found"),
    ],
)
def test_users_and_orgs(reader: Client, path: str, status: int, key: str, value: str) -> None:
    response = reader.get(path)
    assert response.status_code == status
    assert response.json()[key] == value


# -- auth and scopes -----------------------------------------------------------------------------------------


def _basic(token: str) -> str:
    return "Basic " + base64.b64encode(f"demo:{token}".encode()).decode()


@pytest.mark.parametrize(
    "header", [f"token {DEMO_TOKEN}", f"Bearer {DEMO_TOKEN}", f"bearer {DEMO_TOKEN}", _basic(DEMO_TOKEN)]
)
def test_token_in_any_header_form(reader: Client, header: str) -> None:
    response = reader.session.get(f"{reader.standin.url}/api/v1/user", headers={"Authorization": header}, timeout=5)
    assert response.status_code == 200 and response.json()["login"] == "demo"


@pytest.mark.parametrize("path", ["/version", "/repos/acme/widgets/issues", "/repos/issues/search"])
def test_a_bad_token_is_401_everywhere(reader: Client, path: str) -> None:
    response = reader.get(path, token="0000000000000000000000000000000000000000")
    assert response.status_code == 401
    assert response.json()["message"] == "invalid username, password or token"


@pytest.mark.parametrize(
    ("method", "path", "token", "status", "message"),
    [
        ("GET", "/user", None, 401, "token is required"),
        ("POST", "/repos/acme/widgets/issues", None, 401, "token is required"),
        (
            "POST",
            "/repos/acme/widgets/issues",
            DEMO_READ_TOKEN,
            403,
            "token does not have at least one of required scope(s), required=[write:issue], token scope=read:issue",
        ),
        (
            "GET",
            "/repos/acme/widgets/issues",
            DEMO_USER_TOKEN,
            403,
            "token does not have at least one of required scope(s), required=[read:issue], token scope=read:user",
        ),
        # The scope is checked before the repository is looked up.
        (
            "GET",
            "/repos/acme/no-such-repo/issues",
            DEMO_USER_TOKEN,
            403,
            "token does not have at least one of required scope(s), required=[read:issue], token scope=read:user",
        ),
        (
            "GET",
            "/user",
            DEMO_READ_TOKEN,
            403,
            "token does not have at least one of required scope(s), required=[read:user], token scope=read:issue",
        ),
        ("GET", "/repos/other/secret/issues", DEMO_PUBLIC_TOKEN, 403, "token scope is limited to public issues"),
        (
            "GET",
            "/repos/other/secret",
            DEMO_PUBLIC_TOKEN,
            403,
            "token does not have at least one of required scope(s), required=[read:repository], "
            "token scope=public-only,write:issue,read:user",
        ),
        # Private repositories are invisible to those who cannot read them: 404, not 401 or 403.
        ("GET", "/repos/other/secret/issues", None, 404, "not found"),
        ("GET", "/repos/other/secret/issues", ALICE_TOKEN, 404, "not found"),
        ("GET", "/repos/demo/notes/labels", ALICE_TOKEN, 404, "not found"),
        ("GET", "/repos/acme/nope/issues", DEMO_TOKEN, 404, "not found"),
        ("GET", "/repos/nobody/widgets/issues", DEMO_TOKEN, 404, "not found"),
    ],
)
def test_auth_errors(reader: Client, method: str, path: str, token: str | None, status: int, message: str) -> None:
    response = reader.call(method, path, token, json={"title": "Scoped write attempt in a test"})
    assert response.status_code == status
    assert response.json() == {"message": message, "url": f"{reader.standin.url}/api/swagger"}


@pytest.mark.parametrize(
    ("path", "token"),
    [
        ("/repos/acme/widgets/issues", None),  # public repositories are readable anonymously
        ("/repos/other/secret/issues", DEMO_TOKEN),
        ("/repos/demo/notes/issues", DEMO_TOKEN),
        ("/repos/acme/widgets/issues", DEMO_READ_TOKEN),
        ("/repos/acme/widgets/issues", DEMO_PUBLIC_TOKEN),
    ],
)
def test_reads_allowed(reader: Client, path: str, token: str | None) -> None:
    assert reader.get(path, token).status_code == 200


# -- repositories -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/repos/acme/widgets", "/repos/ACME/Widgets", "/repos/Acme/WIDGETS"])
def test_repository_names_are_case_insensitive(reader: Client, path: str) -> None:
    repo = reader.json(path)
    assert (repo["full_name"], repo["private"]) == ("acme/widgets", False)
    assert repo["permissions"] == {"admin": True, "push": True, "pull": True}


def test_repository_permissions_follow_the_caller(reader: Client) -> None:
    assert reader.json("/repos/acme/widgets", token=None)["permissions"] == {
        "admin": False,
        "push": False,
        "pull": True,
    }
    assert reader.json("/repos/other/secret")["permissions"] == {"admin": False, "push": True, "pull": True}


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/repos/acme/old-widgets", "/api/v1/repos/acme/widgets"),
        (
            "/repos/acme/old-widgets/issues?state=all&labels=bug",
            "/api/v1/repos/acme/widgets/issues?state=all&labels=bug",
        ),
        ("/repos/ACME/Old-Widgets/issues/5/comments", "/api/v1/repos/acme/widgets/issues/5/comments"),
    ],
)
def test_a_renamed_repository_redirects_keeping_path_and_query(reader: Client, path: str, location: str) -> None:
    response = reader.session.get(f"{reader.standin.url}/api/v1{path}", allow_redirects=False, timeout=5)
    assert response.status_code == 301  # Gitea's RedirectToRepo: permanent from Gitea 1.23.7
    assert response.headers["Location"] == location
    assert response.text.startswith(f'<a href="{location.replace("&", "&amp;")}">Moved Permanently</a>.')


def test_a_redirected_write_keeps_its_method_up_to_gitea_1_23_6() -> None:
    """A 307 (Gitea up to 1.23.6, Forgejo 11) makes the client re-send the write to the new name."""
    with StandIn(profile=PROFILES["gitea-1.22"]) as standin:
        response = requests.post(
            f"{standin.url}/api/v1/repos/acme/old-widgets/issues",
            json={"title": "Filed against the old repository name"},
            headers={"Authorization": f"token {DEMO_TOKEN}"},
            timeout=5,
        )
        assert [r.status_code for r in response.history] == [307]
        assert response.status_code == 201
        assert response.json()["repository"]["full_name"] == "acme/widgets"


def test_concurrent_clients_are_all_served_and_recorded(fresh: Client) -> None:
    def worker(_: int) -> list[int]:
        session = requests.Session()
        url = f"{fresh.standin.url}/api/v1/repos/acme/widgets/issues/1"
        return [session.get(url, timeout=10).status_code for _ in range(20)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = [status for batch in pool.map(worker, range(8)) for status in batch]
    assert statuses == [200] * 160
    assert len(fresh.standin.requests) == 160


# -- chunked answers, as Gitea's Go server sends them ------------------------------------------------------


def _raw_get(url: str, path: str) -> tuple[dict[str, str], bytes]:
    """The head and the body bytes exactly as they came (no HTTP library to undo the framing)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: token {DEMO_TOKEN}\r\n"
                     "Connection: close\r\n\r\n".encode())  # fmt: skip
        received = b"".join(iter(lambda: sock.recv(65536), b""))
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")[1:]
    return {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}, body


@pytest.mark.parametrize(
    ("path", "framing"),
    [
        ("/api/v1/repos/acme/widgets/issues?limit=50", "chunked"),  # tens of KB: chunks
        ("/api/v1/version", "length"),  # within Go's buffer: a Content-Length, as Go sets for a short answer
    ],
)
def test_chunked_mode_frames_bodies_as_gos_server(path: str, framing: str) -> None:
    with StandIn() as standin:
        _, expected = _raw_get(standin.url, path)
        standin.chunked = True
        headers, body = _raw_get(standin.url, path)
    if framing == "length":
        assert "transfer-encoding" not in headers and body == expected
        return
    assert headers["transfer-encoding"] == "chunked" and "content-length" not in headers
    sizes, pieces = [], []
    while True:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        sizes.append(size)
        pieces.append(body[:size])
        assert body[size : size + 2] == b"\r\n"
        body = body[size + 2 :]
        if size == 0:
            break
    assert body == b"" and b"".join(pieces) == expected
    assert len(sizes) > 3 and set(sizes[:-2]) == {2048} and 0 < sizes[-2] <= 2048 and sizes[-1] == 0
