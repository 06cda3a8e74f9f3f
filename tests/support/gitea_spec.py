"""Checks a Gitea JSON document against the real server's OpenAPI spec.

Mocks and the stand-in are only worth something while they look like a real Gitea. The spec
(`tests/spec/openapi-v1.json`, Swagger 2.0) has two gaps we correct for, both seen on real servers:
Go pointer and slice fields are serialised as `null` when empty, which the spec never says, so
every property also admits `null`; and the spec never forbids extra fields, so we do — an invented
field in a mock is exactly the drift this check exists to catch.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

_CANDIDATES = [Path(__file__).resolve().parent.parent / "spec"]


def spec_dir() -> Path:
    for candidate in _CANDIDATES:
        if (candidate / "openapi-v1.json").is_file():
            return candidate
    raise FileNotFoundError("tests/spec/openapi-v1.json is missing")


@functools.cache
def load_spec(name: str = "openapi-v1.json") -> dict[str, Any]:
    spec: dict[str, Any] = json.loads((spec_dir() / name).read_text(encoding="utf-8"))
    return spec


def _tighten(schema: Any) -> Any:
    """Admit null for every property and forbid properties the spec does not name."""
    if isinstance(schema, dict):
        out = {key: _tighten(value) for key, value in schema.items()}
        if "properties" in out and out.get("type") == "object":
            out["additionalProperties"] = False
            out["properties"] = {key: {"anyOf": [value, {"type": "null"}]} for key, value in out["properties"].items()}
        return out
    if isinstance(schema, list):
        return [_tighten(item) for item in schema]
    return schema


@functools.cache
def _definitions(spec_name: str) -> dict[str, Any]:
    spec = load_spec(spec_name)
    tightened: dict[str, Any] = _tighten(copy.deepcopy(spec["definitions"]))
    return tightened


@functools.cache
def _validator(name: str, spec_name: str) -> jsonschema.Draft4Validator:
    schema = {"$ref": f"#/definitions/{name}", "definitions": _definitions(spec_name)}
    return jsonschema.Draft4Validator(schema)


def validate_definition(name: str, document: Any, spec_name: str = "openapi-v1.json") -> None:
    """Raise `jsonschema.ValidationError` unless `document` is a valid `definitions/<name>`."""
    error = jsonschema.exceptions.best_match(_validator(name, spec_name).iter_errors(document))
    if error is not None:
        raise error


def validate_list(name: str, documents: list[Any], spec_name: str = "openapi-v1.json") -> None:
    for document in documents:
        validate_definition(name, document, spec_name)


def operation(path: str, method: str = "get", spec_name: str = "openapi-v1.json") -> dict[str, Any]:
    """The spec's operation object for `path` (a template such as `/repos/{owner}/{repo}/issues`)."""
    op: dict[str, Any] = load_spec(spec_name)["paths"][path][method.lower()]
    return op


def query_parameters(path: str, method: str = "get", spec_name: str = "openapi-v1.json") -> set[str]:
    """Names of the query parameters the spec lists for an operation."""
    return {p["name"] for p in operation(path, method, spec_name).get("parameters", []) if p.get("in") == "query"}
