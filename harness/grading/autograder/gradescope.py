"""Gradescope's ``results.json`` from a ``Grade``, validated against the schema kept in
the repository (``gradescope_results.schema.json``, written from Gradescope's
documented autograder output format).

``to_results(grade, points=16, hints="pitfall")``:

- one test per catalogue test, each worth ``points / 16`` (``max_score``), scored in
  full when it passed and the run has no ``problem``, else 0 (never partial);
- ``output`` of a test by hint level: ``none`` the verdict only; ``pitfall`` also the one
  line why and the pitfall the diagnosis of the whole run attributes the failure to (else
  the spec's pitfall the test catches); ``full`` also the counterexample and where to look;
- the top-level ``output`` is what a student may read of the run's header (the policy,
  the time budget, and that the seed is the staff's: ``visibility.student_header``; the
  spec itself, the confinement, its limits
  and the grader's paths are the course staff's, ``visibility.finish``), the module that
  was graded, the verdict, the notes (contract decisions not met, printed but not graded
  in the default tier) and, when every test scores 0, why; no grader path in any output;
- ``score`` is given explicitly (the sum of the tests', rounded to 4 places).

``merge_results(ours, theirs)`` appends a second results document (``grade-tests``'s, for
the student's own tests) and adds its score and maximum. ``validate(results)`` raises
``ValueError`` naming the first schema violation.

Example::

    >>> to_results(grade, points=10, hints="none")["tests"][0]
    {'name': 'test_hand_example', 'score': 0.625, 'max_score': 0.625, 'status': 'passed', ...}
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from harness.grading.autograder.glossary import plain
from harness.grading.autograder.grading import Grade, TestOutcome, printable
from harness.grading.autograder.visibility import scrub_paths, student_details, student_header
from harness.policy import HINT_LEVELS, POLICY

__all__ = ["HINTS", "SCHEMA_PATH", "to_results", "merge_results", "validate", "write_results",
           "failure_results"]

HINTS = HINT_LEVELS   # harness.policy: one list for every verb
SCHEMA_PATH = Path(__file__).resolve().parent / "gradescope_results.schema.json"
OUTPUT_LIMIT = 60_000   # characters of the top-level output; each test's output is bounded by Grade
_TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
              "tags", "visibility", "extra_data"}


def to_results(grade: Grade, points: float = 16.0, hints: str = POLICY.hints, title: str = "") -> dict:
    if hints not in HINTS:
        raise ValueError(f"hints must be one of {', '.join(HINTS)}, not {hints!r}")
    if not points > 0:
        raise ValueError(f"points must be > 0, not {points!r}")
    each = points / max(1, len(grade.tests))
    tests = [_test(test, grade, each, hints) for test in grade.tests]
    return {"score": round(sum(t["score"] for t in tests), 4), "execution_time": round(grade.seconds, 2),
            "output": printable(_summary(grade, title), OUTPUT_LIMIT), "output_format": "text",
            "stdout_visibility": "hidden", "visibility": "visible", "tests": tests}


def _test(test: TestOutcome, grade: Grade, each: float, hints: str) -> dict:
    earned = test.passed and not grade.problem
    return {"name": test.name, "score": round(each, 4) if earned else 0.0, "max_score": round(each, 4),
            "status": "passed" if earned else "failed", "output": _test_output(test, grade, hints),
            "visibility": "visible"}


def _test_output(test: TestOutcome, grade: Grade, hints: str) -> str:
    return plain(scrub_paths(_test_lines(test, grade, hints)))   # plain words for the student (glossary)


def _test_lines(test: TestOutcome, grade: Grade, hints: str) -> str:
    if grade.problem:
        return f"not graded: {grade.problem}"
    lines = [test.status.upper()]
    if hints != "none" and not test.passed:
        lines[0] += f": {test.reason}" if test.reason else ""
        if hints == "full" and student_details(test.details):
            lines.append(student_details(test.details).rstrip())
        lines += _hint(test, grade, hints)
    if hints != "none":
        lines += [f"note: {note}" for note in test.notes]
    return "\n".join(lines)


def _hint(test: TestOutcome, grade: Grade, hints: str) -> list[str]:
    """The pitfall the diagnosis attributes this failure to (``harness.suite.diagnosis``, from
    every failure of the run: one depth-first numbering fails five tests, all pitfall 3),
    else the spec's table's pitfall for the test; the hint's text is ``harness.suite.pitfalls``'."""
    from harness.mutants.witness import reproducing
    from harness.suite.diagnosis import diagnose
    from harness.suite.pitfalls import BY_NUMBER, hint

    found = diagnose([{"name": t.name, "status": t.status, "reason": t.reason, "details": t.details}
                      for t in grade.tests], reproducing)
    entry = next((e for e in found if test.name in e["explains"]), None)
    if entry is not None:
        return [f"hint: {hint(BY_NUMBER[entry['pitfall']], hints)} ({entry['strength']} evidence in your failures)"]
    if test.pitfalls and test.status == "failed":
        return [f"hint: this test catches the spec's pitfall {test.pitfalls}"]
    return []


def _summary(grade: Grade, title: str) -> str:
    """The student's top-level output: the header's student lines only (the full header is
    the course staff's, ``harness.grading.autograder.visibility``), the module, the verdict, the notes."""
    lines = [title] if title else []
    if student_header(grade.header):
        lines += [student_header(grade.header), ""]
    if grade.module:
        lines.append(f"graded module: {grade.module}")
    total = len(grade.tests)
    lines.append(f"verdict: {grade.verdict}, {grade.passed}/{total} tests passed ({grade.seconds:.1f} s)")
    if grade.problem:
        lines.append(f"score 0: {grade.problem}")
    notes = list(grade.notes) + [f"{t.name}: {n}" for t in grade.tests for n in t.notes]
    if notes:
        lines += ["", "notes (not graded):"] + [f"  - {note}" for note in notes[:50]]
    return plain(scrub_paths("\n".join(lines)))


def merge_results(ours: dict, theirs: dict, prefix: str = "your tests: ") -> dict:
    """``ours`` with ``theirs``'s tests appended (names prefixed) and its score added;
    fields outside Gradescope's test format are dropped."""
    merged = dict(ours)
    extra = []
    for raw in theirs.get("tests") or []:
        if isinstance(raw, dict):
            test = {k: v for k, v in raw.items() if k in _TEST_KEYS}
            test["name"] = prefix + printable(test.get("name", "graded tests"), 200)
            test["output"] = printable(test.get("output", ""), 8000)
            extra.append(test)
    their_score = theirs.get("score")
    if not isinstance(their_score, (int, float)):
        their_score = sum(t.get("score", 0) for t in extra)
    merged["tests"] = list(ours["tests"]) + extra
    merged["score"] = round(ours["score"] + float(their_score), 4)
    if theirs.get("output"):
        merged["output"] = ours["output"] + "\n\n" + printable(f"{prefix}\n{theirs['output']}", 8000)
    return merged


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate(results: dict) -> None:
    """Raise ``ValueError`` naming the first place ``results`` departs from the schema."""
    error = next(iter(_validator().iter_errors(results)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ValueError(f"results.json at {where}: {error.message}")


def failure_results(message: str) -> dict:
    """The results a student sees when the grader itself could not grade: score 0 and why."""
    return {"score": 0.0, "output": printable(message, OUTPUT_LIMIT), "output_format": "text",
            "stdout_visibility": "hidden", "visibility": "visible", "tests": []}


def write_results(results: dict, path: Path) -> None:
    """Validate, then write atomically (a partly written file is never seen)."""
    validate(results)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(results, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    partial.replace(path)
