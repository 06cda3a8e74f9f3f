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


PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(ROOT.glob("docs/**/*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation but `-` and `_` dropped, spaces to `-`,
    a repeated one suffixed -1, -2, ... (headings inside code blocks are none)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+?)#*$", FENCE.sub("", page.read_text(encoding="utf-8")), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def links() -> list[tuple[str, str]]:
    return [
        (str(page.relative_to(ROOT)), link)
        for page in PAGES
        for link in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))
        if not re.match(r"[a-z][a-z0-9+.-]*:", link)  # https:, mailto:, cursor: — not the repository's
    ]


@pytest.mark.parametrize(("page", "link"), links())
def test_every_relative_link_and_anchor_resolves(page: str, link: str) -> None:
    """Each link of the README, the changelog and docs/ to a file of the repository finds it, and its #anchor a
    heading there: moving a section to docs/ must not leave a link behind."""
    path, _, anchor = link.partition("#")
    target = (ROOT / page).parent / path if path else ROOT / page
    assert target.exists(), f"{page} links to {link}: {path} does not exist"
    if anchor:
        assert target.suffix == ".md" and anchor in anchors(target), f"{page} links to {link}: no such heading"


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A title\n\n## Sign-in (HTTP) `x`\n\n## Sign-in (HTTP) `x`\n```\n# not a heading\n```\n")
    assert anchors(page) == {"a-title", "sign-in-http-x", "sign-in-http-x-1"}


@pytest.mark.parametrize("outside", ["SEMANTICS.md", "shared/", "seeds/", "seed 00"])
def test_nothing_points_outside_the_repository(outside: str) -> None:
    this = Path(__file__).resolve()
    offenders = [str(p.relative_to(ROOT)) for p in SOURCES if p != this and outside in p.read_text(encoding="utf-8")]
    assert offenders == [], f"{outside!r} is cited by {offenders}"


def test_where_the_inspector_is_suggested_its_node_is_said() -> None:
    """The MCP Inspector 2.x needs Node >= 22.19: on Node 20 `npx` silently runs 0.15.0, which cannot send the
    Authorization header an HTTP server needs. Every page that suggests it says so."""
    named = re.compile(r"MCP\s+Inspector")  # wrapped at any space, as a paragraph may be
    pages = [page for page in [ROOT / "README.md", *ROOT.glob("docs/**/*.md")] if named.search(page.read_text())]
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
