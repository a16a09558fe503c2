"""The reports of ``check --batch``: summary table, histogram, CSV, JSON and HTML.

``to_report(records, doc)`` is the adapter to ``harness.report`` (kind ``class``): the
CSV, JSON and HTML below are its native renderers; ``--md`` is the generic one.

All are pure functions of the records (``harness.batch.records``), in student order. Every
string in a record is already escaped (a student's name by ``display_name``: no newline,
ANSI escape or non-UTF-8 byte reaches a table), so each format only adds its own quoting
(CSV cells, HTML entities, Markdown pipes):

- ``summary_table(records)``: one row per student (verdict, passed/16, seconds, failed
  tests, notes), then the verdict counts;
- ``histogram(records)``: for every catalogue test, how many students failed it, among
  the students whose submission ran (those with a ``problem``, e.g. no module, are
  counted apart), most failed first, with the seed's pitfall the test catches: which
  pitfalls the class falls into; ``histogram_text`` draws it with ``#`` bars;
- CSV (``--csv F``): ``student, verdict, passed, total, failed_tests, notes, seconds``
  (lists joined by "; "; a cell starting with ``= + - @`` is prefixed with ``'`` so a
  spreadsheet never evaluates a student's text);
- JSON (``--json F``), format ``constrain-harness-batch`` version 1:
  ``{"format", "format_version", "dir", "options", "students": [records],
  "verdicts": {verdict: n}, "histogram": [{"test", "failed", "pitfalls"}],
  "not_run": n, "ignored": [...]}``;
- HTML (``--html F``): one offline page: the histogram as an inline SVG bar chart, then
  the table; every student-controlled string is escaped.

Example::

    >>> print(histogram_text(records).splitlines()[1])
    test_vocab_bytes            ########## 5  (12. token strings encoded as UTF-8 ...)
"""

from __future__ import annotations

import collections
import csv
import html
import io
import json
from pathlib import Path

from harness.autograder.grading import display_name
from harness.batch.course import roster_columns, roster_flags, roster_html  # the roster's columns and flags
from harness.report.formats.csv_table import safe_cell
from harness.report.model import Report, Row
from harness.suite.catalogue import BY_NAME, NAMES

__all__ = ["summary_table", "histogram", "histogram_text", "write_csv", "to_json", "write_json", "to_html",
           "write_html", "CSV_FIELDS"]

CSV_FIELDS = ("student", "verdict", "passed", "total", "failed_tests", "notes", "seconds")
_BAR = 40


def _clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def summary_table(records: list[dict]) -> str:
    name_w = max([len(r["student"]) for r in records] + [7])
    lines = [f"{'student':<{name_w}}  {'verdict':<14}  {'passed':>6}  {'seconds':>7}  failed tests / notes",
             "-" * (name_w + 80)]
    for r in records:
        failed = ", ".join(t.removeprefix("test_") for t in r["failed_tests"]) if not r["problem"] else ""
        why = " ".join(x for x in (roster_flags(r), "; ".join(x for x in (failed, *(r["notes"][:1])) if x)) if x)
        lines.append(f"{r['student']:<{name_w}}  {r['verdict']:<14}  {r['passed']:>3}/{r['total']:<2}  "
                     f"{r['seconds']:>7.1f}  {_clip(why, 90)}".rstrip())
    verdicts = collections.Counter(r["verdict"] for r in records)
    lines += ["", f"{len(records)} students: " + ", ".join(f"{n} {v}" for v, n in verdicts.most_common())]
    return "\n".join(lines)


def histogram(records: list[dict]) -> list[dict]:
    ran = [r for r in records if not r["problem"]]
    counts = collections.Counter(name for r in ran for name, status in r["statuses"].items() if status != "passed")
    rows = [{"test": name, "failed": counts.get(name, 0), "pitfalls": BY_NAME[name].pitfalls} for name in NAMES]
    return sorted(rows, key=lambda row: -row["failed"])


def histogram_text(records: list[dict]) -> str:
    rows = histogram(records)
    ran = sum(1 for r in records if not r["problem"])
    top = max([row["failed"] for row in rows] + [1])
    name_w = max(len(row["test"]) for row in rows)
    lines = [f"failed tests across the class ({ran} submissions ran; {len(records) - ran} not run: "
             f"no module, syntax error, stopped or tampered)"]
    for row in rows:
        bar = "#" * round(_BAR * row["failed"] / top)
        pitfall = f"  ({_clip(row['pitfalls'], 70)})" if row["pitfalls"] and row["failed"] else ""
        lines.append(f"{row['test']:<{name_w}}  {bar:<{_BAR}} {row['failed']:>3}{pitfall}")
    return "\n".join(lines)


