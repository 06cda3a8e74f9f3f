"""Placeholders are refused with the client-side cause (issue 39): a client started with GITEA_TOKEN unset passed the
literal `${GITEA_TOKEN}` as the token, and the answer was a 401 blaming the token, while the client said
"Connected". Now the start, `check` and the first request over HTTP say what happened and what to do."""

from __future__ import annotations

import base64
import os
import secrets
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from gitea_mcp.cli.main import parse_args, settings_from
from gitea_mcp.server.credentials import credential
from gitea_mcp.settings import ConfigError, Settings, placeholder_problem
from tests.cli.process import CLOSED_GITEA, clean_env

UNEXPANDED = "a variable the MCP client did not expand"
EXAMPLE = "an example's placeholder, not a value"
EMPTY = "is set but empty: the MCP client most likely put in a variable that is not set"

# (value, what is said, the variable named as the one to set)
CASES = [
    ("${GITEA_TOKEN}", UNEXPANDED, "GITEA_TOKEN"),
    ("${GITEA_TOKEN:-}", UNEXPANDED, "GITEA_TOKEN"),
    ("${env:GITEA_TOKEN}", UNEXPANDED, "GITEA_TOKEN"),  # VS Code
    ("${input:gitea_token}", UNEXPANDED, "gitea_token"),  # VS Code's prompt, outside VS Code
    ("$GITEA_TOKEN", UNEXPANDED, "GITEA_TOKEN"),
    ("%GITEA_TOKEN%", UNEXPANDED, "GITEA_TOKEN"),  # Windows
    ("{env:GITEA_TOKEN}", UNEXPANDED, "GITEA_TOKEN"),  # OpenCode
    ("{{ gitea_token }}", UNEXPANDED, "gitea_token"),  # a template not rendered
    ("<token>", EXAMPLE, None),
    ("<your personal access token>", EXAMPLE, None),
    ("your-token-here", EXAMPLE, None),
    ("YOUR_GITEA_TOKEN", EXAMPLE, None),
    ("your_api_token_here", EXAMPLE, None),
    ("changeme", EXAMPLE, None),
    ("   ", EMPTY, None),
    ("", EMPTY, None),
]


@pytest.mark.parametrize(("value", "said", "variable"), CASES)
def test_each_placeholder_is_named_with_its_cause(value: str, said: str, variable: str | None) -> None:
    sentence = placeholder_problem("GITEA_TOKEN", value)
    assert sentence is not None and said in sentence
    if variable is not None:
        assert f"set {variable} there (and restart the client), or write the value itself" in sentence


def test_no_real_value_is_taken_for_a_placeholder() -> None:
    for _ in range(2_000):
        for value in (
            secrets.token_hex(20),  # a Gitea token
            str(uuid.uuid4()),  # a client ID
            "gto_" + base64.b32encode(secrets.token_bytes(30)).decode().lower().rstrip("="),  # a client secret
        ):
            assert placeholder_problem("X", value) is None, value
        key = base64.urlsafe_b64encode(os.urandom(32)).decode()  # ours: only variables are looked for in a key
        assert placeholder_problem("GITEA_MCP_OAUTH_KEY", key, examples=False) is None, key
    for url in (
        "https://gitea.example.com",
        "http://127.0.0.1:3000",
        "https://my.gitea.dev/",
        "https://yourcompany.io",
    ):
        assert placeholder_problem("GITEA_URL", url) is None, url


SETTINGS_NAMED = [
    ("GITEA_TOKEN", "${GITEA_TOKEN}"),
    ("GITEA_URL", "${GITEA_URL}"),
    ("GITEA_URL", "https://<your-gitea>"),
    ("GITEA_MCP_HTTP_SECRET", "%SECRET%"),
    ("GITEA_MCP_OAUTH_CLIENT_SECRET", "${CLIENT_SECRET}"),
    ("GITEA_MCP_OAUTH_KEY", "${KEY}"),
    ("GITEA_MCP_OAUTH_CLIENT_ID", "<client id>"),
    ("GITEA_MCP_PUBLIC_URL", "${PUBLIC_URL}"),
    ("GITEA_ACCESS_TOKEN", ""),  # the official Go server's name, empty
    ("FORGEJO_ACCESS_TOKEN", "$FORGEJO_ACCESS_TOKEN"),
]


@pytest.mark.parametrize(("name", "value"), SETTINGS_NAMED)
def test_every_url_token_and_secret_setting_refuses_a_placeholder(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    for key in list(os.environ):
        if key.startswith(("GITEA_", "FORGEJO_")):
            monkeypatch.delenv(key)
    signin = {
        "GITEA_MCP_TRANSPORT": "http",
        "GITEA_MCP_PUBLIC_URL": "https://mcp.example.test",
        "GITEA_MCP_OAUTH_CLIENT_ID": str(uuid.uuid4()),
        "GITEA_MCP_OAUTH_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode(),
        "GITEA_TOKEN": secrets.token_hex(20),
    }
    for key, held in {**CLOSED_GITEA, **signin, name: value}.items():
        monkeypatch.setenv(key, held)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args(["serve"]))
    said = str(refused.value)
    assert any(cause in said for cause in (UNEXPANDED, EXAMPLE, EMPTY)), said


def _run(args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitea_mcp", *args],
        env=clean_env(HOME=str(home), **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("command", [["serve"], ["check"], ["call", "issue_list", "owner=acme", "name=x"]])
def test_an_unexpanded_token_stops_serve_check_and_call_from_a_fresh_home(tmp_path: Path, command: list[str]) -> None:
    """The stumble as it happened: the client passed `${GITEA_TOKEN}` as written."""
    done = _run(command, tmp_path, **CLOSED_GITEA, GITEA_TOKEN="${GITEA_TOKEN}")
    assert done.returncode == 2
    assert done.stderr == (
        "gitea-issues-mcp: GITEA_TOKEN is '${GITEA_TOKEN}', a variable the MCP client did not expand: a client passes "
        "the text as written when GITEA_TOKEN is not set in the environment it starts from; set GITEA_TOKEN there "
        "(and restart the client), or write the value itself in the client's configuration.\n"
    )
    assert done.stdout == ""


def _settings() -> Settings:
    return Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}), transport="http")


# A header's token holds no space: such a value is a malformed header, and said as such.
@pytest.mark.parametrize(("value", "said", "variable"), [case for case in CASES if case[0] and " " not in case[0]])
def test_a_placeholder_bearer_is_refused_with_the_same_cause(value: str, said: str, variable: str | None) -> None:
    """Over HTTP the server starts without a token; the placeholder comes with each request, and the first one is
    answered with the cause (never sent to Gitea, whose 401 would blame the token)."""
    found = credential([("authorization", f"Bearer {value}")], _settings())
    assert found.token is None and found.invalid_token
    assert found.refused is not None and found.refused.startswith("the token in the Authorization header is ")
    assert said in found.refused
