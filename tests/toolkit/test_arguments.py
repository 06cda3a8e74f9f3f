"""Arguments as agents send them: misspelt, mistyped, missing, extra — every refusal one plain sentence."""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

import pytest
from pydantic import BaseModel

from gitea_mcp.toolkit.arguments import (
    argument_schemas,
    compact_schema,
    inline_defs,
    input_schema,
    nullable,
    parse,
    unmarked,
)
from gitea_mcp.toolkit.base import Deps, ToolDefinition
from gitea_mcp.toolkit.lockdown import TITLE_MARK
from gitea_mcp.tools import issue_comment, issue_create, issue_get, issue_list, issue_search, issue_update
from tests.support import tool_cases
from tests.support.results import failed

REPO = {"owner": "acme", "name": "widgets"}
ISSUE = {**REPO, "number": 7}
NEW = {**REPO, "title": "t"}


@pytest.mark.parametrize(
    ("tool", "args", "wrong", "meant"),
    [
        (issue_list.TOOL, REPO, "status", "state"),
        (issue_list.TOOL, REPO, "label", "labels"),
        (issue_list.TOOL, REPO, "milestone", "milestones"),
        (issue_list.TOOL, REPO, "per_page", "limit"),
        (issue_list.TOOL, REPO, "author", "created_by"),
        (issue_list.TOOL, REPO, "colour", None),
        (issue_create.TOOL, NEW, "descripton", "body"),
        (issue_create.TOOL, NEW, "description", "body"),
        (issue_create.TOOL, NEW, "label", "labels"),
        (issue_create.TOOL, NEW, "milestones", "milestone"),
        (issue_create.TOOL, NEW, "assignee", "assignees"),
        (issue_get.TOOL, REPO, "issue_number", "number"),
        (issue_get.TOOL, {"owner": "acme", "number": 7}, "repo", "name"),
        (issue_update.TOOL, ISSUE, "titel", "title"),
        (issue_comment.TOOL, ISSUE, "comment", "body"),
        (issue_search.TOOL, {}, "q", "query"),
    ],
)
def test_an_unknown_argument_names_the_closest_and_lists_the_valid_ones(
    deps: Deps, tool: ToolDefinition, args: dict[str, Any], wrong: str, meant: str | None
) -> None:
    mean = f"; did you mean {meant}?" if meant else "."
    valid = ", ".join(tool.args.model_fields)
    expected = f"{tool.spec.name} has no argument {wrong!r}{mean} Its arguments are: {valid}."
    assert failed(tool.call(deps, {**args, wrong: "x"})) == expected


NUMBER = "use a whole number from 1 to 2147483647."
NAMES = 'use a list of names, like ["bug", "ui"], or one comma-separated string.'


@pytest.mark.parametrize(
    ("tool", "args", "sentence"),
    [
        (issue_get.TOOL, {**REPO, "number": 0}, f"number=0 is not valid; {NUMBER}"),
        (issue_get.TOOL, {**REPO, "number": "7"}, f"number='7' is not valid; {NUMBER}"),
        (issue_get.TOOL, {**REPO, "number": 7.5}, f"number=7.5 is not valid; {NUMBER}"),
        (issue_get.TOOL, {**REPO, "number": True}, f"number=true is not valid; {NUMBER}"),
        (issue_get.TOOL, {**ISSUE, "max_chars": -1}, "max_chars=-1 is not valid; use a whole number from 0 to "
         "100000."),
        (issue_list.TOOL, {**REPO, "page": 0}, "page=0 is not valid; use a whole number from 1 to 10000."),
        (issue_list.TOOL, {**REPO, "limit": "abc"}, "limit='abc' is not valid; use a whole number from 1 to 50."),
        (issue_list.TOOL, {**REPO, "state": 1}, "state=1 is not valid; use one of: open, closed, all."),
        # Checked with the other arguments, before the allowlist: a wrong value is the first fault named.
        (issue_list.TOOL, {"owner": "other", "name": "widgets", "state": "Open"}, "state='Open' is not valid; use one "
         "of: open, closed, all."),
        (issue_list.TOOL, {**REPO, "type": "prs"}, "type='prs' is not valid; use one of: issues, pulls, all."),
        (issue_update.TOOL, {**ISSUE, "state": "all"}, "state='all' is not valid; use one of: open, closed."),
        (issue_list.TOOL, {**REPO, "labels": 5}, f"labels=5 is not valid; {NAMES}"),
        (issue_list.TOOL, {**REPO, "labels": [1, 2]}, f"labels=[1, 2] is not valid; {NAMES}"),
        (issue_list.TOOL, {"owner": 5, "name": "widgets"}, "owner=5 is not valid; use text."),
        (issue_create.TOOL, {**NEW, "allow_duplicate": "yes"}, "allow_duplicate='yes' is not valid; use true or "
         "false."),
        (issue_get.TOOL, {"owner": "acme", "number": 7}, "say which issue: give owner, name and number, or url (a link "
         "to its page)."),
        (issue_create.TOOL, REPO, "title is required; issue_create needs owner, name, title."),
        (issue_comment.TOOL, ISSUE, "body is required; issue_comment needs owner, name, number, body."),
        (issue_search.TOOL, {}, "query is required; issue_search needs query."),
    ],
)  # fmt: skip
def test_a_wrong_or_missing_value_is_one_sentence_with_the_valid_form(
    deps: Deps, tool: ToolDefinition, args: dict[str, Any], sentence: str
) -> None:
    assert failed(tool.call(deps, args)) == sentence


