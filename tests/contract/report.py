"""The compatibility table from contract runs: one JUnit XML file per server, one row per probe.

    python -m tests.contract.report "Gitea 1.25.4=run-1.25.xml" "Forgejo 11.0.15=run-f11.xml" > table.md

Each file comes from `pytest tests/contract --junitxml=FILE` with GITEA_LIVE_URL set (docs/compatibility.md).
Every test case counts: a parametrized probe (ten web pages, say) is one row whose cell fails when any of its cases
fails and shows the counts, the totals count cases, and the failed cases are named under the table. The suite's own
tests (test_report: this module's; test_harness: the lab's) run with it but say nothing about a server: they are
left out. The runs' date is said once, in the first header, when they share it; else each column says its own.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass

# A date the label already ends with, e.g. a label copied from an earlier table's header: the run's own date
# replaces it, so a header never reads `Gitea 1.25.4 (2026-12-01) (2026-12-01)`.
_DATED = re.compile(r"(\s*\(\d{4}-\d\d-\d\d\))+$")

_OWN_TESTS = frozenset({"test_report", "test_harness"})


@dataclass(frozen=True)
class Run:
    server: str
    date: str
    cases: list[tuple[str, str]]  # ("test_server::test_x[live]", "pass" | "FAIL" | "skip"), every case in order

    @property
    def probes(self) -> dict[str, list[str]]:
        """Each probe (a test function) with the outcomes of all its cases."""
        grouped: dict[str, list[str]] = {}
        for case, outcome in self.cases:
            grouped.setdefault(probe_of(case), []).append(outcome)
        return grouped


def probe_of(case: str) -> str:
    return case.split("[", 1)[0]


def read(server: str, path: str) -> Run:
    root = ET.parse(path).getroot()
    suite = root.find("testsuite") if root.tag == "testsuites" else root
    assert suite is not None, f"{path}: no testsuite"
    cases: list[tuple[str, str]] = []
    for case in suite.iter("testcase"):
        module = case.attrib["classname"].rsplit(".", 1)[-1]
        if module in _OWN_TESTS:
            continue
        outcome = "pass"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "FAIL"
        elif case.find("skipped") is not None:
            outcome = "skip"
        cases.append((f"{module}::{case.attrib['name']}", outcome))
    return Run(_DATED.sub("", server), suite.attrib.get("timestamp", "")[:10], cases)


def cell(outcomes: list[str]) -> str:
    """`pass`, `FAIL`, `skip` for one case; for several, the verdict of them all with the counts."""
    if len(outcomes) == 1:
        return outcomes[0]
    count, n = Counter(outcomes), len(outcomes)
    skipped = f", {count['skip']} skipped" if count["skip"] else ""
    if count["FAIL"]:
        return f"FAIL ({count['pass']}/{n} passed{skipped})"
    if count["pass"]:
        return f"pass ({count['pass']}/{n}{skipped})"
    return f"skip ({n})"


def table(runs: list[Run]) -> str:
    grouped = [run.probes for run in runs]
    probes = list(dict.fromkeys(probe for probes in grouped for probe in probes))
    lines = [header(runs), "|---|" + "---|" * len(runs)]
    for probe in probes:
        cells = [cell(probes[probe]) if probe in probes else "—" for probes in grouped]
        lines.append(f"| `{probe}` | " + " | ".join(cells) + " |")
    totals = [f"{sum(outcome == 'pass' for _, outcome in run.cases)}/{len(run.cases)}" for run in runs]
    lines.append("| **passed** | " + " | ".join(totals) + " |")
    failed = [(run.server, [case for case, outcome in run.cases if outcome == "FAIL"]) for run in runs]
    if any(cases for _, cases in failed):
        lines += ["", "Failed cases:"]
        lines += [f"- {server}: " + ", ".join(f"`{case}`" for case in cases) for server, cases in failed if cases]
    return "\n".join(lines)


def header(runs: list[Run]) -> str:
    dates = {run.date for run in runs}
    if len(dates) == 1:
        return f"| probe (every run on {dates.pop()}) | " + " | ".join(run.server for run in runs) + " |"
    return "| probe | " + " | ".join(f"{run.server} ({run.date})" for run in runs) + " |"


USAGE = 'usage: python -m tests.contract.report "SERVER LABEL=run.xml" ...  (one JUnit XML file per server)'


def main(argv: list[str]) -> int:
    if not argv or any("=" not in arg for arg in argv):
        print(USAGE, file=sys.stderr)
        return 2
    runs = [read(*arg.split("=", 1)) for arg in argv]
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