def csv_text(records: list[dict]) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    fields = CSV_FIELDS + roster_columns(records)
    writer.writerow(fields)
    for r in records:
        writer.writerow([safe_cell(r.get(field, "")) for field in fields])
    return out.getvalue()


def write_csv(records: list[dict], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(csv_text(records))


def to_json(records: list[dict], folder: Path, options: dict, ignored: list[str]) -> dict:
    return {"format": "constrain-harness-batch", "format_version": 1, "dir": display_name(str(folder)),
            "options": options,
            "students": records, "verdicts": dict(collections.Counter(r["verdict"] for r in records)),
            "histogram": histogram(records), "not_run": sum(1 for r in records if r["problem"]),
            "ignored": list(ignored)}


def json_text(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def write_json(doc: dict, path: Path) -> None:
    Path(path).write_text(json_text(doc), encoding="utf-8")


def to_report(records: list[dict], doc: dict) -> Report:
    """The class as ``harness.report``'s model (kind ``class``): a row per student, passed
    when every test passed, failed when some failed, an error when the submission did not
    run (its ``problem``); the CSV, JSON and HTML above as the native renderers."""
    rows = tuple(Row(r["student"], "passed" if r["verdict"] == "passed" else "error" if r["problem"] else "failed",
                     r["verdict"], " ".join(x for x in (roster_flags(r), r["problem"] or ", ".join(r["failed_tests"]))
                                            if x), "\n".join(r["notes"]),
                     r["seconds"], "student") for r in records)
    verdict = ", ".join(f"{n} {v}" for v, n in doc["verdicts"].items()) or "no submissions"
    return Report("batch", f"constrain-harness check --batch {doc['dir']}", frozenset({"class"}), rows, verdict,
                  0, sum(r["seconds"] for r in records), terminal=summary_table(records),
                  native={"csv": lambda: csv_text(records), "json": lambda: json_text(doc),
                          "html": lambda: to_html(doc)})


# --------------------------------------------------------------------------- HTML


def _svg(rows: list[dict]) -> str:
    """A horizontal bar per test, longest first: the picture of the histogram."""
    top, label_w, bar_w, row_h = max([r["failed"] for r in rows] + [1]), 380, 360, 22
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 60}" '
             f'height="{row_h * len(rows) + 10}" role="img" aria-label="failed tests across the class">']
    for i, row in enumerate(rows):
        y, width = 5 + i * row_h, round(bar_w * row["failed"] / top)
        title = html.escape(f"{row['test']}: {row['failed']} failed. {row['pitfalls']}")
        parts.append(f'<g><title>{title}</title>'
                     f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" font-size="12">'
                     f'{html.escape(row["test"])}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{width}" height="{row_h - 6}" fill="#c0392b"/>'
                     f'<text x="{label_w + width + 4}" y="{y + 15}" font-size="12">{row["failed"]}</text></g>')
    return "\n".join(parts + ["</svg>"])


def to_html(doc: dict) -> str:
    esc = html.escape
    extra = roster_columns(doc["students"])   # harness.batch.course: name, SID, late, score, similar
    rows = "\n".join(
        f"<tr><td>{esc(r['student'])}</td><td>{esc(r['verdict'])}</td><td>{r['passed']}/{r['total']}</td>"
        f"<td>{r['seconds']:.1f}</td><td>{esc(', '.join(r['failed_tests']) if not r['problem'] else '')}</td>"
        f"<td>{esc('; '.join(r['notes']))}</td>" + "".join(f"<td>{esc(str(r.get(c, '')))}</td>" for c in extra)
        + "</tr>" for r in doc["students"])
    verdicts = ", ".join(f"{n} {esc(v)}" for v, n in doc["verdicts"].items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>constrain-harness batch: {esc(doc['dir'])}</title>
<style>body{{font-family:sans-serif;margin:2em}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 6px;font-size:13px;vertical-align:top}}</style></head>
<body><h1>constrain-harness batch grading</h1>
<p>{esc(doc['dir'])}: {len(doc['students'])} students ({verdicts}); {doc['not_run']} not run
(no module, syntax error, stopped or tampered) are left out of the histogram.</p>
<h2>Failed tests across the class</h2>
{_svg(doc['histogram'])}
<h2>Students</h2>
<table><tr><th>student</th><th>verdict</th><th>passed</th><th>seconds</th><th>failed tests</th><th>notes</th>\
{"".join(f"<th>{c}</th>" for c in extra)}</tr>
{rows}
</table>
{roster_html(doc)}
</body></html>
"""


def write_html(doc: dict, path: Path) -> None:
    Path(path).write_text(to_html(doc), encoding="utf-8")
