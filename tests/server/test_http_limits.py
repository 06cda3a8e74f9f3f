"""HTTP limits in-process: the request cap and /healthz, the body's bytes and values, descriptors running out, the
bearer's verdict remembered by hash, the settings' bounds (the real server's behaviour: tests/e2e/test_http_abuse)."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import anyio
import pytest
from pydantic import SecretStr
from starlette.testclient import TestClient

from gitea_mcp.cli.main import parse_args, settings_from
from gitea_mcp.gitea.users import Users
from gitea_mcp.server.bearers import Bearers, Verdict
from gitea_mcp.server.http import (
    MAX_VALUES,
    REFUSED_TOKEN,
    RequireToken,
    caller_key,
    caller_keys,
    listening_socket,
    too_many_values,
)
from gitea_mcp.server.limits import Guarded, Load, exception_handler, limits, plan
from gitea_mcp.settings import ConfigError, Settings

SETTINGS = Settings(url="https://gitea.test", allowed_owners=frozenset({"acme"}), transport="http", max_body=4_096)
LOCAL = "http://127.0.0.1:8000"
AUTH = {"Authorization": "Bearer good-token"}


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse

    body = await Request(scope, receive).body()
    await PlainTextResponse(f"{len(body)} bytes")(scope, receive, send)


def gate(load: Load | None = None, bearers: Bearers | None = None) -> TestClient:
    return TestClient(RequireToken(_echo, SETTINGS, load, bearers), base_url=LOCAL)


def test_a_body_within_the_limit_reaches_the_app_whole() -> None:
    assert gate().post("/mcp", content=b"x" * 4_096, headers=AUTH).text == "4096 bytes"


def test_a_declared_body_over_the_limit_is_413_naming_the_setting() -> None:
    response = gate().post("/mcp", content=b"x" * 4_097, headers=AUTH)
    assert response.status_code == 413 and "GITEA_MCP_MAX_BODY" in response.json()["error"]
    assert response.headers["Connection"] == "close"


def test_a_chunked_body_over_the_limit_is_413() -> None:
    chunks = iter([b"x" * 3_000, b"y" * 3_000])
    response = gate().post("/mcp", content=chunks, headers=AUTH)
    assert response.status_code == 413 and "more than 4,096 bytes" in response.json()["error"]


def test_too_many_json_values_are_refused_braces_in_strings_are_not() -> None:
    bomb = json.dumps({"params": {"x": [{}] * (MAX_VALUES + 1)}}).encode()
    code = json.dumps({"params": {"body": "{[,]}" * MAX_VALUES}}).encode()
    unclosed = b'{"a": "' + b'\\"' * MAX_VALUES  # a string never closed is still a string, and is read once
    assert [anyio.run(too_many_values, body) for body in (bomb, code, unclosed)] == [True, False, False]


def test_the_request_cap_answers_503_and_healthz_says_why() -> None:
    load = Load(limits(SETTINGS.model_copy(update={"max_requests": 2})))
    load.requests = 2  # two requests in flight
    response = gate(load).post("/mcp", content=b"{}", headers=AUTH)
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    assert "GITEA_MCP_MAX_REQUESTS" in response.json()["error"]
    assert "GITEA_MCP_MAX_REQUESTS" in (load.cannot_serve() or "")
    load.requests = 1
    assert load.cannot_serve() is None


def test_one_token_cannot_take_the_last_quarter_of_the_request_slots() -> None:
    """With 4 slots a token holding 3 is refused its 4th, while another token's request still gets in (issue 23, 3)."""
    load = Load(limits(SETTINGS.model_copy(update={"max_requests": 4})))
    gatekeeper = RequireToken(_echo, SETTINGS, load)
    client = TestClient(gatekeeper, base_url=LOCAL)
    load.requests = 3
    gatekeeper.by_caller[caller_key("good-token")] = 3
    mine = client.post("/mcp", content=b"{}", headers=AUTH)
    assert mine.status_code == 503 and mine.headers["Retry-After"] == "1"
    assert mine.json()["error"] == (
        "this user has 3 requests in flight, the most one user may have at once; retry shortly"
    )
    other = client.post("/mcp", content=b"{}", headers={"Authorization": "Bearer other-token"})
    assert other.status_code == 200 and other.text == "2 bytes"
    assert gatekeeper.by_caller == {caller_key("good-token"): 3}


