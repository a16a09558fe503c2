"""The gradebook of a batch: one row per student, in a plain CSV and in Canvas's import shape.

Input: the class's records, each completed by ``harness.grading.batch.course`` with its people
(``harness.grading.batch.roster.Person``), submission time, lateness and score. Output: CSV text.

- plain (``--gradebook F``): ``name, sid, email, section, submission, submitted, late,
  deduction_percent, raw_score, score, points_possible, verdict, passed, total, similar``;
  a group submission gives each member a row; a roster student with no submission gets a
  row with ``verdict`` ``no submission`` and empty scores.
- Canvas (``--canvas-gradebook F``): the columns of Canvas's gradebook export, which its
  *Import* reads back: ``Student, ID, SIS User ID, SIS Login ID, Section``, then one
  column for the assignment, ``NAME (ID)`` for an existing assignment (Canvas's id,
  ``--canvas-assignment-id``) or ``NAME`` alone (Canvas then creates the assignment), and
  a second row ``Points Possible`` as Canvas's export writes it. Canvas matches a row to a
  student by ``ID``, else ``SIS User ID``, else ``SIS Login ID`` (the roster's columns:
  a Canvas gradebook export given as ``--roster`` fills all three; a Gradescope SID goes
  to ``SIS User ID``). A roster student with no submission gets an empty cell (Canvas
  leaves an empty cell ungraded). Sources: the Ohio State University's CarmenCanvas guide
  "Import a CSV File to Carmen Grades" (teaching.resources.osu.edu: the required columns
  Student, ID, SIS User ID, SIS Login ID, Section, then the assignment) and VCU's Canvas
  "Gradebook Action Menu" page (ts.vcu.edu: export and re-import of the same CSV).

Every cell is defused for spreadsheets (``harness.report.escape.spreadsheet``: a formula
prefix, its fullwidth form or a leading invisible character gets ``'``);
scores are rounded to 2 places.

Example::

    >>> print(canvas_csv(rows, "L8.7 constrain", "4242", 16).splitlines()[0])
    Student,ID,SIS User ID,SIS Login ID,Section,L8.7 constrain (4242)
"""

from __future__ import annotations

import csv
import io

from harness.report.escape import spreadsheet

__all__ = ["PLAIN_FIELDS", "CANVAS_FIELDS", "plain_csv", "canvas_csv", "assignment_column"]

PLAIN_FIELDS = ("name", "sid", "email", "section", "submission", "submitted", "late", "deduction_percent",
                "raw_score", "score", "points_possible", "verdict", "passed", "total", "similar")
CANVAS_FIELDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def assignment_column(name: str, canvas_id: str = "") -> str:
    """Canvas's column title: ``NAME (ID)`` for an existing assignment, ``NAME`` for a new one."""
    if not name.strip():
        raise ValueError("--assignment must not be empty")
    if canvas_id and not canvas_id.isdigit():
        raise ValueError(f"--canvas-assignment-id must be Canvas's numeric assignment id, not {canvas_id!r}")
    return f"{name.strip()} ({canvas_id})" if canvas_id else name.strip()


def _write(header, rows) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(header)
    for row in rows:
        writer.writerow([spreadsheet(cell) for cell in row])
    return out.getvalue()


def _score(value) -> str:
    return "" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def plain_csv(rows: list[dict], points: float) -> str:
    """``rows``: one dict per student (``harness.grading.batch.course.gradebook_rows``)."""
    return _write(PLAIN_FIELDS, ([r.get("name", ""), r.get("sid", ""), r.get("email", ""), r.get("section", ""),
                                  r.get("submission", ""), r.get("submitted", ""), r.get("late", ""),
                                  _score(r.get("deduction")), _score(r.get("raw_score")), _score(r.get("score")),
                                  _score(points), r.get("verdict", ""), r.get("passed", ""), r.get("total", ""),
                                  r.get("similar", "")] for r in rows))


def canvas_csv(rows: list[dict], assignment: str, canvas_id: str, points: float) -> str:
    column = assignment_column(assignment, canvas_id)
    body = [["Points Possible", "", "", "", "", _score(points)]]
    body += [[r.get("name", ""), r.get("canvas_id", ""), r.get("sid", ""), r.get("login", ""), r.get("section", ""),
              _score(r.get("score"))] for r in rows]
    return _write((*CANVAS_FIELDS, column), body)
