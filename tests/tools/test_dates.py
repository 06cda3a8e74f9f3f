"""One rule for a bare date (and a time) across every tool and argument: issue_list's since/before mean exactly
what issue_search's updated:>= and updated:< mean, sent to Gitea as the same inclusive whole seconds."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_list, issue_search
from tests.support.gitea_json import API
from tests.support.mocks import sent_params
from tests.support.results import failed, ok

ISSUES = f"{API}/repos/acme/widgets/issues"
REPO = {"owner": "acme", "name": "widgets"}


def _sent(mocked: responses.RequestsMock, deps: Deps, tool: Any, args: dict[str, Any]) -> dict[str, str]:
    mocked.get(ISSUES, json=[], headers={"X-Total-Count": "0"})
    ok(tool.TOOL.call(deps, args))
    params = sent_params(mocked, path_end="/issues")
    return {key: params[key] for key in ("since", "before") if key in params}


@pytest.mark.parametrize(
    ("list_args", "query", "gitea"),
    [
        pytest.param({"since": "2026-12-01"}, "updated:>=2026-12-01", {"since": "2026-12-01T00:00:00Z"}, id="since"),
        pytest.param({"before": "2026-12-01"}, "updated:<2026-12-01", {"before": "2026-11-30T23:59:59Z"}, id="before"),
        pytest.param(
            {"since": "2026-12-01", "before": "2026-12-02"},
            "updated:2026-12-01",
            {"since": "2026-12-01T00:00:00Z", "before": "2026-12-01T23:59:59Z"},
            id="one-day",
        ),
        pytest.param(
            {"before": "2026-12-01T12:00:00Z"},
            "updated:<2026-12-01T12:00:00Z",
            {"before": "2026-12-01T11:59:59Z"},
            id="before-time",
        ),
        pytest.param(
            {"since": "2026-12-01T08:00:00+02:00"},
            "updated:>=2026-12-01T08:00:00+02:00",
            {"since": "2026-12-01T06:00:00Z"},
            id="since-offset",
        ),
        pytest.param(
            {"since": "2026-12-01T12:00:00.5Z", "before": "2026-12-01T12:00:02.5Z"},
            "updated:>=2026-12-01T12:00:00.5Z updated:<2026-12-01T12:00:02.5Z",
            {"since": "2026-12-01T12:00:01Z", "before": "2026-12-01T12:00:02Z"},
            id="fractions",
        ),
    ],
)
def test_issue_list_dates_mean_what_the_same_search_means(
    mocked: responses.RequestsMock, deps: Deps, list_args: dict[str, str], query: str, gitea: dict[str, str]
) -> None:
    listed = _sent(mocked, deps, issue_list, {**REPO, **list_args})
    searched = _sent(mocked, deps, issue_search, {"query": query, **REPO})
    assert listed == searched == gitea


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        pytest.param({"since": "2026-12-02", "before": "2026-12-01"}, "empty time range", id="reversed"),
        pytest.param({"since": "2026-12-01", "before": "2026-12-01"}, "before=2026-12-02", id="same-day"),
        pytest.param({"before": "1970-01-01"}, "1970-01-01", id="before-1970"),
        pytest.param({"since": "2026-12-01T10:00:00"}, "not a valid date or time", id="no-zone"),
    ],
)
def test_issue_list_refuses_what_no_date_can_match(
    mocked: responses.RequestsMock, deps: Deps, args: dict[str, str], phrase: str
) -> None:
    assert phrase in failed(issue_list.TOOL.call(deps, {**REPO, **args}))


def test_the_rule_is_stated_in_both_schemas() -> None:
    from gitea_mcp.domain import dates

    assert dates.RULE in issue_list.TOOL.spec.description
    assert dates.RULE in issue_search.TOOL.spec.description
