"""Label names on writes, the parts that need no server: a name found exactly or as answers show it, exclusive
scopes, and an unknown name refused with the names there (or left to Gitea where it may be an unseen
organisation label)."""

from __future__ import annotations

import pytest

from gitea_mcp.domain.failures import ToolFailure
from gitea_mcp.gitea.models import Label
from gitea_mcp.toolkit.labels import LabelSet, refuse_scope_clashes, scope_of
from tests.support.gitea_json import label


def labels(*names: str, exclusive: bool = False) -> list[Label]:
    return [Label.model_validate(label(name, 10 + i, exclusive=exclusive)) for i, name in enumerate(names)]


def label_set(org_readable: bool = True, by_name_on_server: bool = True) -> LabelSet:
    return LabelSet("acme/widgets", labels("bug", "zero\u200bwidth"), org_readable, by_name_on_server)


def test_a_name_is_found_exactly_or_as_an_answer_showed_it() -> None:
    found = label_set()
    assert [found.find(name) is not None for name in ("bug", "zero\u200bwidth", "zerowidth", "Bug")] == [
        True,
        True,
        True,
        False,
    ]


@pytest.mark.parametrize(("name", "exclusive", "scope"), [("priority/high", True, "priority"),
                         ("priority/high", False, None), ("plain", True, None), ("a/b/c", True, "a/b"),
                         ("/high", True, None), ("priority/", True, None), ("a//b", True, "a/")])  # fmt: skip
def test_an_exclusive_label_s_scope(name: str, exclusive: bool, scope: str | None) -> None:
    assert scope_of(labels(name, exclusive=exclusive)[0]) == scope


def test_two_labels_of_one_exclusive_scope_are_refused() -> None:
    refuse_scope_clashes(labels("priority/high", "kind/bug", exclusive=True))
    with pytest.raises(ToolFailure, match=r"'priority/high' and 'priority/low' are exclusive \(scope 'priority'\)"):
        refuse_scope_clashes(labels("priority/high", "priority/low", exclusive=True))


@pytest.mark.parametrize(
    ("org_readable", "by_name", "to_gitea", "left", "said"),
    [
        (True, True, True, None, "Labels there: 'bug', 'zero\\u200bwidth'."),  # repr: the invisible one shown
        (False, True, True, ["nope"], None),
        (False, True, False, None, "file the issue without it, then issue_update add_labels=NAME"),
        (False, False, True, None, "this Gitea finds them by name only from 1.23 on."),
    ],
    ids=["org-listed", "left-to-gitea", "create-refuses", "old-gitea"],
)
def test_an_unknown_name(
    org_readable: bool, by_name: bool, to_gitea: bool, left: list[str] | None, said: str | None
) -> None:
    known = label_set(org_readable, by_name)
    if said is None:
        assert known.resolve(["bug", "nope"], to_gitea) == (labels("bug"), left)
        return
    with pytest.raises(ToolFailure) as refused:
        known.resolve(["bug", "nope"], to_gitea)
    assert str(refused.value).startswith("label 'nope' does not exist in acme/widgets.")
    assert said in str(refused.value)
