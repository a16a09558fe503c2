"""``--csv F``: one line per row, for a spreadsheet.

Columns ``FIELDS``: id, status, outcome, seconds, message (detail left out: it is many
lines). check --batch writes its own class table (``Report.native``: student, verdict,
passed, total, ...). Every cell goes through ``harness.report.escape.spreadsheet``
(``safe_cell``): a cell that would start a formula (``= + - @``, a tab or carriage return,
their fullwidth forms) or starts with an invisible character is prefixed with ``'``, so a
spreadsheet never evaluates a candidate's or a student's text.

Example::

    >>> FORMAT.render(report).decode().splitlines()[0]
    'id,status,outcome,seconds,message'
"""

from __future__ import annotations

import csv
import io

from harness.report.escape import spreadsheet
from harness.report.model import KINDS, Format, Report

FIELDS = ("id", "status", "outcome", "seconds", "message")


safe_cell = spreadsheet   # ``value`` as spreadsheet text that is never a formula (lists joined by "; ")


def render(report: Report) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(FIELDS)
    for row in report.rows:
        writer.writerow([safe_cell(x) for x in (row.id, row.status, row.outcome or row.status,
                                                f"{row.seconds:.3f}", row.message)])
    return out.getvalue()


FORMAT = Format("csv", "--csv", "write a CSV table (one line per row) to F", KINDS, render)
