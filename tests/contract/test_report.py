"""The compatibility table: one column per server run, one row per probe, failures visible."""

from __future__ import annotations

from pathlib import Path

from tests.contract.report import read, table

RUN = """<?xml version="1.0"?><testsuites><testsuite name="pytest" timestamp="2026-12-01T00:32:05+00:00">
<testcase classname="tests.contract.test_server" name="test_a[live]"/>
<testcase classname="tests.contract.test_server" name="test_b[live]"><failure message="x"/></testcase>
</testsuite></testsuites>"""


def test_table_from_runs(tmp_path: Path) -> None:
    path = tmp_path / "run.xml"
    path.write_text(RUN, encoding="utf-8")
    other = tmp_path / "other.xml"
    other.write_text(RUN.replace('<failure message="x"/>', ""), encoding="utf-8")
    assert table([read("Gitea 1.25.4", str(path)), read("Forgejo 11", str(other))]) == "\n".join(
        [
            "| probe | Gitea 1.25.4 (2026-12-01) | Forgejo 11 (2026-12-01) |",
            "|---|---|---|",
            "| `test_server::test_a` | pass | pass |",
            "| `test_server::test_b` | FAIL | pass |",
            "| **passed** | 1/2 | 2/2 |",
        ]
    )
