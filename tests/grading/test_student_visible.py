"""Nothing hidden in what a student reads (issue 50, item 4): no catalogue source, no path of
the grading machine, no traceback from the harness's code, on any tier, hint level and
student-facing format.

Real check runs (``grade_module``, confined, as the batch and the bundle grade) of
submissions that fail in every way a failure reaches a student: a contract decision under
``--strict`` (an ``AssertionError`` raised in the grader: pytest's traceback of the
catalogue's own source was the leak), an exception from the student's code, a wrong
answer with its counterexample, a timeout; each rendered as the student's feedback file
(``check --batch --feedback``), Gradescope's results and PrairieLearn's, at every hint
level. The oracle for "catalogue source" is the harness's own text: no line a student
reads may be a line of a ``harness/`` source file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.grading.autograder import gradescope, prairielearn
from harness.grading.autograder.grading import GradeOptions, grade_module
from harness.grading.batch import feedback
from harness.grading.batch.records import record
from harness.policy import HINT_LEVELS, TIERS

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = {
    "strict_decisions": ROOT / "harness" / "grading" / "gradetests" / "wheats" / "fair_postfix_numpy.py",
    "raises": ROOT / "tests" / "candidates" / "exits_sys.py",
    "wrong_answer": ROOT / "tests" / "candidates" / "wrong_numbering.py",
    "loops": ROOT / "tests" / "candidates" / "loops_forever.py",
}
MARKERS = ("Traceback", "/harness/", "constrain-harness-grade", " object at 0x", "self = <", "impl = <",
           "site-packages", str(ROOT))


def harness_source_lines() -> set[str]:
    """Every line of the harness's Python source at least 30 characters long, stripped."""
    lines = set()
    for path in (ROOT / "harness").rglob("*.py"):
        lines |= {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if len(line.strip()) >= 30}
    return lines


@pytest.fixture(scope="module")
def graded() -> dict[tuple[str, str], object]:
    return {(name, tier): grade_module(path, GradeOptions(tier=tier, timeout=5))
            for name, path in SUBMISSIONS.items() for tier in TIERS}


def student_texts(grade, hints: str) -> dict[str, str]:
    """Everything a student reads of ``grade`` at ``hints``, by format."""
    return {"feedback": feedback.markdown(record("ann", grade, "f"), hints),
            "gradescope": json.dumps(gradescope.to_results(grade, hints=hints), ensure_ascii=False, indent=1),
            "prairielearn": json.dumps(prairielearn.to_pl_results(grade, hints=hints), ensure_ascii=False, indent=1)}


@pytest.mark.e2e
@pytest.mark.slow
def test_no_format_tier_or_hint_level_shows_a_student_hidden_text(graded):
    source = harness_source_lines()
    leaks = []
    for (name, tier), grade in graded.items():
        for hints in HINT_LEVELS:
            for fmt, text in student_texts(grade, hints).items():
                where = f"{name} --tier {tier} --hints {hints} {fmt}"
                leaks += [f"{where}: {marker!r}" for marker in MARKERS if marker in text]
                for line in text.replace("\\n", "\n").splitlines():
                    if line.strip().strip('",') in source:
                        leaks.append(f"{where}: source line {line.strip()!r}")
    assert not leaks, "\n".join(leaks[:40])


@pytest.mark.e2e
@pytest.mark.slow
def test_the_runs_fail_as_each_submission_should(graded):
    """The sweep above means something only if each run fails the way it is there for."""
    strict = graded[("strict_decisions", "strict")]
    assert strict.verdict == "failed" and graded[("strict_decisions", "default")].verdict == "passed"
    assert any("contract decision not met" in t.reason for t in strict.tests)
    assert any(t.status == "failed" and "SystemExit" in t.reason for t in graded[("raises", "default")].tests)
    assert any(t.details for t in graded[("wrong_answer", "default")].tests if not t.passed)
    assert any(t.status == "timeout" for t in graded[("loops", "default")].tests)