@pytest.mark.parametrize(
    ("given", "labels"),
    [
        ("bug, ui", ["bug", "ui"]),
        (["bug", " ui "], ["bug", "ui"]),
        ('["bug", "ui"]', ["bug", "ui"]),  # an array sent as JSON text, as some clients do
        ('["a,b", "c"]', ["a,b", "c"]),
        ("", []),
    ],
)
def test_names_take_an_array_or_a_comma_string_in_every_tool(given: object, labels: list[str]) -> None:
    assert parse("issue_list", issue_list.ListArgs, {**REPO, "labels": given}).labels == labels
    assert parse("issue_create", issue_create.CreateArgs, {**NEW, "labels": given}).labels == labels
    assert parse("issue_create", issue_create.CreateArgs, {**NEW, "assignees": given}).assignees == labels
    assert parse("issue_update", issue_update.UpdateArgs, {**ISSUE, "labels": given}).labels == labels
    assert parse("issue_list", issue_list.ListArgs, {**REPO, "milestones": given}).milestones == labels


MARK = TITLE_MARK  # lockdown's mark before a title, "(untrusted author) "


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        (MARK + "Crash on save", "Crash on save"),
        (MARK + MARK + "Crash on save", "Crash on save"),  # a mark already in the forge's title, marked again
        (f"  {MARK} {MARK}Crash on save", "Crash on save"),  # blanks around marks: titles are sent stripped
        (MARK, ""),  # the mark alone: an empty title, refused by the tool
        (MARK.rstrip(), ""),
        (MARK + MARK.rstrip(), ""),
        ("Crash on save", "Crash on save"),
        ("  Crash on save ", "  Crash on save "),  # no mark: untouched (the tool strips it as before)
        (f"Crash {MARK}on save", f"Crash {MARK}on save"),  # in the middle: the title's own words
        (f"Crash on save {MARK}", f"Crash on save {MARK}"),
        (MARK.upper() + "Crash", MARK.upper() + "Crash"),  # compared exactly: spelt otherwise, it is not the mark
        (MARK.rstrip() + "Crash", MARK.rstrip() + "Crash"),
        ("[untrusted author] Crash", "[untrusted author] Crash"),
        ("", ""),
    ],
)
def test_a_title_loses_lockdowns_leading_marks_and_nothing_else(given: str, sent: str) -> None:
    assert unmarked(given) == sent
    assert parse("issue_create", issue_create.CreateArgs, {**NEW, "title": given}).title == sent
    assert parse("issue_update", issue_update.UpdateArgs, {**ISSUE, "title": given}).title == sent


def test_the_mark_changes_no_schema() -> None:
    """Taken off when parsed, said nowhere: the title's schema is plain text, the bytes agents read unchanged."""
    assert argument_schemas(issue_create.CreateArgs)["properties"]["title"] == {"type": "string"}
    assert argument_schemas(issue_update.UpdateArgs)["properties"]["title"] == {"type": "string"}