def test_a_tokens_burst_from_before_its_user_was_learnt_still_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests let in while the gate did not yet know whose the token is count against its user once it does: a
    token's burst does not start over at 0 when its user is learnt mid-way (a slow burst then took all 32 slots,
    and another user's call was refused), and two tokens of the user meet under the user's key."""
    users = Users()
    monkeypatch.setattr("gitea_mcp.server.http.USERS", users)
    load = Load(limits(SETTINGS.model_copy(update={"max_requests": 4})))
    gatekeeper = RequireToken(_echo, SETTINGS, load)
    client = TestClient(gatekeeper, base_url=LOCAL)
    load.requests = 3
    gatekeeper.by_caller[caller_key("good-token")] = 3  # let in before its user was known
    users.learn("good-token", 7)
    token_key, user_key = caller_keys("good-token")
    assert user_key == "user:7" and gatekeeper.by_caller == {token_key: 3}
    mine = client.post("/mcp", content=b"{}", headers=AUTH)
    assert mine.status_code == 503, mine.text
    users.learn("second-token", 7)
    gatekeeper.by_caller["user:7"] = 3
    second = client.post("/mcp", content=b"{}", headers={"Authorization": "Bearer second-token"})
    assert second.status_code == 503, second.text
    other = client.post("/mcp", content=b"{}", headers={"Authorization": "Bearer other-token"})
    assert other.status_code == 200 and other.text == "2 bytes"


def test_running_out_of_descriptors_is_one_log_line_and_a_503_for_a_while(caplog: pytest.LogCaptureFixture) -> None:
    now = [100.0]
    load = Load(limits(SETTINGS), clock=lambda: now[0])
    handle = exception_handler(load)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(2_048):  # asyncio's accept loop reports once per attempt
            handle(loop, {"message": "socket.accept() out of system resource", "exception": OSError(24, "EMFILE")})
    finally:
        loop.close()
    lines = [r for r in caplog.records if "out of file descriptors" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0].getMessage() and lines[0].exc_info is None
    assert "out of file descriptors" in (load.cannot_serve() or "")
    now[0] += 6
    assert load.cannot_serve() is None


def test_the_bearer_is_asked_about_once_and_refused_with_a_challenge() -> None:
    asked: list[str] = []

    def ask(token: str) -> Verdict:
        asked.append(token)
        return Verdict.GOOD if token == "good-token" else Verdict.REFUSED

    client = gate(bearers=Bearers(ask))
    assert [client.post("/mcp", content=b"{}", headers=AUTH).status_code for _ in range(3)] == [200] * 3
    wrong = client.post("/mcp", content=b"{}", headers={"Authorization": "token wrong"})
    assert wrong.status_code == 401 and wrong.json()["error"] == REFUSED_TOKEN
    assert 'error="invalid_token"' in wrong.headers["WWW-Authenticate"]
    assert asked == ["good-token", "wrong"]


def test_a_bearer_gitea_could_not_judge_passes_and_is_asked_again() -> None:
    asked: list[str] = []

    def ask(token: str) -> Verdict:
        asked.append(token)
        return Verdict.UNKNOWN

    client = gate(bearers=Bearers(ask))
    assert [client.post("/mcp", content=b"{}", headers=AUTH).status_code for _ in range(2)] == [200, 200]
    assert len(asked) == 2


def test_callers_with_the_same_new_token_share_one_question() -> None:
    asked: list[str] = []

    def ask(token: str) -> Verdict:
        asked.append(token)
        return Verdict.GOOD

    bearers = Bearers(ask)

    async def many() -> list[Verdict]:
        return list(await asyncio.gather(*(bearers.verdict("t") for _ in range(10))))

    assert asyncio.run(many()) == [Verdict.GOOD] * 10 and asked == ["t"]


def test_the_secret_path_is_not_asked_about() -> None:
    settings = SETTINGS.model_copy(update={"token": SecretStr("server"), "http_secret": SecretStr("ops")})

    def ask(token: str) -> Verdict:
        raise AssertionError("the server's own token is not checked per request")

    client = TestClient(RequireToken(_echo, settings, bearers=Bearers(ask)), base_url=LOCAL)
    assert client.post("/mcp", content=b"{}", headers={"X-Gitea-MCP-Secret": "ops"}).status_code == 200


@pytest.mark.parametrize(
    ("env", "phrase"),
    [
        ({"GITEA_MCP_MAX_CONNECTIONS": "0"}, "GITEA_MCP_MAX_CONNECTIONS='0' is not a whole number from 1 to 100,000"),
        ({"GITEA_MCP_MAX_REQUESTS": "lots"}, "GITEA_MCP_MAX_REQUESTS='lots' is not a whole number"),
        ({"GITEA_MCP_MAX_BODY": "100"}, "GITEA_MCP_MAX_BODY='100' is not a whole number from 1,024"),
        ({"GITEA_MCP_HEADER_TIMEOUT": "0"}, "GITEA_MCP_HEADER_TIMEOUT must be a number of seconds above 0"),
        ({"GITEA_MCP_BODY_TIMEOUT": "soon"}, "GITEA_MCP_BODY_TIMEOUT='soon' is not a number of seconds"),
    ],
)
def test_a_doubtful_limit_stops_the_start(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], phrase: str) -> None:
    for key, value in {"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": "acme", **env}.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args([]))
    assert phrase in str(refused.value)


def test_limits_from_flags_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {"GITEA_URL": "https://g.example", "GITEA_ALLOWED_OWNERS": "acme"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GITEA_MCP_MAX_BODY", "2_097_152")
    settings = settings_from(parse_args(["--max-connections", "50", "--header-timeout", "2.5"]))
    assert (settings.max_connections, settings.max_body, settings.header_timeout) == (50, 2_097_152, 2.5)
    assert (settings.max_requests, settings.body_timeout) == (32, 30.0)


def test_the_default_body_limit_fits_the_largest_legitimate_call() -> None:
    """An issue body of 65,536 characters (GitHub's cap; Gitea has none) as the most escaping client writes it
    (every character a \\uXXXX pair of escapes, 12 bytes), plus the longest title Gitea keeps and the envelope."""
    body = "\U0001f600" * 65_536
    arguments = {"owner": "acme", "name": "widgets", "title": "t" * 255, "body": body, "labels": ["bug"] * 50}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "issue_create", "arguments": arguments},
    }
    largest = len(json.dumps(call).encode())  # ensure_ascii: astral characters as two \\u escapes
    assert largest < Settings.model_fields["max_body"].default, f"{largest:,} bytes"


@pytest.mark.parametrize(
    ("rlimit", "cap", "connections", "raised"),
    [
        pytest.param((256, 256), None, 128, None, id="low-hard-limit"),
        pytest.param((1_024, 524_288), None, 1_000, 1_128, id="systemd-default-raised"),
        pytest.param((1_024, 1_024), None, 896, None, id="cannot-raise"),
        pytest.param((4_096, 4_096), 50, 50, None, id="setting-fits"),
    ],
)
def test_the_connection_cap_fits_the_open_files_limit(
    monkeypatch: pytest.MonkeyPatch, rlimit: tuple[int, int], cap: int | None, connections: int, raised: int | None
) -> None:
    import resource

    set_to: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda kind: rlimit)

    def setrlimit(kind: int, limits: tuple[int, int]) -> None:
        if limits[0] > rlimit[1]:
            raise ValueError("over the hard limit")
        set_to.append(limits)

    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    planned = plan(SETTINGS.model_copy(update={"max_connections": cap, "max_requests": 32}))
    assert planned.connections == connections
    assert [soft for soft, _ in set_to] == ([raised] if raised else [])


def test_a_connection_cap_the_open_files_cannot_hold_stops_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda kind: (256, 256))
    with pytest.raises(ConfigError) as refused:
        plan(SETTINGS.model_copy(update={"max_connections": 1_000}))
    assert "GITEA_MCP_MAX_CONNECTIONS=1000 needs 1128 open files, but this process may open 256" in str(refused.value)


def test_connections_to_the_listening_socket_send_without_delay() -> None:
    """Without TCP_NODELAY each answer after a connection's first waited ~40 ms (Nagle against the client's delayed
    ACK): issue_list over keep-alive took 48 ms, 3.6 ms with it (bench/bench.py --only abuse)."""
    accepted: list[int] = []

    async def check() -> None:
        came = asyncio.Event()

        def made(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            accepted.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()
            came.set()

        server = await asyncio.start_server(made, sock=listening_socket("127.0.0.1", 0))
        async with server:
            port = server.sockets[0].getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            await asyncio.wait_for(came.wait(), 5)  # the server's side of the connection made
            writer.close()

    asyncio.run(check())
    assert accepted and accepted[0] != 0


class _Transport:
    """What Guarded's stall timer needs of a transport: `abort`, which here sets an event."""

    def __init__(self) -> None:
        self.aborted = asyncio.Event()

    def abort(self) -> None:
        self.aborted.set()


