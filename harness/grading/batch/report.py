"""The reports of ``check --batch``: summary table, histogram, CSV, JSON, HTML, Markdown,
and the per-student feedback files.

``to_report(records, doc)`` is the adapter to ``harness.report`` (kind ``class``): the
CSV, JSON, HTML and Markdown below are its native renderers; ``publish`` prints and
writes everything ``check --batch`` was asked for (``--feedback DIR``: one Markdown file
per student, ``harness.grading.batch.feedback``).

All are pure functions of the records (``harness.grading.batch.records``), in student order, and
of the hint level (``--hints``, default the policy's). Every string in a record is already
escaped (a student's name by ``display_name``: no newline, ANSI escape or non-UTF-8 byte
reaches a table), and each format escapes every string once more for itself with
``harness.report.escape`` (the terminal table, CSV cells, HTML, Markdown: no raw HTML, link
or formula from a student's text). Each student's failures carry the one-line why, the hint at the level and the
counterexample (``feedback.failures``), and a diagnosis (``harness.suite.diagnosis``: the
spec's pitfalls the evidence points to, ranked); the contract decisions a submission
departs from (ungraded) are counted in the table and listed apart (folded in HTML).

- ``summary_table(records)``: one row per student (verdict, passed/16, seconds, the
  diagnosis or why nothing ran, the failed tests, how many ungraded notes), then the
  verdict counts;
- ``histogram(records)``: for every catalogue test, how many students failed it among
  those who ran it: a submission that did not load or was stopped (no module, syntax
  error, an import that failed or never finished, the per-submission limit, tampering) is
  counted apart, and a test reported ``not run`` or ``not reported`` counts for nobody;
  most failed first, with the spec's pitfall the test catches;
- ``pitfall_counts(records)``: per spec pitfall, the students whose diagnosis ranks it
  first (the root cause to fix first) and those for whom it fits at all;
- ``score_distribution(records)``: how many students passed 0, 1, ..., 16 tests;
- CSV (``--csv F``): ``CSV_FIELDS`` (lists joined by "; ", a student's failures one per
  line in ``feedback``; a cell starting with ``= + - @`` is prefixed with ``'`` so a
  spreadsheet never evaluates a student's text);
- JSON (``--json F``), format ``constrain-harness-batch`` version 2:
  ``{"format", "format_version", "dir", "options", "hints", "students": [records, each
  with "feedback": feedback.student_view], "verdicts": {verdict: n}, "histogram":
  [{"test", "failed", "ran", "pitfalls"}], "pitfalls": [pitfall_counts], "scores":
  score_distribution, "not_run": n, "ignored": [...]}``;
- HTML (``--html F``): one offline page: the score distribution, the root causes and the
  failed tests as inline SVG (``harness.grading.batch.charts``), then the table, each failure
  folded (``<details>``: why, hint, counterexample), the notes folded with their count;
  every student-controlled string is escaped;
- Markdown (``--md F``): the table (``| # | student | status | ...``), then a section per
  student who did not pass everything.

Example::

    >>> print(histogram_text(records).splitlines()[1])
    test_vocab_bytes            ########## 5 of 30  (12. token strings encoded as UTF-8 ...)
"""

from __future__ import annotations

import collections
import csv
import io
import json
from pathlib import Path

from harness.grading.autograder.grading import display_name
from harness.grading.batch import feedback
from harness.grading.batch.charts import Bar, columns, horizontal_bars
from harness.grading.batch.course import roster_columns, roster_flags, roster_html  # the roster's columns and flags
from harness.grading.batch.options import BatchOptions
from harness.policy import POLICY
from harness.report import escape
from harness.report.model import Report, Row
from harness.suite.catalogue import BY_NAME, NAMES
from harness.suite.pitfalls import PITFALLS

__all__ = ["summary_table", "histogram", "histogram_text", "pitfall_counts", "score_distribution", "write_csv",
           "csv_text", "to_json", "write_json", "to_html", "write_html", "to_markdown", "to_report", "publish",
           "CSV_FIELDS", "FORMAT_VERSION"]

FORMAT_VERSION = 2
CSV_FIELDS = ("student", "verdict", "passed", "total", "failed_tests", "notes", "seconds", "diagnosis", "why_not_run",
              "feedback", "ungraded_notes")
_BAR = 40
_NOT_RAN = feedback.NO_VERDICT


