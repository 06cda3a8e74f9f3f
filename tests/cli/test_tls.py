"""A refused certificate is named by its reason, with the remedy, in `check` and in tool errors — never a trace.

A real HTTPS server on 127.0.0.1 with a self-signed certificate made here (cryptography); the reasons
this machine cannot produce on demand (an expired certificate) are built as requests would raise them.
"""

from __future__ import annotations

import http.server
import json
import re
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import requests
import urllib3
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from gitea_mcp.cli.main import FAILED, main
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import TlsFailed, tls_problem
from tests.cli.process import clean_env

LIBRARY_TEXT = ("Traceback", "HTTPSConnectionPool", "_ssl.c", "urllib3", "Max retries", "SSLError")


class Forge(http.server.BaseHTTPRequestHandler):
    """Enough of Gitea for the TLS handshake to be the only question: /version answers."""

    def do_GET(self) -> None:
        body = json.dumps({"version": "1.22.3"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass


def self_signed(where: Path) -> tuple[Path, Path]:
    """A self-signed certificate for the name localhost only (so 127.0.0.1 mismatches it), valid for two days."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = where / "cert.pem", where / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def tls_forge(certificate: tuple[Path, Path]) -> http.server.ThreadingHTTPServer:
    """`Forge` over TLS on 127.0.0.1 (a free port), serving in a background thread."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forge)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def port(certificate: tuple[Path, Path]) -> Iterator[int]:
    server = tls_forge(certificate)
    yield server.server_address[1]
    server.shutdown()


def version(url: str, verify: bool | str) -> object:
    return GiteaClient(url, None, timeout=5, retry=RetryPolicy(attempts=1), verify=verify).get(["version"]).data


def test_the_test_server_is_fine_when_its_certificate_is_trusted(port: int, certificate: tuple[Path, Path]) -> None:
    assert version(f"https://localhost:{port}", str(certificate[0])) == {"version": "1.22.3"}


INSECURE = "GITEA_INSECURE=true turns verification off, for test instances only"


@pytest.mark.parametrize(
    ("trusted", "reason", "remedy"),
    [
        pytest.param(False, r"certificate verify failed: self[- ]signed certificate$", "GITEA_CA_BUNDLE=", id="self"),
        pytest.param(True, "certificate verify failed: IP address mismatch", "GITEA_URL must use a host name", id="ip"),
    ],
)
def test_a_refused_certificate_names_its_reason(
    port: int, certificate: tuple[Path, Path], trusted: bool, reason: str, remedy: str
) -> None:
    with pytest.raises(TlsFailed) as refused:
        version(f"https://127.0.0.1:{port}", str(certificate[0]) if trusted else True)
    assert re.search(reason, refused.value.reason), refused.value.reason
    said = str(refused.value)
    assert remedy in said and INSECURE in said
    assert ".." not in said, "OpenSSL's own period does not end the sentence"
    assert not any(noise in said for noise in LIBRARY_TEXT)


def test_check_and_call_say_the_reason(
    port: int, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITEA_URL", f"https://127.0.0.1:{port}")
    monkeypatch.setenv("GITEA_ALLOWED_OWNERS", "acme")
    for name in ("GITEA_TOKEN", "GITEA_CA_BUNDLE", "GITEA_INSECURE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    assert main(["check"]) == FAILED
    out, _ = capfd.readouterr()
    assert f"TLS with https://127.0.0.1:{port} failed: certificate verify failed: self" in out
    assert "    fix: If Gitea's certificate comes from a private CA, set GITEA_CA_BUNDLE=" in out
    assert main(["call", "issue_list", "owner=acme", "name=widgets"]) == FAILED
    out, err = capfd.readouterr()
    assert out == "" and err.count("\n") == 1, "one sentence"
    assert "certificate verify failed: self" in err and "GITEA_CA_BUNDLE" in err
    assert not any(noise in out + err for noise in LIBRARY_TEXT)


@pytest.mark.parametrize("command", [["check"], ["call", "issue_list", "owner=acme", "name=widgets"]])
def test_insecure_is_said_once_in_our_own_words(port: int, command: list[str]) -> None:
    """GITEA_INSECURE=true: one line of ours on stderr, not urllib3's warning (a site-packages path) per request."""
    env = clean_env(GITEA_URL=f"https://127.0.0.1:{port}", GITEA_ALLOWED_OWNERS="acme", GITEA_INSECURE="true")
    done = subprocess.run([sys.executable, "-m", "gitea_mcp", *command], env=env, capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert "Gitea 1.22.3" in done.stdout or command[0] == "call", done.stdout
    insecure = [line for line in done.stderr.splitlines() if "GITEA_INSECURE" in line]
    assert len(insecure) == 1 and "NOT verified" in insecure[0], done.stderr
    assert "InsecureRequestWarning" not in done.stderr and "site-packages" not in done.stderr, done.stderr


def requests_error(inner: BaseException) -> requests.exceptions.SSLError:
    """As requests raises it: OpenSSL's error inside urllib3's SSLError inside MaxRetryError inside requests'."""
    pool_error = urllib3.exceptions.MaxRetryError(None, "/api/v1/version", urllib3.exceptions.SSLError(inner))  # type: ignore[arg-type]
    return requests.exceptions.SSLError(pool_error)


def refused(verify_message: str) -> ssl.SSLCertVerificationError:
    error = ssl.SSLCertVerificationError(
        1, f"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: {verify_message} (_ssl.c:1006)"
    )
    error.verify_message = verify_message
    return error


VERIFY = "certificate verify failed: "


@pytest.mark.parametrize(
    ("error", "reason", "remedy", "certificate"),
    [
        pytest.param(refused("certificate has expired"), "certificate has expired", "must be renewed", True, id="old"),
        pytest.param(
            refused("unable to get local issuer certificate"), "unable to get local", "GITEA_CA_BUNDLE", True, id="ca"
        ),
        pytest.param(
            refused("Hostname mismatch, certificate is not valid for 'x'."), "Hostname mismatch", "host name", True
        ),
    ],
)
def test_refused_certificates(error: BaseException, reason: str, remedy: str, certificate: bool) -> None:
    found = tls_problem(requests_error(error))
    assert found.reason.startswith(VERIFY + reason) and remedy in found.remedy and found.certificate is certificate
    assert not found.reason.endswith("."), "a clause: the message goes on after it"
    assert "GITEA_CA_BUNDLE" in found.remedy and INSECURE in found.remedy


WRONG_VERSION = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)")


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        pytest.param(WRONG_VERSION, "wrong version number", id="plain-http-port"),
        pytest.param(urllib3.exceptions.SSLError("?"), "the TLS connection failed", id="nothing-inside"),
    ],
)
def test_other_tls_failures(error: BaseException, reason: str) -> None:
    """A handshake answered without TLS (a plain-HTTP port) is known before anything was sent: the wrong scheme.
    Anything else may come after the request was sent, so it stays 'no answer' (see client)."""
    found = tls_problem(requests_error(error))
    plain = reason == "wrong version number"
    assert (found.reason, found.certificate, found.plain) == (reason, plain, plain)
    assert ("http://" if plain else "https:// to a plain-HTTP port") in found.remedy