class _Flow:
    def pause_writing(self) -> None: ...

    def resume_writing(self) -> None: ...


async def _stalled_answer(reads_again: bool) -> bool:
    """A connection whose client stops reading its answer (the transport pauses our writes), and, if `reads_again`,
    starts again before the body timeout: whether the connection was cut within twice that timeout."""
    protocol = object.__new__(Guarded.serving(Load(limits(SETTINGS.model_copy(update={"body_timeout": 0.1})))))
    transport = _Transport()
    protocol.loop = asyncio.get_running_loop()
    protocol.flow = _Flow()  # type: ignore[assignment]
    protocol.transport = transport  # type: ignore[assignment]
    protocol._stalled = None
    protocol.pause_writing()
    if reads_again:
        protocol.resume_writing()
    try:
        await asyncio.wait_for(transport.aborted.wait(), 0.2)
    except TimeoutError:
        return False
    return True


def test_an_answer_the_client_stops_reading_is_cut_after_the_body_timeout() -> None:
    """Else an answer would wait in memory as long as the client likes. Checked on the protocol, not over a socket:
    answers are under 1 MiB (issue 35), which the kernel's buffers take whole, so a socket never shows the stall."""
    assert asyncio.run(_stalled_answer(reads_again=False)) is True
    assert asyncio.run(_stalled_answer(reads_again=True)) is False