def test_null_is_not_given() -> None:
    args = parse("issue_update", issue_update.UpdateArgs, {**ISSUE, "labels": None, "title": None, "state": None})
    assert not args.edits_fields() and not args.edits_labels()
    assert parse("issue_list", issue_list.ListArgs, {**REPO, "labels": None, "limit": None}).limit == 30


@pytest.mark.parametrize("tool", [issue_list.TOOL, issue_search.TOOL])
def test_the_schema_says_a_larger_limit_is_capped_not_refused(tool: ToolDefinition) -> None:
    """A client that checks arguments against the schema must not refuse limit=100 before the tool can cap it."""
    limit = input_schema(tool.args)["properties"]["limit"]
    assert "maximum" not in limit and limit["minimum"] == 1
    assert limit["description"] == "Capped at 50."


class _Leaf(BaseModel):
    x: int


class _Tree(BaseModel):
    children: list[_Tree]


class _Once(BaseModel):
    leaf: _Leaf | None


class _Twice(BaseModel):
    a: _Leaf
    b: _Leaf


@pytest.mark.parametrize(
    ("model", "kept"),
    [
        pytest.param(_Once, set(), id="used-once-written-in-place"),
        pytest.param(_Twice, {"_Leaf"}, id="used-twice-stays-a-reference"),
        pytest.param(_Tree, {"_Tree"}, id="recursive-stays-a-reference"),
    ],
)
def test_output_models_are_written_in_place_only_where_that_says_the_same(
    model: type[BaseModel], kept: set[str]
) -> None:
    schema = compact_schema(inline_defs(model.model_json_schema()))
    assert set(schema.get("$defs", {})) == kept
    if model is _Once:
        leaf, null = schema["properties"]["leaf"]["anyOf"]
        assert (leaf["type"], leaf["required"], null) == ("object", ["x"], {"type": "null"})


TOOLS = tool_cases.tools()


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.spec.name)
def test_every_enumerated_argument_is_a_literal(tool: ToolDefinition) -> None:
    """An argument with a fixed set of values is typed `Literal[...]`: mypy checks the values our code passes on,
    and the schema's enum is written from the same type, so the two cannot drift (the snapshot keeps its bytes)."""
    schema = argument_schemas(tool.args)["properties"]
    for name, field in tool.args.model_fields.items():
        if "enum" not in schema[name]:
            continue
        kinds = [kind for kind in (field.annotation, *get_args(field.annotation)) if get_origin(kind) is Literal]
        assert kinds, f"{tool.spec.name}.{name} lists an enum in its schema but is not typed Literal[...]"
        assert list(get_args(kinds[0])) == schema[name]["enum"]


@pytest.mark.parametrize(
    ("plain", "published"),
    [
        pytest.param({"type": "string"}, {"type": ["string", "null"]}, id="a-string"),
        pytest.param(
            {"default": 30, "minimum": 1, "type": "integer"},
            {"default": 30, "minimum": 1, "type": ["integer", "null"]},
            id="bounds-and-default-kept",
        ),
        pytest.param(
            {"description": "Names.", "items": {"type": "string"}, "type": "array"},
            {"description": "Names.", "items": {"type": "string"}, "type": ["array", "null"]},
            id="an-array-its-items-not-null",
        ),
        pytest.param(
            {"default": "open", "enum": ["open", "closed"], "type": "string"},
            {"anyOf": [{"enum": ["open", "closed"], "type": "string"}, {"type": "null"}], "default": "open"},
            id="an-enum-null-beside-not-in-its-list",
        ),
    ],
)
def test_an_optional_argument_admits_null(plain: dict[str, Any], published: dict[str, Any]) -> None:
    assert nullable(plain) == published


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.spec.name)
def test_the_published_schema_is_the_arguments_own_with_null_on_the_optional_ones(tool: ToolDefinition) -> None:
    """Required arguments stay as they are (null is no owner); every other one admits null; nothing else differs."""
    plain, published = argument_schemas(tool.args), input_schema(tool.args)
    required = set(plain.get("required", []))
    assert {key: value for key, value in published.items() if key != "properties"} == {
        key: value for key, value in plain.items() if key != "properties"
    }
    for name, prop in plain["properties"].items():
        assert published["properties"][name] == (prop if name in required else nullable(prop)), name
    assert required == {name for name, field in tool.args.model_fields.items() if field.is_required()}
