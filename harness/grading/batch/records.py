"""One student's batch result as plain JSON data (what the state, CSV, JSON and HTML hold).

``record(student, grade, fingerprint)`` ->::

    {"student": "alice", "verdict": "failed", "passed": 15, "total": 16,
     "failed_tests": ["test_vocab_bytes"], "statuses": {"test_hand_example": "passed", ...},
     "tests": [{"name": "test_vocab_bytes", "status": "failed", "reason": "one line why",
                "details": "the counterexample", "pitfalls": "12. ..."}],   # every test not passed
     "load": {"status": "ok", "reason": "", "problems": [], "notes": []},  # check's load record
     "notes": ["skipped python/x.py: a symbolic link ..."],                 # what matters, graded or not
     "decisions": ["test_x: contract decision not met: ..."], "decision_count": 12,   # ungraded
     "problem": "", "module": "python/.../constrain.py",
     "seconds": 4.2, "cpu_seconds": 9.8, "fingerprint": "sha256 of the upload", "seed": 2434018487,
     "record_version": 3}

``seed`` is the run seed check drew every input from (``check --seed N`` replays the run; a
batch's seeds are keyed by its course secret, ``harness.suite.seeding.course_seed``), None
when no check ran (a refusal); the class report (staff) carries it, never the secret.

``student`` is the escaped name (``display_name``, done by discovery); every other string
is escaped too (``printable``), so a record always encodes as UTF-8 (CSV, HTML, Markdown).

``problem`` is non-empty when every test scored 0 whatever it reported (no module, a
syntax error, the run stopped, tampering): such a student is counted apart in the
histogram, so "no submission" does not drown which tests the class fails. ``notes``
starts with it. The contract decisions a submission departs from (notes of the default
tier that change no score) are kept apart in ``decisions``, so they never bury the rest.

Bounds (the state is rewritten after every submission): ``NOTES_LIMIT`` notes,
``DECISIONS_LIMIT`` decisions (``decision_count`` says how many there were), each test's
details clipped to ``DETAILS_LIMIT`` characters. ``RECORD_VERSION`` changes when the
shape does: ``--resume`` grades a record of another version again.

Example::

    >>> record("bob", grade, "ab12")["failed_tests"]
    ['test_hand_example']
"""

from __future__ import annotations

from harness.grading.autograder.grading import Grade, printable

__all__ = ["record", "NOTES_LIMIT", "DECISIONS_LIMIT", "DETAILS_LIMIT", "RECORD_VERSION", "DECISION_MARK"]

NOTES_LIMIT = 20         # notes kept per student
DECISIONS_LIMIT = 60     # contract-decision notes kept per student
DETAILS_LIMIT = 1_500    # characters of one test's counterexample
RECORD_VERSION = 3   # 3: "seed" (issue 48: a record graded under the public seed is graded again)
DECISION_MARK = "contract decision not met"   # the words of every ungraded decision note (harness.suite.tiers)


def record(student: str, grade: Grade, fingerprint: str) -> dict:
    notes = list(grade.notes) + [f"{t.name}: {n}" for t in grade.tests for n in t.notes]
    notes = list(dict.fromkeys(printable(n, 300) for n in notes))
    decisions = [n for n in notes if DECISION_MARK in n]
    others = ([grade.problem] if grade.problem else []) + [n for n in notes if DECISION_MARK not in n]
    return {"student": _one_line(student, 200),
            "verdict": printable(grade.verdict, 80), "passed": grade.passed,
            "total": len(grade.tests), "failed_tests": [printable(t, 200) for t in grade.failed_tests],
            "statuses": {printable(t.name, 200): printable(t.status, 40) for t in grade.tests},
            "tests": [_test(t) for t in grade.tests if not t.passed], "load": _load(grade),
            "notes": [printable(n, 300) for n in others][:NOTES_LIMIT],
            "decisions": decisions[:DECISIONS_LIMIT], "decision_count": len(decisions),
            "problem": printable(grade.problem, 2000), "module": _one_line(grade.module, 500),
            "seconds": round(grade.seconds, 2), "cpu_seconds": round(grade.cpu_seconds, 2),
            "fingerprint": fingerprint, "seed": grade.seed, "record_version": RECORD_VERSION}


def _test(test) -> dict:
    return {"name": printable(test.name, 200), "status": printable(test.status, 40),
            "reason": printable(test.reason, 500), "details": printable(test.details, DETAILS_LIMIT),
            "pitfalls": printable(test.pitfalls, 500)}


def _load(grade: Grade) -> dict:
    load = dict(grade.load)
    return {"status": str(load.get("status", "")), "reason": str(load.get("reason", "")),
            "problems": list(load.get("problems", ())), "notes": list(load.get("notes", ()))}


def _one_line(text: str, limit: int) -> str:
    """``text`` (already a ``display_name``) kept to one line whatever it holds."""
    return printable(text, limit).replace("\n", "\\x0a").replace("\t", "\\x09")
