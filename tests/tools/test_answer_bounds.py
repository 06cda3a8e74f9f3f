"""Issue 35, finding 8: an answer is bounded whatever the arguments. `issue_get max_chars=0` used to answer an
issue's texts whole: 16 MB for an issue with two answers of 8 MiB. Now all the texts of one answer share
ANSWER_CHARS, each at most 4 bytes in either face, and the whole answer — text and structured content, as the SDK
sends them — stays under 1 MiB. (Memory under 24 such calls at once is the bench's: `task bench`.)"""

from __future__ import annotations

import pytest
import responses
from mcp_types import CallToolResult

from gitea_mcp.toolkit.base import Deps
from gitea_mcp.tools import issue_get
from gitea_mcp.tools.issue_get import ANSWER_CHARS, fair_cut
from tests.support.gitea_json import API, comment, issue, review, review_comment
from tests.support.results import ok

MIB = 1_048_576
ISSUE = f"{API}/repos/acme/widgets/issues/7"
PULL = f"{API}/repos/acme/widgets/pulls/7"
# The costliest text there is, per character: 4 bytes in UTF-8 in either face (a quote or a line break costs 2).
WORST = "🚀😀🚀🚀😀"


def text(chars: int) -> str:
    return (WORST * (chars // len(WORST) + 1))[:chars]


def wire_bytes(result: CallToolResult) -> int:
    """The result as the SDK writes it in its answer (pydantic's JSON of the whole CallToolResult)."""
    return len(result.model_dump_json(by_alias=True, exclude_unset=True).encode())


def serve_issue(mocked: responses.RequestsMock, body: int, each_comment: int, pull: bool = False) -> None:
    mocked.get(ISSUE, json=issue(7, "A title", body=text(body), pull=pull))
    mocked.get(f"{ISSUE}/comments", json=[comment(n, text(each_comment), number=7) for n in range(1, 21)])
    if not pull:
        mocked.get(f"{PULL}/reviews", status=404, json={"message": "not found"})
        return
    reviews = [review(n, body=text(each_comment), comments_count=3) for n in range(1, 17)]
    mocked.get(f"{PULL}/reviews", json=reviews)
    for n in range(1, 17):
        inline = [review_comment(100 * n + k, text(each_comment), review_id=n) for k in range(3)]
        mocked.get(f"{PULL}/reviews/{n}/comments", json=inline)


@pytest.mark.parametrize("max_chars", [0, ANSWER_CHARS, 10**9])
@pytest.mark.parametrize("pull", [False, True], ids=["issue", "pull-with-reviews"])
def test_the_largest_issue_get_answer_is_under_1_mib(
    mocked: responses.RequestsMock, deps: Deps, max_chars: int, pull: bool
) -> None:
    serve_issue(mocked, body=600_000, each_comment=30_000, pull=pull)  # each answer under Gitea's 8 MiB
    result = issue_get.TOOL.call(deps, {"owner": "acme", "name": "widgets", "number": 7, "max_chars": max_chars})
    shown, data = ok(result)
    size = wire_bytes(result)
    assert size < MIB, f"{size:,} bytes"
    texts = [data["body"], *(c["body"] for c in data["comments"])]
    texts += [t for r in data["reviews"] or [] for t in (r["body"], *(c["body"] for c in r["comments"]))]
    assert sum(map(len, texts)) <= ANSWER_CHARS
    assert len({len(t) for t in texts}) == 1, "every text cut at the same length"
    assert f"texts are cut at {ANSWER_CHARS} characters in all" in shown
    print(f"\nissue_get max_chars={max_chars} ({'pull' if pull else 'issue'}): {size:,} bytes")


def test_a_short_answer_is_whole(mocked: responses.RequestsMock, deps: Deps) -> None:
    """Below the bound nothing changes: max_chars=0 shows every text whole."""
    serve_issue(mocked, body=30_000, each_comment=1_000)
    _, data = ok(issue_get.TOOL.call(deps, {"owner": "acme", "name": "widgets", "number": 7, "max_chars": 0}))
    assert len(data["body"]) == data["body_chars"] == 30_000
    assert all(len(c["body"]) == c["body_chars"] == 1_000 for c in data["comments"])


@pytest.mark.parametrize(
    ("lengths", "asked", "cut"),
    [
        ([10, 20], 0, ANSWER_CHARS),  # all fits: the cut is the bound itself, which cuts nothing
        ([10, 20], 15, 15),  # as asked
        ([60_000, 60_000], 0, 50_000),  # two long texts share it evenly
        ([90_000, 100, 50_000], 0, 49_950),  # short texts whole, the long ones cut alike
        ([200_000], 5_000, 5_000),
        ([1] * 100 + [10**6], 0, ANSWER_CHARS - 100),
        ([5] * 200_000, 0, 1),  # never 0, which would mean no cut at all
    ],
)
def test_the_fair_cut(lengths: list[int], asked: int, cut: int) -> None:
    assert fair_cut(lengths, asked) == cut
