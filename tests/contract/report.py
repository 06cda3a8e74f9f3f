"""The compatibility table from contract runs: one JUnit XML file per server, one row per probe.

    python -m tests.contract.report "Gitea 1.25.4=run-1.25.xml" "Forgejo 11.0.15=run-f11.xml" > table.md

Each file comes from `pytest tests/contract --junitxml=FILE` with GITEA_LIVE_URL set (docs/compatibility.md).
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    server: str
    date: str
    results: dict[str, str]  # "test_server::test_x" -> "pass" | "FAIL" | "skip"


def read(server: str, path: str) -> Run:
    suite = ET.parse(path).getroot()
    suite = suite.find("testsuite") if suite.tag == "testsuites" else suite
    assert suite is not None, f"{path}: no testsuite"
    results: dict[str, str] = {}
    for case in suite.iter("testcase"):
        probe = f"{case.attrib['classname'].rsplit('.', 1)[-1]}::{case.attrib['name'].split('[')[0]}"
        outcome = "pass"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "FAIL"
        elif case.find("skipped") is not None:
            outcome = "skip"
        results[probe] = outcome
    return Run(server, suite.attrib.get("timestamp", "")[:10], results)


def table(runs: list[Run]) -> str:
    probes = list(dict.fromkeys(probe for run in runs for probe in run.results))
    lines = [
        "| probe | " + " | ".join(f"{run.server} ({run.date})" for run in runs) + " |",
        "|---|" + "---|" * len(runs),
    ]
    for probe in probes:
        cells = [run.results.get(probe, "—") for run in runs]
        lines.append(f"| `{probe}` | " + " | ".join(cells) + " |")
    totals = [f"{sum(v == 'pass' for v in run.results.values())}/{len(run.results)}" for run in runs]
    lines.append("| **passed** | " + " | ".join(totals) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    runs = [read(*arg.split("=", 1)) for arg in argv]
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
