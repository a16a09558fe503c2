"""One report interface for every verb: a common model, one module per format, one table.

Each verb turns its own result into a ``Report`` (``harness.report.model``: rows with an
id, a status, why, the detail and the seconds; a verdict, the exit code, the timings)
with one adapter, ``to_report``, in its report module:

    check          harness/grading/report.py              kinds tests, graded
    check --batch  harness/grading/batch/report.py        kind class
    conform        harness/server/conform/report.py       kind tests
    mutants        harness/mutants/report.py       kind mutants
    grade-tests    harness/grading/gradetests/report.py   kinds mutants, graded
    golden replay  harness/golden_replay/report.py kind tests
    compare        harness/commands/compare.py     kind tests (a row per peer)

Every format is one module of ``harness.report.formats`` (JSON, JUnit XML, Gradescope,
Stryker, HTML, CSV, Markdown) and one line of ``harness.report.registry.FORMATS``; the
registry gives each verb the options of every format that applies to its kinds and
writes the files asked for (typed: a format's name -> its path; the verb reads them from its
command line, ``harness.commands.args.requested_reports``: argparse stops at the commands).
A verb keeps its terminal table (``Report.terminal``) and its
progress lines, drawn with the one bar of ``harness.report.progress``, and, where a
format's shape was already pinned (check's and conform's JSON and JUnit, Stryker schema
2, Gradescope's results, compare's Markdown), its own renderer (``Report.native``): those
files are byte for byte what they were.

Example::

    report = reports.to_report(result)                  # harness/grading/report.py, for check
    print(report.terminal)
    ok = registry.write_reports({"json": Path("r.json")}, report, stderr)  # a verb: requested_reports(args)
"""

from harness.report.model import KINDS, STATUSES, Format, Report, Row
from harness.report.registry import (
           BY_NAME,
           FORMATS,
           add_options,
           formats_for,
           write_reports,
)

__all__ = ["Report", "Row", "Format", "STATUSES", "KINDS", "FORMATS", "BY_NAME", "add_options", "formats_for",
           "write_reports"]
