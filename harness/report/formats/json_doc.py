"""``--json F``: the report as JSON.

Verbs with an established JSON layout (check, conform, mutants, grade-tests, check
--batch) render their own (``Report.native["json"]``, documented in their report
modules). Any other report gets format ``constrain-harness-report`` version 1::

    {"format": "constrain-harness-report", "format_version": 1, "verb", "title",
     "verdict", "exit_code", "seconds", "counts": {status: n},
     "rows": [{"id", "status", "outcome", "message", "detail", "seconds", "group"}],
     "summary": {...}}

Example::

    >>> json.loads(FORMAT.render(report))["counts"]
    {'passed': 3, 'failed': 1, 'error': 0, 'skipped': 0}
"""

from __future__ import annotations

import dataclasses
import json

from harness.report.model import KINDS, Format, Report

NAME = "constrain-harness-report"
VERSION = 1


def to_json(report: Report) -> dict:
    return {"format": NAME, "format_version": VERSION, "verb": report.verb, "title": report.title,
            "verdict": report.verdict, "exit_code": report.exit_code, "seconds": round(report.seconds, 3),
            "counts": report.counts(), "rows": [dataclasses.asdict(row) for row in report.rows],
            "summary": dict(report.summary)}


def render(report: Report) -> str:
    return json.dumps(to_json(report), indent=1, default=str, allow_nan=False) + "\n"


FORMAT = Format("json", "--json", "write the JSON report to F", KINDS, render)
