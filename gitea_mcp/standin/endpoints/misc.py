"""The small endpoints: version, API settings, users, organisations, a repository, label and milestone lists, a
repository's assignees.

Labels and milestones are catalogues: without `page` Gitea lists them whole, with it in pages of at most
MAX_RESPONSE_ITEMS; they carry X-Total-Count but no Link.
"""

from __future__ import annotations

from gitea_mcp.standin.core import (
    DEFAULT_PAGING_NUM,
    ApiError,
    Call,
    NotFound,
    Response,
    catalogue_options,
    counted,
    json_response,
    link_header,
    list_options,
    page_of,
)
from gitea_mcp.standin.endpoints.common import assign_repo
from gitea_mcp.standin.render import by_name
from gitea_mcp.standin.store import WRITE, User


def get_version(call: Call) -> Response:
    return json_response({"version": call.profile.version})


def get_api_settings(call: Call) -> Response:
    return json_response(
        {
            "max_response_items": call.profile.max_response_items,
            "default_paging_num": DEFAULT_PAGING_NUM,
            "default_git_trees_per_page": 1000,
            "default_max_blob_size": 10485760,
            "default_max_response_size": 104857600,
        }
    )


def get_me(call: Call) -> Response:
    return json_response(call.view.user(call.require_token()))


def search_users(call: Call) -> Response:
    """`GET /users/search`: individuals only (no organisations), by `uid` or a `q` in login or full name; the list
    is wrapped as `{"ok": true, "data": [...]}`, with Gitea's paging headers."""
    uid, keyword = call.q_int("uid"), call.q("q").strip().lower()
    found = [
        user
        for user in call.store.all_users()
        if not user.is_org
        and (uid <= 0 or user.id == uid)
        and (not keyword or keyword in user.login.lower() or keyword in user.full_name.lower())
    ]
    page, limit = list_options(call)
    response = json_response({"ok": True, "data": [call.view.user(user) for user in page_of(found, page, limit)]})
    link = link_header(call, len(found), limit)
    if link:
        response.expose("Link", link)
    response.expose("X-Total-Count", str(len(found)))
    return response


def get_user(call: Call) -> Response:
    user = call.store.user(call.args["username"])
    if user is None:
        raise ApiError(404, f"user redirect does not exist [name: {call.args['username']}]")
    return json_response(call.view.user(user))


def _org(call: Call) -> User:
    org = call.store.user(call.args["org"])
    if org is None or not org.is_org:
        raise NotFound()
    return org


def get_org(call: Call) -> Response:
    return json_response(call.view.org(_org(call)))


def list_org_labels(call: Call) -> Response:
    return counted(by_name(call.store.org_labels(_org(call).login)), call.view.label, *catalogue_options(call))


def get_repo(call: Call) -> Response:
    return json_response(call.view.repo(assign_repo(call, "repository")))


def list_repo_labels(call: Call) -> Response:
    return counted(by_name(call.store.repo_labels(assign_repo(call))), call.view.label, *catalogue_options(call))


def list_milestones(call: Call) -> Response:
    """Only `open` and `closed` filter: without `state`, or with any other value, every milestone is listed (unlike
    the issue list, where those mean open)."""
    repo = assign_repo(call)
    state = {"open": False, "closed": True}.get(call.q("state"))
    name = call.q("name").upper()  # Gitea: UPPER(name) LIKE %NAME%
    found = [
        m
        for m in call.store.repo_milestones(repo)
        if (state is None or (m.state == "closed") == state) and name in m.title.upper()
    ]
    # The default order: due date ascending, then id; none is a deadline of 0 or of the far future by release.
    undated = 0.0 if call.profile.undated_milestones_first else float("inf")
    found.sort(key=lambda m: (m.due_on.timestamp() if m.due_on else undated, m.id))
    return counted(found, call.view.milestone, *catalogue_options(call))


def list_assignees(call: Call) -> Response:
    """Gitea's GetRepoAssignees: the users with write access, ordered by name, then a user owner not among them
    appended last (an organisation never). One whole list: no paging, no X-Total-Count. A token is required (401)
    once the repository is found (a missing or invisible one is 404 first)."""
    repo = assign_repo(call, "repository")
    call.require_token()
    writers = [
        user
        for login, mode in repo.access.items()
        if mode >= WRITE and (user := call.store.user(login)) is not None and not user.is_org
    ]
    writers.sort(key=lambda user: user.login)
    owner = call.store.user(repo.owner)
    if owner is not None and not owner.is_org and owner not in writers:
        writers.append(owner)
    return json_response([call.view.user(user) for user in writers])
