"""The README for a newcomer, read in five minutes: at most 20 KB with a table of contents, its set-up commands the
ones tested (tests/install/) and run by CI (.ci/run); the tools reference it links to (docs/tools.md) what the
tools declare and print, the settings tables (docs/settings.md) what the command line declares.

The generated parts are checked with the other files made from the tool modules (tests/test_generated.py);
regenerate them deliberately with `python -m tests.support.generated` and review the diff.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitea_mcp.toolkit import render
from gitea_mcp.toolkit.base import ToolDefinition
from tests.golden.test_screens import CASES, EVERY_SCOPE, SCREENS, SHOWN_URL, WRITES
from tests.support import readme, tool_cases

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SETTINGS_DOC = ROOT / "docs" / "settings.md"
# What a newcomer reads in five minutes; the anchors' READMEs are about 17 KB.
MOST_BYTES = 20_000
# The golden screens the README shows, each under its tool; a tool none of them shows is shown by its example
# screen (its plain call: tests/support/generated.py). Every error screen is shown after the tools.
SHOWN = ["list", "search_many", "search_link", "get_link", "get_pull_reviews", "labels_scoped", "labels_with_org",
         "create", "update", "update_unchanged", "comment", "assignees"]  # fmt: skip
ERRORS = [
    "error_unknown_argument", "error_invalid_value", "error_owner_not_allowed", "error_unknown_label",
    "error_unknown_user", "error_missing_issue", "error_refused_query", "error_link_elsewhere",
    "error_nothing_to_change", "error_moved_away", "error_assignees_without_read_repository",
]  # fmt: skip


def _cases() -> dict[str, tuple[ToolDefinition, dict[str, Any]]]:
    examples = {f"example_{tool.spec.name}": (tool, tool_cases.sample(tool)) for tool in tool_cases.tools()}
    return {**CASES, **WRITES, **EVERY_SCOPE, **examples}


def examples(tool: ToolDefinition) -> list[str]:
    """The screens that show `tool` in the README."""
    cases = _cases()
    return [screen for screen in SHOWN if cases[screen][0].spec == tool.spec] or [f"example_{tool.spec.name}"]


def _call(screen: str) -> str:
    tool, args = _cases()[screen]
    shown: dict[str, Any] = {k: v.replace("{url}", SHOWN_URL) if isinstance(v, str) else v for k, v in args.items()}
    shown = {k: ",".join(v) if isinstance(v, list) else v for k, v in shown.items()}
    return f"{tool.spec.name} {render.args_text(shown)}"


def _example(screen: str) -> str:
    # A screen read with every scope shows what the tool's optional scope adds: the one its scope_note names.
    optional = re.search(r"`(\w+:\w+)`", _cases()[screen][0].spec.scope_note) if screen in EVERY_SCOPE else None
    scope = f" (a token that also has {optional.group(1)})" if optional else ""
    return f"`{_call(screen)}`{scope}:\n\n```text\n{_screen(screen)}\n```"


def _screen(name: str) -> str:
    return (SCREENS / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")


def tools_reference() -> str:
    parts = []
    for tool in tool_cases.tools():
        parts += [f"### `{tool.spec.name}`", tool.spec.description, readme.argument_table(tool)]
        parts += [_example(screen) for screen in examples(tool)]
    errors = "\n\n".join(f"→ {_call(name)}\n{_screen(name)}" for name in ERRORS)
    parts += ["### Errors, as the agent reads them", f"```text\n{errors}\n```"]
    return "\n\n".join(parts) + "\n"


@pytest.mark.parametrize("tool", tool_cases.tools(), ids=tool_cases.name_of)
def test_every_argument_has_a_meaning_in_the_reference(tool: Any) -> None:
    """An argument whose schema leaves the words out (its name, the description or its enum says it to the agent)
    still has a meaning for the README's reader."""
    rows = readme.argument_table(tool).splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows if row.endswith("|  |")] == []


def test_every_shown_and_error_screen_exists() -> None:
    for name in [*SHOWN, *ERRORS]:
        assert (SCREENS / f"{name}.txt").exists(), name


