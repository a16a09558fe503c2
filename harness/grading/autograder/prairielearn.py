"""PrairieLearn's external-grader ``results.json`` from a ``Grade`` (the second output).

PrairieLearn's external grader runs the course's image with the student's files in
``/grade/student`` and reads ``/grade/results/results.json``::

    {"gradable": true, "score": 0.0-1.0, "message": "...", "output": "...",
     "tests": [{"name", "description", "points", "max_points", "message", "output"}]}

``score`` is a fraction of the total. A submission that cannot be graded at all (no
module, a syntax error, the grader itself failed) is ``"gradable": false`` with the
reason as ``message``: PrairieLearn then shows it as invalid instead of counting a 0.
Any other problem (a timeout of the whole run, tampering) is gradable with score 0.
Test outputs follow the same hint levels as the Gradescope results.

Example::

    >>> to_pl_results(grade, hints="pitfall")["score"]
    1.0
"""

from __future__ import annotations

from harness.grading.autograder.gradescope import to_results
from harness.grading.autograder.grading import Grade
from harness.policy import POLICY

__all__ = ["to_pl_results", "UNGRADABLE"]

UNGRADABLE = ("no submission", "syntax error", "grader error")


def to_pl_results(grade: Grade, hints: str = POLICY.hints) -> dict:
    gs = to_results(grade, points=float(len(grade.tests)) or 1.0, hints=hints)
    tests = [{"name": t["name"], "description": t["name"].replace("_", " "), "points": t["score"],
              "max_points": t["max_score"], "message": t["output"].splitlines()[0], "output": t["output"]}
             for t in gs["tests"]]
    total = sum(t["max_points"] for t in tests) or 1.0
    return {"gradable": grade.verdict not in UNGRADABLE,
            "score": round(sum(t["points"] for t in tests) / total, 4),
            "message": grade.problem or f"{grade.passed}/{len(grade.tests)} tests passed",
            "output": gs["output"], "tests": tests}
