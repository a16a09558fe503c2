"""Benchmark: ``constrain-harness check`` end to end on the reference.

Subjects: the catalogue (16 tests) and, unless ``--quick``, the catalogue with
``--deep``. Each run is a fresh child process (pytest, numpy, the candidate, the
golden file), exactly as a grader runs it. Targets (issue 5): the catalogue <= 60 s
wall, with ``--deep`` <= 5 minutes, on a 2-core machine. A per-test median table
follows, so a slow test stands out.
"""

from __future__ import annotations

import statistics

from harness.bench.timing import Row, Timing, format_seconds
from harness.check import CheckOptions, run_check


def _time(options: CheckOptions, repeat: int):
    results = [run_check(options) for _ in range(repeat)]
    durations = [r.duration for r in results]
    return Timing(statistics.median(durations), min(durations), repeat), results


def run(report, quick: bool) -> None:
    timing, results = _time(CheckOptions(), 1 if quick else 3)
    ok = all(r.exit_code == 0 for r in results)
    report.add(Row("check (reference)", "16 catalogue tests", timing,
                   note="all passed" if ok else f"exit codes {[r.exit_code for r in results]}", target="<= 60 s"))
    slowest = sorted(results[0].tests, key=lambda t: -t.duration)[:5]
    for test in slowest:
        per = [next(t.duration for t in r.tests if t.name == test.name) for r in results]
        print(f"    {test.name:<54} median {format_seconds(statistics.median(per)):>10}", file=report.out)
    if not quick:
        timing, results = _time(CheckOptions(deep=True, timeout=300.0), 1)
        report.add(Row("check --deep (reference)", "16 + 4 Hypothesis properties", timing,
                       note="all passed" if results[0].exit_code == 0 else f"exit {results[0].exit_code}",
                       target="<= 300 s"))
