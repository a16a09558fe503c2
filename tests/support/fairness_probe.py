"""A pytest plugin for tests/suite/test_fairness.py: records every catalogue test's call-phase
outcome and ``user_properties`` (the tiers plugin's ``("notes", [...])`` and
``("shape", ...)``) as JSON lines in the file named by ``FAIRNESS_PROBE_OUT``.

It reads what any reporter reads (the call report), so it works whether the candidate
runs in the catalogue's process or behind the wall. Use::

    FAIRNESS_PROBE_OUT=/tmp/x.jsonl PYTHONPATH=tests/support python -m pytest harness/suite \\
        -p harness.suite.plugin -p fairness_probe --impl harness/grading/gradetests/wheats/fair_x.py
"""

from __future__ import annotations

import json
import os


def pytest_runtest_logreport(report) -> None:
    path = os.environ.get("FAIRNESS_PROBE_OUT")
    failed_outside_call = report.when != "call" and report.failed
    if not path or (report.when != "call" and not failed_outside_call):
        return
    properties: dict[str, list] = {}
    for name, value in report.user_properties:
        properties.setdefault(name, []).append(value)
    reason = ""
    if report.failed:
        crash = getattr(getattr(report.longrepr, "reprcrash", None), "message", None)
        text = crash or str(report.longrepr)
        reason = next((line.strip() for line in text.splitlines() if line.strip()), "")
    record = {"test": report.nodeid.split("::")[-1], "when": report.when, "outcome": report.outcome,
              "reason": reason, "properties": properties}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(record, default=str) + "\n")
