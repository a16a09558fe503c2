"""One student's batch result as plain JSON data (what the state, CSV, JSON and HTML hold).

``record(student, grade, fingerprint)`` ->::

    {"student": "alice", "verdict": "failed", "passed": 15, "total": 16,
     "failed_tests": ["test_vocab_bytes"], "statuses": {"test_hand_example": "passed", ...},
     "notes": ["contract decision not met: ..."], "problem": "", "module": "python/.../constrain.py",
     "seconds": 4.2, "cpu_seconds": 9.8, "fingerprint": "sha256 of the upload"}

``student`` is the escaped name (``display_name``, done by discovery); every other string
is escaped too (``printable``), so a record always encodes as UTF-8 (CSV, HTML, Markdown).

``problem`` is non-empty when every test scored 0 whatever it reported (no module, a
syntax error, the run stopped, tampering): such a student is counted apart in the
histogram, so "no submission" does not drown which tests the class fails.

Example::

    >>> record("bob", grade, "ab12")["failed_tests"]
    ['test_hand_example']
"""

from __future__ import annotations

from harness.autograder.grading import Grade, printable

__all__ = ["record", "NOTES_LIMIT"]

NOTES_LIMIT = 20   # notes kept per student


def record(student: str, grade: Grade, fingerprint: str) -> dict:
    notes = [grade.problem] if grade.problem else []
    notes += list(grade.notes) + [f"{t.name}: {n}" for t in grade.tests for n in t.notes]
    notes = list(dict.fromkeys(printable(n, 300) for n in notes))[:NOTES_LIMIT]
    return {"student": _one_line(student, 200),
            "verdict": printable(grade.verdict, 80), "passed": grade.passed,
            "total": len(grade.tests), "failed_tests": [printable(t, 200) for t in grade.failed_tests],
            "statuses": {printable(t.name, 200): printable(t.status, 40) for t in grade.tests}, "notes": notes,
            "problem": printable(grade.problem, 2000), "module": _one_line(grade.module, 500),
            "seconds": round(grade.seconds, 2), "cpu_seconds": round(grade.cpu_seconds, 2),
            "fingerprint": fingerprint}


def _one_line(text: str, limit: int) -> str:
    """``text`` (already a ``display_name``) kept to one line whatever it holds."""
    return printable(text, limit).replace("\n", "\\x0a").replace("\t", "\\x09")
