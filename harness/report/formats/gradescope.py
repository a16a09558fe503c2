"""``--gradescope F``: Gradescope's ``results.json``, for reports a course grades with.

A report of kind ``graded`` without its own renderer gets one point per row: full for a
passed (or skipped) row, 0 otherwise, the row's message and detail as its output; the
document follows ``harness/grading/autograder/gradescope_results.schema.json``. check (one point
per catalogue test) and grade-tests (chaff groups worth their share of ``--max-score``)
render their own (``Report.native``).

Example::

    >>> json.loads(FORMAT.render(report))["score"]
    3.0
"""

from __future__ import annotations

import json

from harness.report.model import Format, Report


def to_results(report: Report) -> dict:
    tests = []
    for row in report.rows:
        earned = row.status in ("passed", "skipped")
        output = "\n".join(x for x in (f"{(row.outcome or row.status).upper()}: {row.message}".rstrip(": "),
                                       row.detail.rstrip()) if x)
        tests.append({"name": row.id, "score": 1.0 if earned else 0.0, "max_score": 1.0,
                      "status": "passed" if earned else "failed", "output": output, "visibility": "visible"})
    return {"score": sum(t["score"] for t in tests), "execution_time": round(report.seconds, 2),
            "output": f"{report.title}\nverdict: {report.verdict}",
            "stdout_visibility": "visible", "tests": tests}


def render(report: Report) -> str:
    return json.dumps(to_results(report), indent=1, allow_nan=False) + "\n"


FORMAT = Format("gradescope", "--gradescope", "write Gradescope's results.json to F", frozenset({"graded"}), render)
