"""Every document the code and the README cite is in the repository; nothing points outside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*ROOT.glob("gitea_mcp/**/*.py"), *ROOT.glob("tests/**/*.py"), ROOT / "README.md", *ROOT.glob("docs/**/*.md")]
CITED = re.compile(r"\bdocs/[\w./-]+\.md")


def cited() -> list[tuple[str, str]]:
    found = []
    for path in SOURCES:
        for match in CITED.finditer(path.read_text(encoding="utf-8")):
            found.append((str(path.relative_to(ROOT)), match.group(0)))
    return found


@pytest.mark.parametrize(("source", "target"), cited())
def test_cited_documents_exist(source: str, target: str) -> None:
    assert (ROOT / target).is_file(), f"{source} cites {target}, which is not in the repository"


def test_relative_links_in_docs_resolve() -> None:
    for page in [*ROOT.glob("docs/**/*.md"), ROOT / "README.md"]:
        for link in re.findall(r"\]\(([^)#:]+)\)", page.read_text(encoding="utf-8")):
            assert (page.parent / link).exists(), f"{page.relative_to(ROOT)} links to {link}, which does not exist"


@pytest.mark.parametrize("outside", ["SEMANTICS.md", "shared/", "seeds/", "seed 00"])
def test_nothing_points_outside_the_repository(outside: str) -> None:
    this = Path(__file__).resolve()
    offenders = [str(p.relative_to(ROOT)) for p in SOURCES if p != this and outside in p.read_text(encoding="utf-8")]
    assert offenders == [], f"{outside!r} is cited by {offenders}"


def test_readme_anchors_lead_to_its_headings() -> None:
    """Every `](#anchor)` in the README names one of its headings, as GitHub spells their anchors."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#+ (.+)$", readme, re.MULTILINE)
    slugs = {re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-") for heading in headings}
    anchors = set(re.findall(r"\]\(#([^)]+)\)", readme))
    assert anchors and anchors <= slugs, anchors - slugs


def test_where_the_inspector_is_suggested_its_node_is_said() -> None:
    """The MCP Inspector 2.x needs Node >= 22.19: on Node 20 `npx` silently runs 0.15.0, which cannot send the
    Authorization header an HTTP server needs. Every page that suggests it says so."""
    pages = [page for page in [ROOT / "README.md", *ROOT.glob("docs/**/*.md")] if "MCP Inspector" in page.read_text()]
    assert pages, "the docs suggest the MCP Inspector somewhere"
    for page in pages:
        assert "Node ≥ 22.19" in page.read_text(encoding="utf-8"), page.relative_to(ROOT)


def test_the_sign_in_threat_model_names_tests_that_exist() -> None:
    """docs/operators.md backs each claim of "Threat model: the sign-in front" with a test's name: each must be a
    test of the suite (a renamed or removed test would leave a claim unbacked)."""
    doc = (ROOT / "docs/operators.md").read_text(encoding="utf-8")
    start = doc.index("## Threat model: the sign-in front")
    section = doc[start : doc.index("\n## ", start + 1)]
    named = set(re.findall(r"\b(test_[a-z0-9_]+)\b(?!\.py)", section))
    defined = {
        name
        for path in ROOT.glob("tests/**/test_*.py")
        for name in re.findall(r"^def (test_\w+)\(", path.read_text(encoding="utf-8"), re.M)
    }
    assert len(named) > 40 and named <= defined, sorted(named - defined)


def test_every_test_the_operators_guide_names_exists() -> None:
    """The threat models back each claim with a test's name (`test_…` in backticks): each is one the suite has."""
    named = set(re.findall(r"`(test_\w+)`", (ROOT / "docs" / "operators.md").read_text(encoding="utf-8")))
    defined = {
        name
        for path in ROOT.glob("tests/**/*.py")
        for name in re.findall(r"^\s*(?:async )?def (test_\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert named and named <= defined, f"named in docs/operators.md but no such test: {sorted(named - defined)}"
