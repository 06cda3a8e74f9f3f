"""The compatibility table: one column per server run, one row per probe, every parametrized case counted."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

import pytest

from tests.contract.report import _OWN_TESTS, main, read, table

RUN = """<?xml version="1.0"?><testsuites><testsuite name="pytest" timestamp="2026-12-01T00:32:05+00:00">
<testcase classname="tests.contract.test_server" name="test_a[live]"/>
<testcase classname="tests.contract.test_server" name="test_b[live]"><failure message="x"/></testcase>
</testsuite></testsuites>"""

# Ten cases of one parametrized probe, as pytest writes them; `failing` says which fail, `skipped` which skip.
WEB = "tests.contract.test_web_pages"


def web_run(tmp_path: Path, failing: Collection[int], skipped: Collection[int] = ()) -> Path:
    cases = []
    for i in range(10):
        inner = '<failure message="rows differ"/>' if i in failing else '<skipped message="s"/>' if i in skipped else ""
        cases.append(f'<testcase classname="{WEB}" name="test_pages[live-issues?page={i}]">{inner}</testcase>')
    path = tmp_path / "web.xml"
    path.write_text(RUN.replace("</testsuite>", "".join(cases) + "</testsuite>"), encoding="utf-8")
    return path


def test_table_from_runs(tmp_path: Path) -> None:
    path = tmp_path / "run.xml"
    path.write_text(RUN, encoding="utf-8")
    other = tmp_path / "other.xml"
    other.write_text(RUN.replace('<failure message="x"/>', ""), encoding="utf-8")
    assert table([read("Gitea 1.25.4", str(path)), read("Forgejo 11", str(other))]) == "\n".join(
        [
            "| probe (every run on 2026-12-01) | Gitea 1.25.4 | Forgejo 11 |",
            "|---|---|---|",
            "| `test_server::test_a` | pass | pass |",
            "| `test_server::test_b` | FAIL | pass |",
            "| **passed** | 1/2 | 2/2 |",
            "",
            "Failed cases:",
            "- Gitea 1.25.4: `test_server::test_b[live]`",
        ]
    )


@pytest.mark.parametrize(
    ("failing", "skipped", "cell", "total"),
    [
        (set(), set(), "pass (10/10)", "11/12"),
        ({0}, set(), "FAIL (9/10 passed)", "10/12"),  # the first case: it was overwritten by the nine after it
        ({4}, set(), "FAIL (9/10 passed)", "10/12"),
        ({9}, set(), "FAIL (9/10 passed)", "10/12"),
        ({2, 3}, {5}, "FAIL (7/10 passed, 1 skipped)", "8/12"),
        (set(), {1}, "pass (9/10, 1 skipped)", "10/12"),
        (set(), set(range(10)), "skip (10)", "1/12"),
    ],
)
def test_every_parametrized_case_counts(
    tmp_path: Path, failing: set[int], skipped: set[int], cell: str, total: str
) -> None:
    lines = table([read("Gitea 1.25.4", str(web_run(tmp_path, failing, skipped)))]).splitlines()
    assert f"| `test_web_pages::test_pages` | {cell} |" in lines
    assert f"| **passed** | {total} |" in lines


def test_a_failing_case_is_named_under_the_table(tmp_path: Path) -> None:
    text = table([read("Gitea 1.25.4", str(web_run(tmp_path, failing={3})))])
    assert text.splitlines()[-3:] == [
        "",
        "Failed cases:",
        "- Gitea 1.25.4: `test_server::test_b[live]`, `test_web_pages::test_pages[live-issues?page=3]`",
    ]


@pytest.mark.parametrize(
    "label",
    [
        "Gitea 1.25.4",
        "Gitea 1.25.4 (2026-12-01)",
        "Gitea 1.25.4 (2026-11-30)",
        "Gitea 1.25.4 (2026-12-01) (2026-12-01)",
    ],
)
def test_the_run_date_is_shown_once(tmp_path: Path, label: str) -> None:
    """A label copied from an earlier table's header (`Gitea 1.25.4 (2026-12-01)`) keeps only this run's date."""
    path = tmp_path / "run.xml"
    path.write_text(RUN, encoding="utf-8")
    header = table([read(label, str(path)), read(label.replace("Gitea", "Forgejo"), str(path))]).splitlines()[0]
    assert header == "| probe (every run on 2026-12-01) | Gitea 1.25.4 | Forgejo 1.25.4 |"


def test_runs_of_different_days_each_show_their_own(tmp_path: Path) -> None:
    path, later = tmp_path / "run.xml", tmp_path / "later.xml"
    path.write_text(RUN, encoding="utf-8")
    later.write_text(RUN.replace("2026-12-01T", "2026-12-03T"), encoding="utf-8")
    header = table([read("Gitea 1.25.4", str(path)), read("Forgejo 11 (2026-12-01)", str(later))]).splitlines()[0]
    assert header == "| probe | Gitea 1.25.4 (2026-12-01) | Forgejo 11 (2026-12-03) |"


@pytest.mark.parametrize(
    ("module", "name"),
    [("test_report", "test_table_from_runs"), ("test_harness", "test_the_tools_may_touch_only_the_labs_owner")],
)
def test_the_suites_own_tests_are_no_probe(tmp_path: Path, module: str, name: str) -> None:
    """The report's tests and the harness's (tests/contract/test_harness.py) judge no server: no row, not counted."""
    path = tmp_path / "run.xml"
    own = f'<testcase classname="tests.contract.{module}" name="{name}"/>'
    path.write_text(RUN.replace("</testsuite>", own + "</testsuite>"), encoding="utf-8")
    lines = table([read("Gitea 1.25.4", str(path))]).splitlines()
    rows = [line.split(" | ")[0] for line in lines[2:5]]
    assert rows == ["| `test_server::test_a`", "| `test_server::test_b`", "| **passed**"]
    assert "| **passed** | 1/2 |" in lines


@pytest.mark.parametrize("argv", [[], ["--help"], ["run.xml"]], ids=["nothing", "help", "no-label"])
def test_arguments_without_a_label_get_the_usage_not_a_traceback(
    argv: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capfd.readouterr().err.startswith("usage: python -m tests.contract.report")


DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "compatibility.md"


def documented_tables() -> list[list[str]]:
    """docs/compatibility.md's result tables, each as its lines (header first)."""
    lines, tables = DOC.read_text(encoding="utf-8").splitlines(), []
    for index, line in enumerate(lines):
        if line.startswith("| probe"):
            end = next(i for i in range(index, len(lines) + 1) if i == len(lines) or not lines[i].startswith("|"))
            tables.append(lines[index:end])
    return tables


def cases_in(cell: str) -> int:
    counted = re.search(r"\((\d+)/(\d+)", cell)
    return int(counted.group(2)) if counted else 1


@pytest.mark.parametrize("lines", documented_tables(), ids=lambda lines: f"{len(lines)} lines")
def test_the_documented_tables_are_in_the_reports_form(lines: list[str]) -> None:
    """Hand-fixed or generated, a table says its date once, names probes that exist, and its totals add up."""
    assert len(re.findall(r"\d{4}-\d\d-\d\d", lines[0])) <= 1, "the date is said once, not in every header"
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    probes, totals = rows[:-1], rows[-1]
    for probe, *_ in probes:
        module, name = probe.strip("`").split("::")
        assert module not in _OWN_TESTS
        defined = [path.read_text(encoding="utf-8") for path in DOC.parent.parent.glob(f"tests/*/{module}.py")]
        assert any(f"def {name}(" in text for text in defined), f"{probe} is no test of the suite"
    for column, total in enumerate(totals[1:], start=1):
        assert total.endswith(f"/{sum(cases_in(row[column]) for row in probes)}"), (lines[0], column, total)
