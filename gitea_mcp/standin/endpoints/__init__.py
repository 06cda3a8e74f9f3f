"""The endpoints the stand-in serves, each with the rules of the real handler (docs/server-behaviour.md), by resource.

ROUTES lists them with the token scope category Gitea checks and the query parameters each reads;
the tests hold every one of those parameters to the OpenAPI spec. Modules: `common` (repository and issue
lookup, shared parameters), `misc` (version, settings, users, organisations, a repository, label and milestone
lists), `lists` (a repository's issues, the cross-repository search), `issues` (one issue: read, create, edit),
`comments` (and the timeline), `labels` (an issue's labels, a new repository label), `reviews` (a pull request's
reviews), `teams` (a user's permission in a repository, its teams and their members), `oauth2` (a user's OAuth2
applications; the provider's web side is standin/oauth). Where releases differ, a handler asks `call.profile`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gitea_mcp.standin.core import Call, Response
from gitea_mcp.standin.endpoints import comments, issues, labels, lists, misc, oauth2, reviews, teams


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # the spec's path template, under /api/v1
    scope: str | None  # the token scope category Gitea requires (read for GET, write otherwise)
    params: frozenset[str]  # the query parameters the endpoint reads
    handler: Callable[[Call], Response]


def _route(method: str, template: str, scope: str | None, handler: Callable[[Call], Response], *params: str) -> Route:
    return Route(method, template, scope, frozenset(params), handler)


_PAGE = ("page", "limit")
_LIST = ("state", "labels", "q", "type", "milestones", "since", "before", "created_by", "assigned_by", "mentioned_by")
_SEARCH = ("state", "labels", "milestones", "q", "type", "since", "before", "assigned", "created", "mentioned")
_SEARCH_MORE = ("review_requested", "reviewed", "owner", "team", "created_by")
_REPO = "/repos/{owner}/{repo}"
_ISSUE = _REPO + "/issues/{index}"
_PULL = _REPO + "/pulls/{index}"

ROUTES: tuple[Route, ...] = (
    _route("GET", "/version", None, misc.get_version),
    _route("GET", "/settings/api", None, misc.get_api_settings),
    _route("GET", "/user", "user", misc.get_me),
    _route("GET", "/user/applications/oauth2", "user", oauth2.list_apps, *_PAGE),
    _route("POST", "/user/applications/oauth2", "user", oauth2.create_app),
    _route("GET", "/user/applications/oauth2/{id}", "user", oauth2.get_app),
    _route("PATCH", "/user/applications/oauth2/{id}", "user", oauth2.update_app),
    _route("DELETE", "/user/applications/oauth2/{id}", "user", oauth2.delete_app),
    _route("GET", "/users/search", "user", misc.search_users, "uid", "q", *_PAGE),
    _route("GET", "/users/{username}", "user", misc.get_user),
    _route("GET", "/orgs/{org}", "organization", misc.get_org),
    _route("GET", "/orgs/{org}/labels", "organization", misc.list_org_labels, *_PAGE),
    # Before /repos/{owner}/{repo}, which would otherwise read this as owner "issues", repository "search".
    _route("GET", "/repos/issues/search", "issue", lists.search_issues, *_SEARCH, *_SEARCH_MORE, *_PAGE),
    _route("GET", _REPO, "repository", misc.get_repo),
    _route("GET", _REPO + "/issues", "issue", lists.list_issues, *_LIST, *_PAGE),
    _route("POST", _REPO + "/issues", "issue", issues.create_issue),
    _route("GET", _ISSUE, "issue", issues.get_issue),
    _route("PATCH", _ISSUE, "issue", issues.edit_issue),
    _route("GET", _ISSUE + "/comments", "issue", comments.list_comments, "since", "before"),
    _route("POST", _ISSUE + "/comments", "issue", comments.create_comment),
    _route("GET", _ISSUE + "/timeline", "issue", comments.list_timeline, "since", "before", *_PAGE),
    _route("GET", _ISSUE + "/dependencies", "issue", issues.list_dependencies, *_PAGE),
    _route("POST", _ISSUE + "/dependencies", "issue", issues.add_dependency),
    _route("DELETE", _ISSUE + "/dependencies", "issue", issues.remove_dependency),
    _route("GET", _ISSUE + "/blocks", "issue", issues.list_blocks, *_PAGE),
    _route("GET", _ISSUE + "/labels", "issue", labels.get_issue_labels),
    _route("POST", _ISSUE + "/labels", "issue", labels.add_issue_labels),
    _route("PUT", _ISSUE + "/labels", "issue", labels.replace_issue_labels),
    _route("DELETE", _ISSUE + "/labels", "issue", labels.clear_issue_labels),
    _route("DELETE", _ISSUE + "/labels/{id}", "issue", labels.delete_issue_label),
    _route("GET", _REPO + "/labels", "issue", misc.list_repo_labels, *_PAGE),
    _route("POST", _REPO + "/labels", "issue", labels.create_repo_label),
    _route("GET", _PULL + "/reviews", "repository", reviews.list_reviews, *_PAGE),
    _route("GET", _PULL + "/reviews/{id}/comments", "repository", reviews.list_review_comments),
    _route("GET", _REPO + "/milestones", "issue", misc.list_milestones, "state", "name", *_PAGE),
    _route("GET", _REPO + "/assignees", "repository", misc.list_assignees),
    _route("GET", _REPO + "/collaborators/{collaborator}/permission", "repository", teams.get_permission),
    _route("GET", _REPO + "/teams", "repository", teams.list_repo_teams),
    _route("GET", "/teams/{id}/members", "organization", teams.list_team_members, *_PAGE),
)
