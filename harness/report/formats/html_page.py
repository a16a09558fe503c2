"""``--html F``: one offline page (inline CSS, no script, no network).

Verbs with their own page (mutants' kill matrix, grade-tests' matrix, check --batch's
histogram) render it (``Report.native``); any other report gets its title, verdict,
counts and a table of rows (id, status, seconds, message, detail). Every string is
``harness.report.escape.html``: a candidate's or a student's text never becomes markup.

Example::

    >>> "<td>FAIL</td>" in FORMAT.render(report).decode()
    True
"""

from __future__ import annotations

from harness.report.escape import html as e
from harness.report.model import KINDS, Format, Report

CSS = """body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}td.failed,td.error{background:#ffcdd2}
td.passed{background:#c8e6c9}pre{margin:0;white-space:pre-wrap}"""


def _row(row) -> str:
    return (f'<tr><td>{e(row.id)}</td><td class="{e(row.status)}">{e((row.outcome or row.status).upper())}</td>'
            f"<td>{row.seconds:.2f}</td><td>{e(row.message)}</td><td><pre>{e(row.detail)}</pre></td></tr>")


def render(report: Report) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in report.counts().items())
    rows = "\n".join(_row(row) for row in report.rows)
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{e(report.title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{e(report.title)}</h1>"
            f"<p>verdict: {e(report.verdict)} (exit {report.exit_code}); {len(report.rows)} rows: {counts} "
            f"({report.seconds:.1f} s)</p>\n<table><tr><th>id</th><th>status</th><th>seconds</th><th>why</th>"
            f"<th>detail</th></tr>\n{rows}\n</table></body></html>\n")


FORMAT = Format("html", "--html", "write a self-contained HTML page to F", KINDS, render)