@pytest.mark.slow
def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    """.ci/run executes exactly the README's block under <!-- setup:test --> (its sed pipeline, run here)."""
    found = re.search(r"<!-- setup:test -->\n```sh\n(.*?)\n```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert found, "README.md lacks the setup:test block"
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extraction = re.search(r"command=\$\((.*)\)\n", script)
    assert extraction and 'bash -euo pipefail -c "$command"' in script
    done = subprocess.run(["bash", "-c", extraction.group(1)], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == found.group(1)
    assert found.group(1).endswith("&& task check"), "the test command ends in the gate"


def test_the_standin_command_is_documented_with_every_flag_and_profile() -> None:
    """`python -m gitea_mcp.standin` is for anyone trying a client or the tools by hand: the README says how."""
    from gitea_mcp.standin.__main__ import parser
    from gitea_mcp.standin.profile import PROFILES

    readme = README.read_text(encoding="utf-8")
    assert "python -m gitea_mcp.standin" in readme, "the stand-in's command is documented nowhere"
    section = readme[readme.index("python -m gitea_mcp.standin") :].split("\n\n", 1)[0]
    flags = [option for action in parser()._actions for option in action.option_strings if option.startswith("--")]
    assert [flag for flag in flags if flag != "--help" and f"`{flag}" not in section] == []
    assert [name for name in PROFILES if f"`{name}`" not in section] == []


def install_commands() -> list[str]:
    """Every command of the README's install block (split at &&, ;, |), comments left out."""
    readme = README.read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)\n```", readme[readme.index("### Install") :], re.DOTALL)
    assert block, "README.md's Install section has no sh block"
    lines = [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    return [command.strip() for line in lines for command in re.split(r"&&|;|\|", line)]


def test_no_install_command_is_a_bare_pip() -> None:
    """A bare `pip install` is refused by Debian's and Ubuntu's Python (externally managed) and installs into the
    system's Python elsewhere: every pip the install section runs is a venv's."""
    assert [command for command in install_commands() if command.split()[0] in ("pip", "pip3")] == []


def test_pipx_installs_say_pipx_ensurepath() -> None:
    """pipx puts the command in ~/.local/bin, on no PATH until `pipx ensurepath` (and a new shell)."""
    commands = install_commands()
    assert any(command.startswith("pipx install") for command in commands)
    assert "pipx ensurepath" in commands


def configuration_table() -> list[tuple[set[str], set[str]]]:
    """docs/settings.md's tables: each row's variables and flags."""
    text = SETTINGS_DOC.read_text(encoding="utf-8")
    tables = re.findall(r"\| variable \| flag \| meaning \|\n\|---\|---\|---\|\n(.*?)\n(?:\n|<!--)", text, re.DOTALL)
    assert tables, "docs/settings.md lacks its settings tables"
    rows = [line.split(" | ", 2) for table in tables for line in table.splitlines()]
    return [(set(re.findall(r"`(GITEA_\w+)`", row[0])), set(re.findall(r"`(--[\w-]+)`", row[1]))) for row in rows]


def test_the_configuration_table_names_every_setting_as_it_is_declared() -> None:
    """Each setting the command line declares (gitea_mcp/cli/main.py) has its variables and its flag, as typed, in
    docs/settings.md's tables, and they name no other: a setting added (GITEA_TOOLSETS, say) is documented."""
    from gitea_mcp.cli.main import SETTINGS

    rows = configuration_table()
    variables = {name for names, _ in rows for name in names}
    flags = {flag for _, row_flags in rows for flag in row_flags}
    assert variables == {name for setting in SETTINGS.values() for name in setting.env}
    assert flags == {setting.typed for setting in SETTINGS.values()}
    for setting in SETTINGS.values():  # a variable and its flag on the same row
        assert any(setting.env[0] in names and setting.typed in row_flags for names, row_flags in rows), setting.flag


def test_the_readme_reads_in_five_minutes() -> None:
    """At most 20 KB, a table of contents linking each of its own sections, and the newcomer's order: the two
    commands first (run the demo, pass the tests), then their own Gitea and client, then a reference that links out."""
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= MOST_BYTES, f"README.md is {len(text.encode())} bytes; move detail to docs/"
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    contents = text[text.index("**Contents**") : text.index(f"## {sections[0]}")]
    assert [s for s in sections if f"(#{_slug(s)})" not in contents] == []
    order = ["Try it (no Gitea needed)", "Use it with your Gitea", "Reference"]
    assert [s for s in sections if s in order] == order
    assert text.index("<!-- setup:try -->") < text.index("<!-- setup:test -->") < text.index("## Use it with")
    reference = text[text.index("## Reference") :].split("\n## ", 1)[0]
    assert all(f"(docs/{page})" in reference for page in ("tools.md", "settings.md", "clients.md"))


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