def _clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


ran = feedback.ran   # the submission loaded and some test ran to a verdict


def _view(record: dict, hints: str) -> dict:
    return feedback.student_view(record, hints)


# --------------------------------------------------------------------------- terminal


def summary_table(records: list[dict], hints: str = POLICY.hints) -> str:
    name_w = max([len(r["student"]) for r in records] + [7])
    lines = [f"{'student':<{name_w}}  {'verdict':<14}  {'passed':>6}  {'seconds':>7}  diagnosis / failed tests / "
             f"ungraded notes / flags (late, similar)", "-" * (name_w + 80)]
    for r in records:
        view = _view(r, hints)
        if view["load"] and not ran(r):
            why = view["load"]
        else:
            top = [f"pitfall {d['pitfall']} ({d['strength']})" for d in view["diagnosis"][:2]]
            failed = ", ".join(t.removeprefix("test_") for t in r["failed_tests"])
            why = "; ".join(x for x in (" / ".join(top), failed, view["load"]) if x)
        if view["decision_count"]:
            why += f" [{view['decision_count']} ungraded notes]"
        flags = roster_flags(r)   # after the diagnosis, never hiding it, and never clipped away by it
        why = " ".join(x for x in (_clip(why, max(40, 100 - len(flags) - 1)), flags) if x)
        lines.append(escape.terminal(f"{r['student']:<{name_w}}  {r['verdict']:<14}  {r['passed']:>3}/{r['total']:<2}  "
                                     f"{r['seconds']:>7.1f}  {_clip(why, 160)}".rstrip()))
    verdicts = collections.Counter(r["verdict"] for r in records)
    lines += ["", f"{len(records)} students: " + ", ".join(f"{n} {v}" for v, n in verdicts.most_common())]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the class view


def histogram(records: list[dict]) -> list[dict]:
    loaded = [r for r in records if ran(r)]
    failed, tried = collections.Counter(), collections.Counter()
    for r in loaded:
        for name, status in r["statuses"].items():
            if status not in _NOT_RAN:
                tried[name] += 1
                failed[name] += status != "passed"
    rows = [{"test": name, "failed": failed.get(name, 0), "ran": tried.get(name, 0),
             "pitfalls": BY_NAME[name].pitfalls} for name in NAMES]
    return sorted(rows, key=lambda row: -row["failed"])


def histogram_text(records: list[dict]) -> str:
    rows = histogram(records)
    loaded = sum(1 for r in records if ran(r))
    top = max([row["failed"] for row in rows] + [1])
    name_w = max(len(row["test"]) for row in rows)
    lines = [f"failed tests across the class ({loaded} submissions ran; {len(records) - loaded} left out: no module, "
             f"syntax error, did not load, stopped or tampered; tests that did not run are not counted)"]
    for row in rows:
        bar = "#" * round(_BAR * row["failed"] / top)
        pitfall = f"  ({_clip(row['pitfalls'], 70)})" if row["pitfalls"] and row["failed"] else ""
        lines.append(f"{row['test']:<{name_w}}  {bar:<{_BAR}} {row['failed']:>3} of {row['ran']:<3}{pitfall}".rstrip())
    return "\n".join(lines)


def pitfall_counts(records: list[dict]) -> list[dict]:
    first, fits = collections.Counter(), collections.Counter()
    for r in records:
        found = _view(r, "none")["diagnosis"] if ran(r) else []
        if found:
            first[found[0]["pitfall"]] += 1
        fits.update(d["pitfall"] for d in found)
    return [{"pitfall": p.number, "label": p.label, "first": first.get(p.number, 0), "fits": fits.get(p.number, 0)}
            for p in PITFALLS]


def pitfalls_text(records: list[dict]) -> str:
    rows = [row for row in pitfall_counts(records) if row["fits"]]
    lines = ["root causes across the class (students whose diagnosis ranks the pitfall first; in brackets: "
             "students it fits at all)"]
    lines += [f"  {row['first']:>3} [{row['fits']}]  {row['label']}" for row in
              sorted(rows, key=lambda row: (-row["first"], -row["fits"], row["pitfall"]))]
    return "\n".join(lines) if rows else "root causes across the class: none found"


