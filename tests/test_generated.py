"""The files made from the tool modules are what the modules make (tests/support/generated.py): specs.json and
listing.json, which serving reads instead of importing a tool, each tool's example screen, and the README's tools
reference. One test for all of them: a new tool module fails here alone, told the files and the command.

Regenerate deliberately (`python -m tests.support.generated`, or UPDATE_GOLDEN=1 / UPDATE_README=1 on this test)
and review the diff: listing.json is the contract with every agent prompt.
"""

from __future__ import annotations

import os

from tests.support import generated


def test_every_file_made_from_the_tool_modules_is_current() -> None:
    if os.environ.get("UPDATE_GOLDEN") or os.environ.get("UPDATE_README"):
        generated.write_all()
    stale = generated.stale()
    assert stale == [], (
        f"not what the tool modules make (a tool changed or was added): {', '.join(stale)}; run "
        f"`{generated.COMMAND}` and review the diff"
    )
