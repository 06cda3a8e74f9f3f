"""A tool's arguments, declared once: one pydantic model is the input schema, the checks and the value `run` takes.

The types every tool shares live here, so a name means one thing in every tool: `owner`, `name`, `number`,
`page`, `limit`, and lists of names (`labels`, `assignees`, `milestones`) that take an array or a comma string.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from gitea_mcp.domain.failures import BadArgument
from gitea_mcp.domain.policy import MAX_LABEL_NAMES, MAX_LIMIT, MAX_NUMBER, too_many_labels
from gitea_mcp.redaction import shown
from gitea_mcp.toolkit.lockdown import TITLE_MARK

MAX_PAGE = 10_000


class Arguments(BaseModel):
    """Unknown names are refused: a misspelt argument must not be dropped. `parse` refuses them first, naming the
    closest valid one; the published schema says nothing of them (`input_schema`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def split_names(raw: object) -> object:
    """`"bug, ui"`, `["bug", "ui"]` or that array as JSON text (some clients send arrays so) → `["bug", "ui"]`;
    anything else is left for the type check to refuse."""
    if isinstance(raw, str) and raw.lstrip().startswith("["):
        with contextlib.suppress(ValueError):
            raw = json.loads(raw)
    if isinstance(raw, str):
        raw = raw.split(",")
    if isinstance(raw, list | tuple) and all(isinstance(part, str) for part in raw):
        return [part.strip() for part in raw if part.strip()]
    return raw


Owner = Annotated[str, Field(description="User or org.")]
RepoName = Annotated[str, Field(description="Repo.")]
# Whole numbers only: pydantic would otherwise read `true` as 1 (and edit issue #1) and "7" as 7.
Number = Annotated[int, Strict(), Field(description="Issue or PR.", ge=1, le=MAX_NUMBER)]
PageNumber = Annotated[int, Strict(), Field(ge=1, le=MAX_PAGE)]


@dataclass(frozen=True)
class Capped:
    """Marks an integer argument whose larger values are capped at `at` (by the tool, through policy), not refused:
    its schema has no maximum, so a client checking the schema sends limit=100 instead of refusing it."""

    at: int


# Rows per page: policy.cap_limit caps it; the schema says so in the fewest bytes (agents read it every turn).
Limit = Annotated[int, Strict(), Field(ge=1, description=f"Capped at {MAX_LIMIT}."), Capped(MAX_LIMIT)]
Flag = Annotated[bool, Strict()]  # true or false: not "yes", not 1


def unmarked(title: str) -> str:
    """A title a write tool was given, without the marks lockdown puts before titles it shows (`TITLE_MARK`,
    compared exactly): copied from an answer into issue_update or issue_create, a mark would be written into the
    forge's title, and marked again on the next read. Taken off whether lockdown is on here or not (another server
    may have shown the title), and every leading one: a title that carries a mark already (written back by another
    client, or typed by its author) reads with two, and only the title under them is the issue's. Blanks around a
    mark do not count, as titles are sent stripped; a mark anywhere else, or spelt otherwise, is the title's own."""
    rest = title.lstrip()
    if not rest.startswith(TITLE_MARK) and rest.rstrip() != TITLE_MARK.rstrip():
        return title
    while rest.startswith(TITLE_MARK):
        rest = rest[len(TITLE_MARK) :].lstrip()
    return "" if rest.rstrip() == TITLE_MARK.rstrip() else rest


# An issue's title on a write: unmarked at parsing, so the write guard's key, the duplicate check and the payload
# all see the title the forge should keep. A mark alone leaves it empty, which the tool refuses as any empty title.
Title = Annotated[str, AfterValidator(unmarked)]

# One schema type (array) for portability; a comma-separated string is accepted too.
Names = Annotated[
    list[str], BeforeValidator(split_names), WithJsonSchema({"type": "array", "items": {"type": "string"}})
]

TOO_MANY_NAMES = "too_many_names"  # the error type whose message is the sentence itself (`_invalid`)


def _few_enough(names: list[str]) -> list[str]:
    if len(names) > MAX_LABEL_NAMES:
        raise PydanticCustomError(TOO_MANY_NAMES, too_many_labels(len(names)))
    return names


# Label names: refused, before anything is sent, past MAX_LABEL_NAMES.
LabelNames = Annotated[Names, AfterValidator(_few_enough)]


A = TypeVar("A", bound=Arguments)


# Said once in each tool's description (`described`), not in every argument's: a strict client sends every
# argument, null for those the model does not mean, and `parse` takes a null as the argument left out.
NULL_NOT_GIVEN = "null: not given."


@functools.cache
def input_schema(model: type[Arguments]) -> dict[str, Any]:
    """The schema agents read: every optional argument admits null (strict clients, such as openai-agents, make
    every argument required, so a model must be able to say "not given"), and no `additionalProperties` (google-genai
    cannot read `false`; `parse` refuses an unknown name itself, with the closest valid one). Lean: no generated
    titles."""
    plain = argument_schemas(model)
    required = set(plain.get("required", ()))
    properties = {name: prop if name in required else nullable(prop) for name, prop in plain["properties"].items()}
    return {**plain, "properties": properties}


@functools.cache
def argument_schemas(model: type[Arguments]) -> dict[str, Any]:
    """The model's schema with each argument in its own form, without the null (what an error message and the
    README's table describe)."""
    schema: dict[str, Any] = compact_schema(model.model_json_schema(by_alias=True), optional_null=False)
    schema.pop("additionalProperties", None)
    return schema


def nullable(prop: dict[str, Any]) -> dict[str, Any]:
    """`prop` admitting null too, spelt so that google-genai's MCP conversion, OpenAI's strict mode and the draft-07
    and 2020-12 validators all read it, in the fewest bytes: `type: [X, "null"]` (google-genai reads it as X,
    nullable; `anyOf` would cost 19 bytes more an argument, and google-genai drops a description beside it).

    An enum takes `anyOf`: null would have to join its list, and google-genai's schema takes strings only there.
    Everything but the default goes in the branch, which is what google-genai keeps of it (with the default)."""
    if "enum" in prop or "type" not in prop:
        branch = {key: value for key, value in prop.items() if key != "default"}
        default = {key: value for key, value in prop.items() if key == "default"}
        return {"anyOf": [branch, {"type": "null"}], **default}
    return {key: [value, "null"] if key == "type" else value for key, value in prop.items()}


def described(description: str, model: type[Arguments]) -> str:
    """A tool's description as listed: with `NULL_NOT_GIVEN` where the tool has an optional argument."""
    optional = any(not field.is_required() for field in model.model_fields.values())
    return f"{description} {NULL_NOT_GIVEN}" if optional else description


def compact_schema(schema: Any, drop: tuple[str, ...] = (), optional_null: bool = True) -> Any:
    """Drop pydantic's generated `title`s and `default: null`; an input's `anyOf [X, null]` becomes X (`nullable`
    spells an optional argument's null again, for every optional argument alike).

    The meaning is unchanged; every agent reads these schemas on every turn, so every byte counts. An output's
    nullable value stays `anyOf [X, {type: null}]`: no client reads it for the model, so the MCP Inspector's warning
    on `type: [X, "null"]` (its portability lint) costs nothing to avoid there.
    """
    if isinstance(schema, list):
        return [compact_schema(item, drop, optional_null) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if (key == "title" and isinstance(value, str)) or (key == "default" and value is None) or key in drop:
            continue
        if key in ("properties", "$defs"):  # keys here are names, not keywords
            out[key] = {name: compact_schema(sub, drop, optional_null) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value, drop, optional_null)
    variants = out.get("anyOf")
    if not optional_null and isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        # An input: null is "not given", which leaving the argument out already says.
        other = next(v for v in variants if v != {"type": "null"})
        del out["anyOf"]
        out.update(other)
    return out


def inline_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """Write each `$defs` model that is referenced once in its place: the same schema without the `$ref` and the
    name (pydantic puts every nested model in `$defs`). A model used twice, or by itself, stays a reference."""
    defs: dict[str, Any] = schema.get("$defs", {})
    uses = Counter(_refs(schema))
    once = {name for name in defs if uses[name] == 1}

    def place(node: Any) -> Any:
        if isinstance(node, list):
            return [place(value) for value in node]
        if not isinstance(node, dict):
            return node
        name = _def_name(node.get("$ref"))
        if set(node) == {"$ref"} and name in once:
            return place(defs[name])
        return {key: place(value) for key, value in node.items()}

    out: dict[str, Any] = place({key: value for key, value in schema.items() if key != "$defs"})
    kept = {name: place(model) for name, model in defs.items() if name not in once}
    return {**out, "$defs": kept} if kept else out


_DEFS = "#/$defs/"


def _def_name(ref: object) -> str | None:
    return ref[len(_DEFS) :] if isinstance(ref, str) and ref.startswith(_DEFS) else None


def _refs(node: Any) -> list[str]:
    """The names of the `$defs` models that `node` references, once per reference."""
    if isinstance(node, list):
        return [name for value in node for name in _refs(value)]
    if not isinstance(node, dict):
        return []
    here = _def_name(node.get("$ref"))
    return ([here] if here else []) + [name for value in node.values() for name in _refs(value)]


# Names agents reach for that a tool spells differently: checked before the closest spelling.
SYNONYMS = {
    "status": "state",
    "description": "body",
    "text": "body",
    "comment": "body",
    "content": "body",
    "repo": "name",
    "repository": "name",
    "org": "owner",
    "organization": "owner",
    "organisation": "owner",
    "user": "owner",
    "label": "labels",
    "tags": "labels",
    "assignee": "assignees",
    "milestone_id": "milestone",
    "milestone": "milestones",
    "milestones": "milestone",
    "issue": "number",
    "issue_number": "number",
    "index": "number",
    "id": "number",
    "q": "query",
    "search": "query",
    "per_page": "limit",
    "page_size": "limit",
    "author": "created_by",
    "poster": "created_by",
}


def parse(tool: str, model: type[A], raw: Mapping[str, Any]) -> A:
    """The arguments as `model`, or a ToolFailure: one plain sentence naming the argument, the fault and the fix.
    A null is taken as "not given" (some clients send every optional argument)."""
    fields = model.model_fields
    for key in raw:
        if key not in fields:
            raise BadArgument(_unknown(tool, key, list(fields)))
    given = {key: value for key, value in raw.items() if value is not None}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise BadArgument(_invalid(tool, model, exc.errors()[0], given)) from None


def _unknown(tool: str, key: str, valid: list[str]) -> str:
    guess = closest(key, valid)
    mean = f"; did you mean {guess}?" if guess else "."
    return f"{tool} has no argument {shown(key)}{mean} Its arguments are: {', '.join(valid)}."


def closest(key: str, valid: list[str]) -> str | None:
    """The argument an agent most likely meant: a known synonym (spelt closely), else the closest valid name."""
    from difflib import get_close_matches  # only after a mistake: not at start-up

    word = key.strip().lower().replace("-", "_")
    for candidate in get_close_matches(word, list(SYNONYMS), n=3, cutoff=0.8):
        if SYNONYMS[candidate] in valid:
            return SYNONYMS[candidate]
    close = get_close_matches(word, valid, n=1, cutoff=0.6)
    return close[0] if close else None


def _invalid(tool: str, model: type[Arguments], error: Any, given: Mapping[str, Any]) -> str:
    if error["type"] == TOO_MANY_NAMES:
        return str(error["msg"])
    key = str(error["loc"][0]) if error["loc"] else ""
    field = model.model_fields.get(key)
    if field is None:  # a check across fields: its message is ours
        return f"{tool}: {error['msg']}."
    if error["type"] == "missing":
        required = [name for name, f in model.model_fields.items() if f.is_required()]
        return f"{key} is required; {tool} needs {', '.join(required)}."
    schema = field_schema(model, key)
    capped = next((m.at for m in field.metadata if isinstance(m, Capped)), None)
    if capped is not None:  # the useful range, though more than `capped` is taken (and capped)
        schema = {**schema, "maximum": capped}
    return f"{key}={_as_sent(given.get(key))} is not valid; use {expected(schema)}."


def _as_sent(value: object) -> str:
    """A value as the agent sent it: text quoted, anything else as JSON (true, 7, [1]), cut short either way."""
    if isinstance(value, str):
        return shown(value)
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:40] + "…"


def expected(schema: Mapping[str, Any]) -> str:
    """The valid form of a field, in words, from its schema."""
    if "enum" in schema:
        return "one of: " + ", ".join(str(x) for x in schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"a whole number from {low} to {high}"
        return "a whole number" + (f" of at least {low}" if low is not None else "")
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        return 'a list of names, like ["bug", "ui"], or one comma-separated string'
    return "text"


def field_schema(model: type[Arguments], key: str) -> dict[str, Any]:
    properties: dict[str, dict[str, Any]] = argument_schemas(model)["properties"]
    return properties[key]
