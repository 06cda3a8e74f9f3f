"""Packaging: server.json is fit for the MCP Registry (the wheel itself is installed and run in tests/install/).

The registry's schema (static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json) cannot be fetched
here, so SERVER_SCHEMA below transcribes the parts server.json uses — required fields, the name pattern, length
limits, the package and environment-variable shapes — and forbids unknown keys, which the registry does not:
a misspelt optional key would otherwise pass silently.
"""

from __future__ import annotations

import inspect
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import gitea_mcp
from gitea_mcp.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SERVER = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))

_INPUT = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "isRequired": {"type": "boolean"},
        "isSecret": {"type": "boolean"},
        "format": {"enum": ["string", "number", "boolean", "filepath"]},
        "default": {"type": "string"},
        "placeholder": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name"],
    "additionalProperties": False,
}
_PACKAGE = {
    "type": "object",
    "properties": {
        "registryType": {"type": "string"},
        "registryBaseUrl": {"type": "string", "pattern": "^https://"},
        "identifier": {"type": "string"},
        "version": {"type": "string", "minLength": 1, "maxLength": 255, "not": {"const": "latest"}},
        "runtimeHint": {"type": "string"},
        "transport": {
            "type": "object",
            "properties": {"type": {"enum": ["stdio"]}},
            "required": ["type"],
            "additionalProperties": False,
        },
        "environmentVariables": {"type": "array", "items": _INPUT},
    },
    "required": ["registryType", "identifier", "transport"],
    "additionalProperties": False,
}
SERVER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "$schema": {"const": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"},
        "name": {"type": "string", "minLength": 3, "maxLength": 200, "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"},
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255},
        "packages": {"type": "array", "items": _PACKAGE, "minItems": 1},
    },
    "required": ["name", "description", "version"],
    "additionalProperties": False,
}


def test_server_json_matches_the_registry_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SERVER_SCHEMA)
    jsonschema.validate(SERVER, SERVER_SCHEMA, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize(
    "broken",
    [
        {"name": "gitea-issues-mcp"},  # no namespace
        {"description": "x" * 101},
        {"packages": [{**SERVER["packages"][0], "enviromentVariables": []}]},
        {"packages": [{**SERVER["packages"][0], "version": "latest"}]},
    ],
)
def test_schema_check_can_fail(broken: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**SERVER, **broken}, SERVER_SCHEMA, cls=jsonschema.Draft202012Validator)


def test_server_json_names_this_package_at_this_version() -> None:
    (package,) = SERVER["packages"]
    version = PYPROJECT["project"]["version"]
    assert SERVER["version"] == package["version"] == version == gitea_mcp.__version__
    assert (package["registryType"], package["identifier"]) == ("pypi", PYPROJECT["project"]["name"])
    assert (package["runtimeHint"], package["transport"]) == ("uvx", {"type": "stdio"})
    assert SERVER["name"].startswith("io.github.") and SERVER["name"].endswith("/" + PYPROJECT["project"]["name"])


def test_server_json_environment_is_what_the_cli_reads() -> None:
    read_by_cli = set(re.findall(r'"(GITEA_[A-Z_]+)"', inspect.getsource(cli)))
    variables = {var["name"]: var for var in SERVER["packages"][0]["environmentVariables"]}
    assert set(variables) <= read_by_cli, "server.json names a variable the server never reads"
    assert {"GITEA_URL", "GITEA_TOKEN", "GITEA_ALLOWED_OWNERS"} <= set(variables)
    assert {name for name, var in variables.items() if var.get("isSecret")} == {"GITEA_TOKEN"}
    for name in ("GITEA_URL", "GITEA_ALLOWED_OWNERS"):  # the server refuses to start without them
        assert variables[name]["isRequired"] is True
    assert all(var.get("description") for var in variables.values())


def test_readme_proves_ownership_for_the_registry() -> None:
    """PyPI packages prove their registry name with `mcp-name: NAME` in the README (the long description)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"mcp-name: {re.escape(SERVER['name'])}(\s|-->)", readme)


# The extras only the gate installs (the README's test command): its tools, and tests/server/test_interop.py's SDKs.
GATE_EXTRAS = ("dev", "interop")


def test_development_tools_are_pinned_and_the_product_is_not() -> None:
    """The gate's tools at exact versions (a new ruff or mypy release cannot break `task check` by itself), and so
    the client SDKs the gate tests the definitions with (`interop`); the product's own dependencies as ranges, so it
    installs beside other packages."""
    project = PYPROJECT["project"]
    gate = [d for name in GATE_EXTRAS for d in project["optional-dependencies"][name]]
    loose = [d for d in gate if not re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][\w.]*", d)]
    assert loose == [], f"pin these development tools exactly: {loose}"
    pinned = [d for d in project["dependencies"] if "==" in d]
    assert pinned == [], f"the product's dependencies are ranges, not pins: {pinned}"
    extras = {name: deps for name, deps in project["optional-dependencies"].items() if name not in GATE_EXTRAS}
    pinned_extras = [d for deps in extras.values() for d in deps if "==" in d]
    assert pinned_extras == [], f"an extra is part of the product: ranges, not pins: {pinned_extras}"
    dev_names = {re.split(r"[=<>!~\[]", d)[0] for d in project["optional-dependencies"]["dev"]}
    untested = [d for deps in extras.values() for d in deps if re.split(r"[=<>!~\[]", d)[0] not in dev_names]
    assert untested == [], f"the gate tests each extra at a pinned version: add {untested} to dev"
