"""Issue 35, finding 7: label names cost one listing, never a search each. A call names at most MAX_LABEL_NAMES
labels (refused in one sentence past it, before anything is sent); the names are resolved from one listing of the
repository's labels and of the organisation's, or, where the token cannot list those, one search for all of them.

And the names an answer showed (scrubbed: domain/invisible.py) find the server's labels and milestones again."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import responses

from gitea_mcp.domain.policy import MAX_LABEL_NAMES
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_create, issue_list, issue_search, issue_update
from tests.support.gitea_json import API, LABELS, MILESTONES, api_error, issue, label, milestone, org_label
from tests.support.mocks import optional
from tests.support.results import failed, ok

ISSUE = f"{API}/repos/acme/widgets/issues/7"
SEARCH = f"{API}/repos/issues/search"
NO_ORG_SCOPE = "token does not have at least one of required scope(s), required=[read:organization], token scope=x"
MANY = [f"ext-{n}" for n in range(1, 401)]
WIDGETS = {"owner": "acme", "name": "widgets"}


def searches(rsps: responses.RequestsMock) -> list[dict[str, str]]:
    urls = [c.request.url or "" for c in rsps.calls]
    return [dict(parse_qsl(urlsplit(url).query)) for url in urls if url.startswith(SEARCH)]


def refused(count: int) -> str:
    return (
        f"{count} label names in one call are more than the {MAX_LABEL_NAMES} gitea_mcp takes; name at most "
        f"{MAX_LABEL_NAMES} labels per call."
    )


CALLS: list[Any] = [
    pytest.param(issue_create.TOOL, {**WIDGETS, "title": "T", "labels": MANY}, 400, id="create-labels"),
    pytest.param(issue_update.TOOL, {**WIDGETS, "number": 7, "add_labels": MANY}, 400, id="update-add"),
    pytest.param(issue_update.TOOL, {**WIDGETS, "number": 7, "labels": ",".join(MANY)}, 400, id="update-set"),
    pytest.param(issue_update.TOOL, {**WIDGETS, "number": 7, "add_labels": MANY[:30], "remove_labels": MANY[30:60]},
                 60, id="update-together"),
    pytest.param(issue_list.TOOL, {**WIDGETS, "labels": MANY}, 400, id="list"),
    pytest.param(issue_search.TOOL, {"query": " ".join(f"label:{n}" for n in MANY[:60]), **WIDGETS}, 60,
                 id="search-one-repository"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "args", "count"), CALLS)
def test_too_many_label_names_are_refused_in_one_sentence_before_any_request(
    mocked: responses.RequestsMock, deps: Deps, tool: Any, args: dict[str, Any], count: int
) -> None:
    """400 names used to cost 401 requests (the listing, then a search per name); now none."""
    assert failed(tool.call(deps, args)) == refused(count)
    assert len(mocked.calls) == 0


@pytest.fixture
def unlistable(mocked: responses.RequestsMock) -> responses.RequestsMock:
    """A token of the documented scopes: the organisation's labels cannot be listed; Gitea 1.25 finds them by name."""
    optional(mocked).get(ISSUE, json=issue(7, labels=[LABELS[0]]))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=LABELS, headers={"X-Total-Count": "3"})
    mocked.get(f"{API}/orgs/acme/labels", status=403, json=api_error(NO_ORG_SCOPE))
    optional(mocked).get(f"{API}/version", json={"version": "1.25.4"})
    return mocked


ORG = [org_label(name, 40 + n) for n, name in enumerate(MANY[:3])]  # some issue of acme carries these three


def test_the_most_names_cost_one_listing_and_one_search(unlistable: responses.RequestsMock, deps: Deps) -> None:
    names = MANY[:MAX_LABEL_NAMES]
    unlistable.get(SEARCH, json=[issue(9, repo="gadgets", labels=ORG)])
    unlistable.post(f"{ISSUE}/labels", json=[LABELS[0], *ORG])
    result = issue_update.TOOL.call(deps, {**WIDGETS, "number": 7, "add_labels": names})
    ok(result)
    [search] = searches(unlistable)
    assert search["labels"] == ",".join(names) and search["owner"] == "acme"
    gets = [c for c in unlistable.calls if c.request.method == "GET"]
    assert len(gets) <= 5  # the issue, the two listings, the version, the one search
    [post] = [json.loads(c.request.body or b"") for c in unlistable.calls if c.request.method == "POST"]
    assert post == {"labels": names}  # names, some left to Gitea: it takes all names or all ids


def test_a_list_filter_of_unknown_names_costs_one_search(unlistable: responses.RequestsMock, deps: Deps) -> None:
    unlistable.get(SEARCH, json=[])
    text = failed(issue_list.TOOL.call(deps, {**WIDGETS, "labels": MANY[:MAX_LABEL_NAMES]}))
    assert text.startswith("label 'ext-1', 'ext-2'")
    assert len(searches(unlistable)) == 1


# -- names read back -------------------------------------------------------------------------------------------

HIDDEN_BUG = label("bug\u200b", 31)  # as a migration may have made it: a zero-width space at the end
HIDDEN_V2 = milestone("v2\u2800", 12)  # a braille blank


def test_a_label_name_read_back_finds_its_label(mocked: responses.RequestsMock, deps: Deps) -> None:
    """The answers show `bug` (the zero-width space dropped from both faces); `bug` sent back is that label."""
    mocked.get(ISSUE, json=issue(7, labels=[]))
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[HIDDEN_BUG], headers={"X-Total-Count": "1"})
    optional(mocked).get(f"{API}/orgs/acme/labels", json=[], headers={"X-Total-Count": "0"})
    mocked.post(f"{ISSUE}/labels", json=[HIDDEN_BUG])
    _, data = ok(issue_update.TOOL.call(deps, {**WIDGETS, "number": 7, "add_labels": ["bug"]}))
    [post] = [json.loads(c.request.body or b"") for c in mocked.calls if c.request.method == "POST"]
    assert post == {"labels": [31]} and data["labels"] == ["bug"] and data["warnings"] == []


def test_a_list_filter_read_back_sends_the_servers_names(mocked: responses.RequestsMock, deps: Deps) -> None:
    mocked.get(f"{API}/repos/acme/widgets/labels", json=[HIDDEN_BUG], headers={"X-Total-Count": "1"})
    mocked.get(f"{API}/repos/acme/widgets/milestones", json=[*MILESTONES, HIDDEN_V2], headers={"X-Total-Count": "3"})
    rows = [issue(4, labels=[HIDDEN_BUG], milestone_=HIDDEN_V2)]
    mocked.get(f"{API}/repos/acme/widgets/issues", json=rows, headers={"X-Total-Count": "1"})
    text, _ = ok(issue_list.TOOL.call(deps, {**WIDGETS, "labels": ["bug"], "milestones": ["v2"]}))
    sent = [
        dict(parse_qsl(urlsplit(c.request.url or "").query))
        for c in mocked.calls
        if "/issues?" in (c.request.url or "")
    ]
    assert sent[-1]["labels"] == "bug\u200b"  # Gitea's list matches names exactly
    assert sent[-1]["milestones"] in ("v2\u2800", "12")
    assert "#4 " in text
