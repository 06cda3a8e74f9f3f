"""CHANGELOG.md is what packagers and upgraders read: Keep a Changelog's form, its newest version the one the
package carries (pyproject.toml, gitea_mcp.__version__, server.json), and the LICENSE the metadata names."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import gitea_mcp

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Keep a Changelog's headings: `## [Unreleased]`, then `## [X.Y.Z] - YYYY-MM-DD`, newest first.
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", re.MULTILINE)
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def releases() -> list[tuple[str, str]]:
    return RELEASE.findall(CHANGELOG)


def test_the_newest_version_is_the_packages() -> None:
    version = PYPROJECT["project"]["version"]
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    assert releases()[0][0] == version == gitea_mcp.__version__ == server["version"]


def test_versions_and_dates_go_newest_first() -> None:
    found = releases()
    versions = [tuple(int(part) for part in version.split(".")) for version, _ in found]
    assert len(found) >= 4 and versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    dates = [date for _, date in found]
    assert dates == sorted(dates, reverse=True)


def test_every_heading_is_keep_a_changelogs() -> None:
    """Only release headings at level 2 (an Unreleased one allowed), only the six kinds of change at level 3, and
    no release without a change listed."""
    level2 = re.findall(r"^## (.+)$", CHANGELOG, re.MULTILINE)
    assert [h for h in level2 if h != "[Unreleased]" and not RELEASE.match(f"## {h}")] == []
    assert set(re.findall(r"^### (.+)$", CHANGELOG, re.MULTILINE)) <= KINDS
    sections = re.split(r"^## .+$", CHANGELOG, flags=re.MULTILINE)[1:]
    assert all(re.search(r"^### \w+\n- ", section, re.MULTILINE) for section in sections)


def test_the_answer_shape_change_and_its_restoration_are_both_told() -> None:
    """An upgrader reading rows as objects must find the version that changed them and the one that restored them."""
    sections = dict(zip([v for v, _ in releases()], re.split(RELEASE, CHANGELOG)[3::3], strict=True))
    assert "became a table" in sections["0.2.0"] and "objects again" in sections["0.3.0"]


def test_the_license_file_is_the_one_the_metadata_names() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Copyright (c) 2026 gitea_mcp authors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
