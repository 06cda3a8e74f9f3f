"""The acceptance table counts every case of a parametrized task, and shows a failure."""

from __future__ import annotations

from pathlib import Path

from tests.acceptance.report import read_cases
from tests.contract.report import table

RUN = """<?xml version="1.0"?><testsuites><testsuite name="pytest" timestamp="2026-12-01T22:10:05+00:00">
<testcase classname="tests.acceptance.test_find" name="test_filter[a label with a comma]"><failure message="x"/>
</testcase>
<testcase classname="tests.acceptance.test_find" name="test_filter[two labels, both]"/>
<testcase classname="tests.acceptance.test_read" name="test_thread"><skipped message="y"/></testcase>
</testsuite></testsuites>"""


def test_every_case_is_a_row(tmp_path: Path) -> None:
    path = tmp_path / "run.xml"
    path.write_text(RUN, encoding="utf-8")
    assert table([read_cases("Gitea 1.25.4", str(path))]) == "\n".join(
        [
            "| probe | Gitea 1.25.4 (2026-12-01) |",
            "|---|---|",
            "| `test_find::test_filter[a label with a comma]` | FAIL |",
            "| `test_find::test_filter[two labels, both]` | pass |",
            "| `test_read::test_thread` | skip |",
            "| **passed** | 1/3 |",
        ]
    )
