"""``--csv F``: one line per row, for a spreadsheet.

Columns ``FIELDS``: id, status, outcome, seconds, message (detail left out: it is many
lines). check --batch writes its own class table (``Report.native``: student, verdict,
passed, total, ...). A cell starting with ``= + - @`` (or a tab or carriage return) is
prefixed with ``'`` (``safe_cell``) so a spreadsheet never evaluates a candidate's or a
student's text as a formula.

Example::

    >>> FORMAT.render(report).decode().splitlines()[0]
    'id,status,outcome,seconds,message'
"""

from __future__ import annotations

import csv
import io

from harness.report.model import KINDS, Format, Report

FIELDS = ("id", "status", "outcome", "seconds", "message")


def safe_cell(value) -> str:
    """``value`` as spreadsheet text that is never a formula (lists joined by "; ")."""
    text = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def render(report: Report) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(FIELDS)
    for row in report.rows:
        writer.writerow([safe_cell(x) for x in (row.id, row.status, row.outcome or row.status,
                                                f"{row.seconds:.3f}", row.message)])
    return out.getvalue()


FORMAT = Format("csv", "--csv", "write a CSV table (one line per row) to F", KINDS, render)
