"""``--md F``: the report as a Markdown table, e.g. for a pull request comment or
a CI job summary (``$GITHUB_STEP_SUMMARY``).

This format was added as one module plus one line in ``harness.report.registry`` and
so appeared on every verb at once. Layout: a heading (the title), the verdict line, a
table ``| # | id | status | seconds | why |`` (one line per row), then the counts. Every
string is ``harness.report.escape.markdown``: no HTML, link, code span or cell break from a
candidate's or a student's text (grade-tests' Markdown is this one).

Example::

    >>> print(FORMAT.render(report).decode().splitlines()[6])
    | 1 | test_hand_example | PASS | 0.10 |  |
"""

from __future__ import annotations

from harness.report.escape import markdown_cell as _cell
from harness.report.model import KINDS, Format, Report

MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP"}


def render(report: Report) -> str:
    lines = [f"## {_cell(report.title)}", "", f"verdict: **{_cell(report.verdict)}** (exit {report.exit_code})", "",
             "| # | id | status | seconds | why |", "|---|---|---|---|---|"]
    for i, row in enumerate(report.rows, 1):
        mark = MARK[row.status] + (f" ({row.outcome})" if row.outcome and row.outcome != row.status else "")
        lines.append(f"| {i} | {_cell(row.id)} | {_cell(mark)} | {row.seconds:.2f} | {_cell(row.message)} |")
    counts = ", ".join(f"{n} {status}" for status, n in report.counts().items())
    lines += ["", f"{len(report.rows)} rows: {counts} ({report.seconds:.1f} s)", ""]
    return "\n".join(lines)


FORMAT = Format("markdown", "--md", "write a Markdown table to F", KINDS, render)
