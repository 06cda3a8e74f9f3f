"""The container image's files, without a Docker engine (`task image` builds and smoke-tests the image itself).

The health check script runs here in-process against a real HTTP server on 127.0.0.1; the Containerfile, the
Taskfile and .dockerignore are read as text and held to what docs/operators.md promises.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

from gitea_mcp.cli.main import SETTINGS
from gitea_mcp.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
CONTAINERFILE = (ROOT / "Containerfile").read_text(encoding="utf-8")


def load_healthcheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location("image_healthcheck", ROOT / "scripts" / "image-healthcheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


healthcheck = load_healthcheck()


class Answer(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        code = self.status if self.path == "/healthz" else 404
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # quiet: the suite's output is the tests'
        pass


@pytest.fixture
def probed(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Answer]]:
    """A server on a free loopback port, named to the health check as the image names it (GITEA_MCP_*)."""
    handler = type("Handler", (Answer,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("GITEA_MCP_HOST", "0.0.0.0")
    monkeypatch.setenv("GITEA_MCP_PORT", str(server.server_address[1]))
    yield handler
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_healthy_on_a_200(probed: type[Answer]) -> None:
    assert healthcheck.main() == 0


def test_unhealthy_on_an_error_status(probed: type[Answer], capfd: pytest.CaptureFixture[str]) -> None:
    probed.status = 503
    assert healthcheck.main() == 1
    assert "unhealthy: GET http://127.0.0.1:" in capfd.readouterr().err


def test_unhealthy_when_nothing_listens(probed: type[Answer], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITEA_MCP_PORT", "1")
    assert healthcheck.main() == 1


def test_a_proxy_for_gitea_never_carries_the_probe(probed: type[Answer], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:1")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert healthcheck.main() == 0


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        (None, None, "http://127.0.0.1:8000/healthz"),
        ("0.0.0.0", "9000", "http://127.0.0.1:9000/healthz"),
        ("::", "8000", "http://[::1]:8000/healthz"),
        ("127.0.0.2", " 8001 ", "http://127.0.0.2:8001/healthz"),
        ("[::1]", "8000", "http://[::1]:8000/healthz"),
    ],
)
def test_probes_where_the_server_listens(
    monkeypatch: pytest.MonkeyPatch, host: str | None, port: str | None, url: str
) -> None:
    for name, value in (("GITEA_MCP_HOST", host), ("GITEA_MCP_PORT", port)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert healthcheck.health_url() == url


def final_stage() -> str:
    return CONTAINERFILE.rsplit("\nFROM ", 1)[1]


def test_the_base_is_an_argument_with_nothing_to_pull() -> None:
    before_from = CONTAINERFILE.split("\nFROM ", 1)[0]
    assert re.search(r"^ARG BASE$", before_from, re.M), "ARG BASE, with no default naming an image to pull"
    assert re.findall(r"^FROM (\S+)", CONTAINERFILE, re.M) == ["${BASE}", "${BASE}"]


def test_runs_as_a_numeric_user_other_than_root() -> None:
    users = re.findall(r"^USER (\S+)$", final_stage(), re.M)
    assert len(users) == 1
    uid, _, gid = users[0].partition(":")
    assert uid.isdigit() and int(uid) != 0 and gid.isdigit() and int(gid) != 0


def test_serves_http_on_the_exposed_port_with_the_health_check() -> None:
    env = dict(re.findall(r"\b(GITEA_MCP_\w+)=(\S+)", final_stage()))
    assert env["GITEA_MCP_TRANSPORT"] == "http" and env["GITEA_MCP_HOST"] == "0.0.0.0"
    assert env["GITEA_MCP_PORT"] == str(Settings.model_fields["port"].default), "the server's own default port"
    assert re.findall(r"^EXPOSE (\d+)$", final_stage(), re.M) == [env["GITEA_MCP_PORT"]]
    known = {name for setting in SETTINGS.values() for name in setting.env}
    assert set(env) <= known, "every variable the image sets is one the server reads"
    assert re.search(r'^HEALTHCHECK .*CMD \["gitea-mcp-healthcheck"\]$', final_stage(), re.M)
    assert "COPY scripts/image-healthcheck.py /usr/local/bin/gitea-mcp-healthcheck" in final_stage()


def test_no_pip_cache_nor_build_stage_left_in_the_image() -> None:
    assert "PIP_NO_CACHE_DIR=1" in CONTAINERFILE
    assert "pip uninstall --yes pip setuptools" in CONTAINERFILE
    # replicas from the image share the write guard; the chart's metrics port and traces work without a second image
    assert "pip install '/src[redis,metrics,otel]'" in CONTAINERFILE
    assert "BUILD_CA" not in final_stage() and "PIP_INDEX_URL" not in final_stage(), "build-only settings"


def test_the_context_leaves_out_venv_git_and_caches() -> None:
    ignored = set((ROOT / ".dockerignore").read_text(encoding="utf-8").split())
    assert {"**/.venv", "**/.git", "**/__pycache__", "**/.pytest_cache", "**/.mypy_cache"} <= ignored


def task(name: str) -> str:
    """One task's block of Taskfile.yml, as text (tasks sit two spaces in, their bodies deeper)."""
    taskfile = (ROOT / "Taskfile.yml").read_text(encoding="utf-8")
    found = re.search(rf"^  {name}:\n((?:(?:    .*)?\n)+)", taskfile, re.M)
    assert found is not None, f"no task {name} in Taskfile.yml"
    return found.group(1)


def test_task_image_stays_out_of_the_gate() -> None:
    image = task("image")
    assert "scripts/image-base" in image and "docker build" in image and "tests.image.smoke" in image
    gate = task("check")
    assert "task: lint" in gate and "image" not in gate
