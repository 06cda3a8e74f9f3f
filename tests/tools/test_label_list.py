"""label_list against a mocked Gitea (every mocked label checked against the spec): the repository's and the
organisation's labels grouped by exclusive scope, archived ones marked; the organisation's missing in one line when
the token may not list them; every page read, explicitly; read afresh on each call; other people's text quoted."""

from __future__ import annotations

from typing import Any

import pytest
import responses
from responses import matchers

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import label_list
from tests.support.gitea_json import API, api_error, label, org_label
from tests.support.gitea_spec import validate_definition
from tests.support.mocks import sent_params
from tests.support.results import failed, ok

REPO = f"{API}/repos/acme/widgets/labels"
ORG = f"{API}/orgs/acme/labels"
WIDGETS = {"owner": "acme", "name": "widgets"}
NO_ORG_SCOPE = "token does not have at least one of required scope(s), required=[read:organization], token scope=x"
HELP = "help: label an issue: issue_update owner=acme name=widgets number=<number> add_labels=<name>"
LEGEND = "rows: name #color [org,archived] description"
SCOPED = LEGEND + "; the labels under a scope are exclusive: an issue carries one of them"

OWN = [
    label("bug", 1, description="Something is broken"),
    label("kind/docs", 2, color="0075ca"),  # a '/' in a label that is not exclusive: no scope
    label("priority/high", 8, exclusive=True, color="b60205", description="Fix first"),
    label("priority/low", 9, exclusive=True, archived=True),
]
ORGS = [org_label("area/api", 40, exclusive=True), org_label("triage", 41, description="Needs a look")]


@pytest.mark.parametrize("document", [*OWN, *ORGS], ids=lambda d: d["name"])
def test_the_mocked_labels_are_gitea_s_shape(document: dict[str, Any]) -> None:
    validate_definition("Label", document)


def serve(rsps: responses.RequestsMock, own: list[dict[str, Any]], org: Any, org_status: int = 200) -> None:
    rsps.get(REPO, json=own, headers={"X-Total-Count": str(len(own))})
    headers = {"X-Total-Count": str(len(org))} if org_status == 200 else {}
    rsps.get(ORG, json=org, status=org_status, headers=headers)


