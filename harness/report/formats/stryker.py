"""``--stryker F``: the mutation-testing-report-schema (``schemaVersion`` "2"), which
mutation-testing-elements and the Stryker dashboard render.

Reports of kind ``mutants``: the mutants verb and grade-tests locate each mutant at its
first edit in the reference's source (``Report.native``). Without such a renderer each
row becomes a mutant of one file named after the verb, at line 1: ``Killed`` when the
row passed (the tests caught it), ``Survived`` when it failed, ``RuntimeError`` on an
error, ``Ignored`` when skipped.

Example::

    >>> json.loads(FORMAT.render(report))["schemaVersion"]
    '2'
"""

from __future__ import annotations

import json

from harness.report.model import Format, Report

STATUS = {"passed": "Killed", "failed": "Survived", "error": "RuntimeError", "skipped": "Ignored"}
SCHEMA_URL = "https://git.io/mutation-testing-schema"


def to_stryker(report: Report) -> dict:
    where = {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 2}}
    mutants = [{"id": row.id, "mutatorName": row.group or row.id, "description": row.message or row.id,
                "location": where, "status": STATUS[row.status], "duration": int(row.seconds * 1000)}
               for row in report.rows]
    return {"$schema": SCHEMA_URL, "schemaVersion": "2", "thresholds": {"high": 80, "low": 60},
            "files": {f"{report.verb}.txt": {"language": "text", "source": report.title + "\n", "mutants": mutants}}}


def render(report: Report) -> str:
    return json.dumps(to_stryker(report), indent=1, allow_nan=False) + "\n"


FORMAT = Format("stryker", "--stryker", "write the Stryker mutation-testing-report-schema JSON to F",
                frozenset({"mutants"}), render)