def score_distribution(records: list[dict]) -> list[dict]:
    total = max([r["total"] for r in records] + [len(NAMES)])
    counts = collections.Counter(r["passed"] for r in records)
    not_run = collections.Counter(r["passed"] for r in records if not ran(r))
    return [{"passed": n, "students": counts.get(n, 0), "not_run": not_run.get(n, 0)} for n in range(total + 1)]


# --------------------------------------------------------------------------- CSV


def _csv_row(record: dict, hints: str) -> dict:
    view = _view(record, hints)
    lines = []
    for item in view["failures"]:
        lines.append(f"{item['name']} ({item['status']}): {item['why']}"
                     + (f" | hint: {item['hint']}" if item["hint"] else "")
                     + (f" | counterexample: {' / '.join(item['counterexample'].split(chr(10)))}"
                        if item["counterexample"] else ""))
    diagnosis = "; ".join(f"{d['label']} ({d['strength']}, explains {len(d['explains'])})" for d in view["diagnosis"])
    return {**record, "diagnosis": diagnosis, "why_not_run": view["load"], "feedback": "\n".join(lines),
            "ungraded_notes": view["decision_count"]}


def csv_text(records: list[dict], hints: str = POLICY.hints) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    fields = CSV_FIELDS + roster_columns(records)
    writer.writerow(fields)
    for r in records:
        row = _csv_row(r, hints)
        writer.writerow([escape.spreadsheet(row.get(field, "")) for field in fields])
    return out.getvalue()


def write_csv(records: list[dict], path: Path, hints: str = POLICY.hints) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(csv_text(records, hints))


# --------------------------------------------------------------------------- JSON


def to_json(records: list[dict], folder: Path, options: dict, ignored: list[str], hints: str = POLICY.hints) -> dict:
    students = [{**r, "feedback": _view(r, hints)} for r in records]
    return {"format": "constrain-harness-batch", "format_version": FORMAT_VERSION, "dir": display_name(str(folder)),
            "options": options, "hints": hints, "students": students,
            "verdicts": dict(collections.Counter(r["verdict"] for r in records)),
            "histogram": histogram(records), "pitfalls": pitfall_counts(records),
            "scores": score_distribution(records), "not_run": sum(1 for r in records if not ran(r)),
            "ignored": list(ignored)}


def json_text(doc: dict) -> str:
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def write_json(doc: dict, path: Path) -> None:
    Path(path).write_text(json_text(doc), encoding="utf-8")


# --------------------------------------------------------------------------- HTML


_STYLE = """body{font-family:sans-serif;margin:2em;max-width:110em} table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top;text-align:left}
details{margin:2px 0} summary{cursor:pointer} pre{background:#f6f6f6;padding:4px;white-space:pre-wrap;margin:2px 0}
.charts{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start} .passed{color:#1e7b34} .why{color:#555}
.pitfall{background:#fde8e4;border-radius:3px;padding:0 3px}"""


def _charts(doc: dict) -> str:
    scores = [Bar(str(s["passed"]), s["students"], f"{s['students']} students passed {s['passed']} tests"
                  + (f" ({s['not_run']} did not run)" if s["not_run"] else ""),
                  "#1e7b34" if s["passed"] == len(NAMES) else "#2c7fb8") for s in doc["scores"]]
    causes = sorted((p for p in doc["pitfalls"] if p["fits"]), key=lambda p: (-p["first"], p["pitfall"]))
    pitfalls = [Bar(_clip(p["label"], 70), p["first"], f"{p['label']}: the root cause of {p['first']} students, "
                    f"fits {p['fits']}", "#d35400") for p in causes]
    failed = [Bar(row["test"], row["failed"], f"{row['test']}: {row['failed']} of {row['ran']} failed. "
                  f"{row['pitfalls']}", note=_clip(f"of {row['ran']}" + (f"  pitfall {row['pitfalls']}"
                                                                          if row["pitfalls"] else ""), 90))
              for row in doc["histogram"]]
    causes_chart = (horizontal_bars(pitfalls, "students per root-cause pitfall", label_width=500, bar_width=160)
                    if pitfalls else "<p>none found</p>")
    return (f'<div class="charts"><div><h3>Score distribution (tests passed)</h3>'
            f'{columns(scores, "students per number of tests passed")}</div>'
            f'<div><h3>Root causes (students whose diagnosis ranks the pitfall first)</h3>{causes_chart}'
            f'</div></div><h3>Failed tests (among the students who ran each; not-run tests left out)</h3>'
            f'{horizontal_bars(failed, "failed tests across the class", bar_width=300, note_width=560)}')


