"""A pull request's reviews and each review's inline comments (routes of the repository scope, read:repository).

Reviews come oldest first, whole unless `page` is given; a pending review is shown to its reviewer only, though
X-Total-Count counts it for everybody. A number that is an issue, or none at all, is 404 naming the handler.
"""

from __future__ import annotations

from gitea_mcp.standin.core import Call, NotFound, Response, json_response, list_options, page_of
from gitea_mcp.standin.endpoints.common import assign_repo
from gitea_mcp.standin.store import Issue, Repo, Review


def list_reviews(call: Call) -> Response:
    repo = assign_repo(call, "repository")
    reviews = call.store.reviews_of(_pull(call, repo))
    shown = [r for r in reviews if _visible(call, r)]
    if call.q_int("page") > 0:
        shown = page_of(shown, *list_options(call))
    response = json_response([call.view.review(r) for r in shown])
    response.expose("X-Total-Count", str(len(reviews)))
    return response


def list_review_comments(call: Call) -> Response:
    repo = assign_repo(call, "repository")
    pull = _pull(call, repo)
    text = call.args["id"]
    review_id = int(text) if text.isdigit() else 0
    review = next((r for r in call.store.reviews_of(pull) if r.id == review_id), None)
    if review is None or not _visible(call, review):
        raise NotFound(f"review does not exist [id: {review_id}]", message="GetReviewByID")
    return json_response([call.view.review_comment(review, c) for c in review.comments])


def _pull(call: Call, repo: Repo) -> Issue:
    text = call.args["index"]
    number = int(text) if text.isdigit() else 0
    pull = next((i for i in call.store.issues_of(repo) if i.number == number and i.is_pull), None)
    if pull is None:
        raise NotFound(
            f"pull request does not exist [id: 0, issue_id: 0, head_repo_id: 0, base_repo_id: {repo.id}, "
            "head_branch: , base_branch: ]",
            message="GetPullRequestByIndex",
        )
    return pull


def _visible(call: Call, review: Review) -> bool:
    return review.state != "PENDING" or (call.login or "").lower() == review.reviewer.lower()
