"""The acceptance table for docs/compatibility.md: one row per task case (each parametrized case its own row), one
column per server run.

    python -m tests.acceptance.report "Gitea 1.25.4=acceptance-1.25.xml" > table.md

Each file comes from `pytest tests/acceptance -p no:xdist --junitxml=FILE` with GITEA_LIVE_URL set
(docs/compatibility.md); the rows and the totals are built as the contract table's (`tests.contract.report.table`).
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

from tests.contract.report import Run, table


def read_cases(server: str, path: str) -> Run:
    """Every test case of the run by its full name (`test_find::test_x[case]`): pass, FAIL or skip."""
    root = ET.parse(path).getroot()
    suite = root.find("testsuite") if root.tag == "testsuites" else root
    assert suite is not None, f"{path}: no testsuite"
    results: dict[str, str] = {}
    for case in suite.iter("testcase"):
        name = f"{case.attrib['classname'].rsplit('.', 1)[-1]}::{case.attrib['name']}"
        outcome = "pass"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "FAIL"
        elif case.find("skipped") is not None:
            outcome = "skip"
        results[name] = outcome
    return Run(server, suite.attrib.get("timestamp", "")[:10], results)


def main(argv: list[str]) -> int:
    print(table([read_cases(*arg.split("=", 1)) for arg in argv]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