def _student_cells(student: dict) -> str:
    e, view = escape.html, student["feedback"]
    if view["diagnosis"]:
        diagnosis = "<br>".join(f'<span class="pitfall">{e(d["label"])}</span> ({e(d["strength"])}, explains '
                                f'{len(d["explains"])})' for d in view["diagnosis"][:3])
    else:
        diagnosis = ""
    load = f'<div class="why">{e(view["load"])}</div>' if view["load"] else ""
    failures = "".join(
        f'<details><summary>{e(f["name"])}: {e(f["status"])}'
        + (f' <span class="pitfall">pitfall {f["pitfall"]}</span>' if f["pitfall"] else "")
        + f'</summary><div class="why">why: {e(f["why"])}</div>'
        + (f'<div>hint: {e(f["hint"])}</div>' if f["hint"] else "")
        + (f'<pre>{e(f["counterexample"])}</pre>' if f["counterexample"] else "") + "</details>"
        for f in view["failures"])
    notes = "".join(f"<li>{e(n)}</li>" for n in view["notes"])
    decisions = view["decisions"]
    folded = (f'<details><summary>{view["decision_count"]} ungraded notes</summary><ul>'
              + "".join(f"<li>{e(d)}</li>" for d in decisions) + "</ul></details>") if view["decision_count"] else ""
    return (f"<td>{diagnosis}{load}</td><td>{failures}</td>"
            f"<td>{'<ul>' + notes + '</ul>' if notes else ''}{folded}</td><td>{view['decision_count']}</td>")


