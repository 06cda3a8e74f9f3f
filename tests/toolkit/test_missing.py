"""What a 404 means: an unknown user filter names itself, a missing repository has no label list, and without a
token a private repository is said to be a possibility. Only issue routes are asked."""

from __future__ import annotations

import pytest
import responses

from gitea_mcp.domain.policy import Policy
from gitea_mcp.gitea.catalog import Catalog
from gitea_mcp.gitea.client import GiteaClient, RetryPolicy
from gitea_mcp.gitea.errors import GiteaError
from gitea_mcp.toolkit.base import Deps
from gitea_mcp.toolkit.missing import explain_issue_404, explain_list_404
from tests.support import TOKEN
from tests.support.gitea_json import API, ROOT, api_error, unknown_user_404

LABELS = f"{API}/repos/acme/widgets/labels"
ISSUES = f"{API}/repos/acme/widgets/issues"


def deps(token: str | None = TOKEN) -> Deps:
    client = GiteaClient(ROOT, token, timeout=5, retry=RetryPolicy(attempts=1))
    return Deps(client=client, policy=Policy(frozenset({"acme"})), catalog=Catalog())


def list_404(body: dict[str, object]) -> GiteaError:
    with responses.RequestsMock() as mock:
        mock.get(ISSUES, json=body, status=404)
        try:
            deps().client.get(["repos", "acme", "widgets", "issues"], {})
        except GiteaError as exc:
            return exc
    raise AssertionError("no 404")


def test_an_unknown_user_filter_names_itself_without_another_request() -> None:
    error = list_404(unknown_user_404("nobody"))
    with responses.RequestsMock():  # nothing may be asked
        said = explain_list_404(deps(), "acme", "widgets", error, {"created_by": "nobody"})
    assert str(said) == "created_by='nobody': no Gitea user by that name; check the username."


@pytest.mark.parametrize(
    ("labels", "token", "said"),
    [
        (404, TOKEN, "repository acme/widgets not found, or this token cannot see it; check the owner and name."),
        (404, None, "repository acme/widgets not found, or it is private: "),
        (200, TOKEN, "acme/widgets has no issue or pull request #9; find numbers with issue_list."),
    ],
    ids=["no-repository", "no-repository-no-token", "no-issue"],
)
def test_an_issue_404_is_the_repository_or_the_issue(labels: int, token: str | None, said: str) -> None:
    with responses.RequestsMock() as mock:
        mock.get(LABELS, json=[] if labels == 200 else api_error("not found"), status=labels)
        assert str(explain_issue_404(deps(token), "acme", "widgets", 9)).startswith(said)