def test_the_repository_s_and_the_organisation_s_labels_grouped_by_scope(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    serve(mocked, OWN, ORGS)
    text, data = ok(label_list.TOOL.call(deps, WIDGETS))
    assert text.splitlines() == [
        "acme/widgets labels: 6 (2 of the organisation acme)",
        SCOPED,
        "bug #ee0701 Something is broken",
        "kind/docs #0075ca",
        "triage #ee0701 [org] Needs a look",
        "scope area:",
        "  area/api #ee0701 [org]",
        "scope priority:",
        "  priority/high #b60205 Fix first",
        "  priority/low #ee0701 [archived]",
        HELP,
    ]
    assert data["total"] == 6 and data["org_listed"] is True
    assert data["labels"][4] == {
        "name": "priority/high",
        "color": "b60205",
        "description": "Fix first",
        "exclusive": True,
        "scope": "priority",
        "archived": False,
        "org": False,
    }
    assert [(row["name"], row["scope"], row["org"], row["archived"]) for row in data["labels"]] == [
        ("bug", None, False, False),
        ("kind/docs", None, False, False),
        ("triage", None, True, False),
        ("area/api", "area", True, False),
        ("priority/high", "priority", False, False),
        ("priority/low", "priority", False, True),
    ]


@pytest.mark.parametrize(
    ("org", "status", "note", "listed"),
    [
        pytest.param(api_error(NO_ORG_SCOPE), 403, True, False, id="token-without-read-organization"),
        pytest.param(api_error("GetOrgByName"), 404, False, True, id="owner-is-a-user"),
    ],
)
def test_organisation_labels_that_cannot_be_read(
    mocked: responses.RequestsMock, deps: Deps, org: dict[str, Any], status: int, note: bool, listed: bool
) -> None:
    """Without read:organization the repository's labels are listed and one line says what is missing; a user's
    repository (no organisation: 404) has none, and nothing is said."""
    serve(mocked, OWN[:2], org, status)
    text, data = ok(label_list.TOOL.call(deps, WIDGETS))
    said = "note: labels of the organisation acme, if it is one, are not listed: the token lacks read:organization."
    assert text.splitlines() == [
        "acme/widgets labels: 2",
        *([said] if note else []),
        LEGEND,
        "bug #ee0701 Something is broken",
        "kind/docs #0075ca",
        HELP,
    ]
    assert data["org_listed"] is listed and data["total"] == 2


def test_a_repository_without_labels(mocked: responses.RequestsMock, deps: Deps) -> None:
    serve(mocked, [], [])
    text, data = ok(label_list.TOOL.call(deps, WIDGETS))
    assert text == "acme/widgets labels: 0"
    assert data == {"labels": [], "total": 0, "org_listed": True}


def test_every_page_is_read_and_asked_for_by_number(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Gitea's /labels ignores `limit` without `page` (docs/server-behaviour.md): each page is asked for by number."""
    many = [label(f"l{n:02d}", 100 + n) for n in range(60)]
    for page, rows in ((1, many[:50]), (2, many[50:])):
        mocked.get(
            REPO,
            json=rows,
            headers={"X-Total-Count": "60"},
            match=[matchers.query_param_matcher({"page": str(page), "limit": "50"})],
        )
    mocked.get(ORG, json=[], headers={"X-Total-Count": "0"})
    text, data = ok(label_list.TOOL.call(deps, WIDGETS))
    assert data["total"] == 60 and [row["name"] for row in data["labels"]] == [f"l{n:02d}" for n in range(60)]
    assert text.startswith("acme/widgets labels: 60\n") and "\nl59 #ee0701\n" in text
    assert sent_params(mocked, 0, "/orgs/acme/labels") == {"page": "1", "limit": "50"}


def test_each_call_reads_afresh_and_leaves_the_catalogue_for_the_writes(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    """An agent listing labels wants them as they are now, not as cached up to a minute ago; the write tools then
    find the labels just read without reading them again."""
    serve(mocked, OWN[:1], [])
    serve(mocked, OWN[:2], [])
    first, _ = ok(label_list.TOOL.call(deps, WIDGETS))
    second, _ = ok(label_list.TOOL.call(deps, WIDGETS))
    assert first.startswith("acme/widgets labels: 1\n") and second.startswith("acme/widgets labels: 2\n")
    assert len(mocked.calls) == 4
    assert [x.name for x in deps.catalog.labels(deps.client, "acme", "widgets")] == ["bug", "kind/docs"]
    assert len(mocked.calls) == 4


@pytest.mark.parametrize(
    ("document", "row"),
    [
        pytest.param(label("needs [review]", 3), '"needs [review]" #ee0701', id="name-like-the-marks"),
        pytest.param(label("a,b", 3), '"a,b" #ee0701', id="name-with-a-comma"),
        pytest.param(label("x", 3, description="two\nlines"), 'x #ee0701 "two\\nlines"', id="description-lines"),
        pytest.param(label("x", 3, description="[org] fake"), 'x #ee0701 "[org] fake"', id="description-marks"),
        pytest.param(label("x", 3, color="red"), 'x "red"', id="colour-not-hex"),
        pytest.param(label("x", 3, color=""), "x", id="no-colour"),
    ],
)
def test_other_people_s_text_cannot_pass_for_a_mark_or_another_row(
    mocked: responses.RequestsMock, deps: Deps, document: dict[str, Any], row: str
) -> None:
    serve(mocked, [document], [])
    text, _ = ok(label_list.TOOL.call(deps, WIDGETS))
    assert text.splitlines()[2] == row


def test_an_owner_outside_the_allowlist_is_refused_before_any_request(
    mocked: responses.RequestsMock, deps: Deps
) -> None:
    assert "allow" in failed(label_list.TOOL.call(deps, {"owner": "other", "name": "secret"})).lower()
    assert len(mocked.calls) == 0


def test_a_missing_repository_is_said_in_one_sentence(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(REPO, status=404, json=api_error("The target couldn't be found."))
    mocked.get(ORG, json=[], headers={"X-Total-Count": "0"})
    assert failed(label_list.TOOL.call(deps, WIDGETS)).startswith("repository acme/widgets not found")