def to_html(doc: dict) -> str:
    e = escape.html
    extra = roster_columns(doc["students"])   # harness.grading.batch.course: name, SID, late, score, similar
    rows = "\n".join(
        f"<tr><td>{e(s['student'])}</td><td{' class=passed' if s['verdict'] == 'passed' else ''}>{e(s['verdict'])}</td>"
        f"<td>{s['passed']}/{s['total']}</td><td>{s['seconds']:.1f}</td>{_student_cells(s)}"
        + "".join(f"<td>{e(str(s.get(c, '')))}</td>" for c in extra) + "</tr>"
        for s in doc["students"])
    verdicts = ", ".join(f"{n} {e(v)}" for v, n in doc["verdicts"].items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>constrain-harness batch: {e(doc['dir'])}</title>
<style>{_STYLE}</style></head>
<body><h1>constrain-harness batch grading</h1>
<p>{e(doc['dir'])}: {len(doc['students'])} students ({verdicts}); hints: {e(doc.get('hints', ''))}.
{doc['not_run']} that did not load or were stopped (no module, syntax error, an import that failed or never finished,
the per-submission limit, tampering) are left out of the failed-tests chart, and so is every test that did not run.</p>
{_charts(doc)}
<h2>Students</h2>
<table><tr><th>student</th><th>verdict</th><th>passed</th><th>seconds</th><th>diagnosis / why nothing ran</th>
<th>failed tests (why, hint, counterexample)</th><th>notes</th><th>ungraded notes</th>\
{"".join(f"<th>{c}</th>" for c in extra)}</tr>
{rows}
</table>
{roster_html(doc)}
</body></html>
"""


def write_html(doc: dict, path: Path) -> None:
    Path(path).write_text(to_html(doc), encoding="utf-8")


# --------------------------------------------------------------------------- Markdown


def to_markdown(doc: dict) -> str:
    cell = _md_cell
    lines = [f"## constrain-harness check --batch {cell(doc['dir'])}", "",
             f"{len(doc['students'])} students: " + ", ".join(f"{n} {cell(v)}" for v, n in doc["verdicts"].items())
             + f"; hints {cell(doc.get('hints', ''))}", "",
             "| # | student | status | passed | diagnosis | failed tests | ungraded notes |",
             "|---|---|---|---|---|---|---|"]
    for i, s in enumerate(doc["students"], 1):
        view = s["feedback"]
        status = "PASS" if s["verdict"] == "passed" else "ERROR" if s.get("problem") else "FAIL"
        status += f" ({s['verdict']})" if s["verdict"] not in ("passed", "failed") else ""
        diagnosis = "; ".join(f"{d['label']} ({d['strength']})" for d in view["diagnosis"][:2]) or view["load"]
        diagnosis = " ".join(x for x in (diagnosis, roster_flags(s)) if x)   # then [late by ...] [identical to ...]
        lines.append(f"| {i} | {cell(s['student'])} | {cell(status)} | {s['passed']}/{s['total']} | {cell(diagnosis)} "
                     f"| {cell(', '.join(s['failed_tests']) if not s.get('problem') else '')} "
                     f"| {view['decision_count']} |")
    lines += ["", "Root causes (students whose diagnosis ranks the pitfall first): "
              + ("; ".join(f"{p['label']}: {p['first']}" for p in doc["pitfalls"] if p["first"]) or "none"), "",
              "Failed tests (among the students who ran each):", ""]
    lines += [f"- {row['test']}: {row['failed']} of {row['ran']}"
              + (f" (the spec's pitfall {escape.markdown(row['pitfalls'], line_start=False)})"
                 if row["pitfalls"] else "")
              for row in doc["histogram"]] + [""]
    for s in doc["students"]:
        if s["verdict"] != "passed":
            body = feedback.markdown(s, doc.get("hints", POLICY.hints), full_details=True)
            lines += [body.replace("# Feedback: ", "### ", 1).replace("\n## ", "\n#### ").replace("\n### ", "\n##### ")]
    return "\n".join(lines) + "\n"


_md_cell = escape.markdown_cell


# --------------------------------------------------------------------------- the common model, publishing


def to_report(records: list[dict], doc: dict) -> Report:
    """The class as ``harness.report``'s model (kind ``class``): a row per student, passed
    when every test passed, failed when some failed, an error when the submission did not
    run (its ``problem``); the CSV, JSON, HTML and Markdown above as the native renderers."""
    hints = doc.get("hints", POLICY.hints)
    rows = tuple(Row(r["student"], "passed" if r["verdict"] == "passed" else "error" if r["problem"] else "failed",
                     r["verdict"], " ".join(x for x in (r["problem"] or ", ".join(r["failed_tests"]), roster_flags(r))
                                            if x), "\n".join(r["notes"]),
                     r["seconds"], "student") for r in records)
    verdict = ", ".join(f"{n} {v}" for v, n in doc["verdicts"].items()) or "no submissions"
    return Report("batch", f"constrain-harness check --batch {doc['dir']}", frozenset({"class"}), rows, verdict,
                  0, sum(r["seconds"] for r in records), terminal=summary_table(records, hints),
                  native={"csv": lambda: csv_text(records, hints), "json": lambda: json_text(doc),
                          "html": lambda: to_html(doc), "markdown": lambda: to_markdown(doc)})


def publish(records: list[dict], folder: Path, options: dict, ignored: list[str], batch: BatchOptions, stdout, stderr,
            course=None) -> bool:
    """Print the table, the histogram and the root causes, write every report asked for,
    the course's gradebooks (``harness.grading.batch.course``) and the per-student feedback files
    (``--feedback DIR``). Returns False when something asked for was not written: a report or
    feedback file that could not be, or gradebooks the course refused (a roster student with no
    submission, or two submissions for one, without the override); the rest is still written.
    ``batch``: what to write (its ``reports``, ``hints``, ``feedback`` and ``course``'s gradebooks)."""
    from harness.report import registry

    hints = batch.hint_level
    print("", file=stdout)
    print(summary_table(records, hints), file=stdout)
    print("", file=stdout)
    print(histogram_text(records), file=stdout)
    print(pitfalls_text(records), file=stdout)
    doc = to_json(records, Path(folder).resolve(), options, list(ignored), hints)
    if course is not None:
        doc["course"] = course.summary(records)
    complete = registry.write_reports(dict(batch.reports), to_report(records, doc), stderr, announce=stdout)
    if course is not None:
        for line in course.identity_lines(records):   # weak, shared, unmatched, no submission
            print(f"identities: {escape.terminal(line)}", file=stdout)
        complete = course.write_gradebooks(records, batch.course, stderr, announce=stdout) and complete
    if batch.feedback:
        try:
            written = feedback.write_all(records, Path(batch.feedback), hints)
        except OSError as exc:
            print(f"cannot write the feedback files in {batch.feedback}: {exc.strerror or exc}", file=stderr)
            complete = False
        else:
            print(f"wrote {len(written)} feedback files in {batch.feedback}", file=stdout)
    return complete
