"""A golden replay as the common report model (``harness.report``, kind ``tests``).

One row per check of each document replayed (JUnit's classname is the file, e.g.
``constrain_golden.json``): passed when none of its assertions failed, else failed with
its first failing finding as the one line why and every finding of the check (notes
included) as the detail. A run that stopped before judging (a candidate that crashed,
timed out or could not load, a usage error, tampering) adds one ``error`` row saying so,
so a CI dashboard never shows a stopped replay as green. No verb-specific renderer: the
replay's JSON, JUnit, HTML, CSV and Markdown are the generic ones.

Example::

    >>> [row.id for row in to_report(outcome, options).rows][:2]
    ['dfa_matches_python_l8_7', 'masks_match_python_l8_7']
"""

from __future__ import annotations

from harness.exitcodes import ExitCode
from harness.golden_replay.session import ReplayOptions, ReplayOutcome
from harness.report.model import Report, Row

__all__ = ["to_report", "VERDICTS"]

VERDICTS = {ExitCode.OK: "passed", ExitCode.FAILED: "failed", ExitCode.USAGE: "usage error",
            ExitCode.CRASHED: "crashed or timed out", ExitCode.TAMPERED: "tampered"}


def to_report(outcome: ReplayOutcome, options: ReplayOptions) -> Report:
    rows = [row for replayed in outcome.reports for row in _rows(replayed)]
    code = ExitCode(outcome.exit_code)
    if code not in (ExitCode.OK, ExitCode.FAILED):
        rows.append(Row("golden replay", "error", VERDICTS[code], f"the replay stopped: {VERDICTS[code]} "
                        f"(exit {int(code)}); see the command's output", group="replay"))
    title = f"constrain-harness golden replay: {options.impl or 'the reference'} ({', '.join(options.files)})"
    return Report("golden-replay", title, frozenset({"tests"}), tuple(rows), VERDICTS[code], int(code),
                  outcome.seconds, summary={"confinement": outcome.confinement})


def _rows(replayed) -> list[Row]:
    rows = []
    for check in sorted(replayed.assertions):
        failed = replayed.failures.get(check, 0)
        findings = [f for f in replayed.findings if f.check == check]
        first = next((f for f in findings if f.level == "fail"), None)
        why = f"{failed} of {replayed.assertions[check]} assertions failed; [{first.where}] {first.message}" \
            if first else (f"{failed} of {replayed.assertions[check]} assertions failed" if failed else "")
        detail = "\n".join(f"{f.level.upper()} [{f.where}]: {f.message}" for f in findings)
        rows.append(Row(check, "failed" if failed else "passed", "failed" if failed else "passed", why, detail,
                        0.0, replayed.file))
    return rows
