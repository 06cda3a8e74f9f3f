"""The contract suite's own machinery, checked without a server (the report leaves these out: no server is judged).

The probes on a repository moved outside the allowlist (test_tools, the acceptance suite) mean what they say only if
the tools run as a server allowing the lab's organisation alone.
"""

from __future__ import annotations

from tests.contract.conftest import deps_for
from tests.contract.lab import Lab
from tests.contract.target import ServerVersion, Target


def test_the_tools_may_touch_only_the_labs_owner() -> None:
    lab = Lab(run="abcdef", org="Abcdef-Org", writer="w", poster="p", assignee="a", away="abcdef-away",
              tokens={"writer": "0" * 40})  # fmt: skip
    target = Target("http://127.0.0.1:9", "", ServerVersion.parse("1.25.4"), "bleve", False, "nowhere")
    policy = deps_for(target, lab).policy
    assert policy.allowed_owners == frozenset({"abcdef-org"})
    assert lab.away.lower() not in policy.allowed_owners
