"""GITEA_TOOLSETS (--toolsets): comma-separated toolsets, default all; an unknown name stops the server naming the
nearest, and a choice serving no tool is refused at start. The filtering itself: tests/toolkit/test_registry.py."""

from __future__ import annotations

import pytest

from gitea_mcp.cli.main import parse_args, settings_from
from gitea_mcp.domain.toolsets import TOOLSETS
from gitea_mcp.settings import ConfigError, Settings
from tests.support.toolsets import issues_alone

BASE = {"GITEA_URL": "http://127.0.0.1:9", "GITEA_ALLOWED_OWNERS": "acme"}


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in BASE.items():
        monkeypatch.setenv(key, value)
    for key in ("GITEA_TOOLSETS", "GITEA_READ_ONLY"):
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize(
    ("argv", "variable", "toolsets"),
    [
        ([], None, TOOLSETS),
        ([], "", TOOLSETS),
        ([], "all", TOOLSETS),
        ([], "issues", ("issues",)),
        ([], " People , ISSUES ", ("issues", "people")),  # the declared order, whatever the order given
        ([], "issues,issues,,", ("issues",)),
        ([], "labels,all", TOOLSETS),
        (["--toolsets", "issues,labels"], None, ("issues", "labels")),
        (["--toolsets", "issues"], "labels", ("issues",)),  # the flag wins
    ],
)
def test_toolsets_are_read_from_the_flag_or_the_variable(
    argv: list[str], variable: str | None, toolsets: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    if variable is not None:
        monkeypatch.setenv("GITEA_TOOLSETS", variable)
    assert settings_from(parse_args(argv)).toolsets == toolsets


@pytest.mark.parametrize(
    ("argv", "variable", "said"),
    [
        ([], "lables", "GITEA_TOOLSETS entry 'lables' is not a toolset; did you mean labels?"),
        ([], "issues, milestone", "GITEA_TOOLSETS entry 'milestone' is not a toolset; did you mean milestones?"),
        ([], "assignees", "GITEA_TOOLSETS entry 'assignees' is not a toolset; did you mean people?"),
        (["--toolsets", "repos"], None, "--toolsets entry 'repos' is not a toolset ("),
        ([], "pulls", "GITEA_TOOLSETS entry 'pulls' is not a toolset (name one or more of issues, labels, "
         "milestones, people, comma-separated, or all (the default))"),
    ],
)  # fmt: skip
def test_an_unknown_toolset_stops_the_server_naming_the_nearest(
    argv: list[str], variable: str | None, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if variable is not None:
        monkeypatch.setenv("GITEA_TOOLSETS", variable)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args(argv))
    assert said in str(refused.value)


@pytest.mark.parametrize(
    ("argv", "writes_only", "said"),
    [
        (["--toolsets", "labels"], False, "GITEA_TOOLSETS=labels serves no tool; the toolsets with tools: issues."),
        (["--toolsets", "people,milestones"], False,
         "GITEA_TOOLSETS=milestones,people serves no tool; the toolsets with tools: issues."),
        (["--toolsets", "issues", "--read-only"], True,
         "GITEA_TOOLSETS=issues with GITEA_READ_ONLY=true serves no tool; the toolsets with tools to read: none."),
    ],
)  # fmt: skip
def test_a_choice_that_serves_no_tool_is_refused_at_start(
    argv: list[str], writes_only: bool, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    issues_alone(monkeypatch, writes_only=writes_only)
    with pytest.raises(ConfigError) as refused:
        settings_from(parse_args(argv))
    assert str(refused.value) == said


def test_settings_keep_the_declared_order_and_refuse_none() -> None:
    made = Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}), toolsets=("people", "issues"))
    assert made.toolsets == ("issues", "people")
    with pytest.raises(ValueError, match="GITEA_TOOLSETS names no toolset"):
        Settings(url="http://127.0.0.1:9", allowed_owners=frozenset({"acme"}), toolsets=())
