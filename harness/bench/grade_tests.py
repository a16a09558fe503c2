"""Benchmark: ``constrain-harness grade-tests`` end to end.

Subject: the strong example suite (``tests/student_suites/strong``, 30 tests) against 3
wheats (two runs each) and the 27 catalogue chaffs, 2 runs at a time, as a grader runs
it. The wheats are the default ones (reference, ``fair_*``, brzozowski), padded with
clean copies of the reference (``harness.mutants.runner.NULL_MUTANT``) to 3 when the
fairness gallery is absent. Target (issue 13): <= 3 minutes wall on 2 cores. The peer
row is one run of the suite against the reference (two processes, pytest, the relay),
so its ratio (the grading / one run) says how many runs' worth the grading costs.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from harness.bench.timing import Row, Timing
from harness.gradetests.grade import GradeOptions, grade
from harness.gradetests.implementations import ROOT, default_wheats, wheat
from harness.gradetests.suite_run import run_suite
from harness.mutants.apply import materialize
from harness.mutants.runner import NULL_MUTANT

SUITE = ROOT / "tests" / "student_suites" / "strong"


def _wheat_specs(folder: Path) -> tuple[str, ...]:
    specs = ["reference" if w.spec is None else w.spec for w in default_wheats()][:3]
    while len(specs) < 3:
        copy = materialize(NULL_MUTANT, folder / f"clean{len(specs)}")
        specs.append(str(copy))
    return tuple(specs)


def run(report, quick: bool) -> None:
    repeat = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="bench-grade-tests-") as folder:
        one = [run_suite(SUITE, wheat("reference"), timeout=120).seconds for _ in range(repeat)]
        report.add(Row("grade-tests", "one run (reference)", Timing(statistics.median(one), min(one), repeat),
                       note="30 tests, 2 processes", peer_of="30 tests, 3 wheats, 27 chaffs"))
        options = GradeOptions(suite=SUITE, wheats=_wheat_specs(Path(folder)), seed=0, budget=600.0)
        seconds, graded = [], None
        for _ in range(repeat):
            start = time.monotonic()
            graded = grade(options)
            seconds.append(time.monotonic() - start)
        g = graded.grade
        report.add(Row("grade-tests", "30 tests, 3 wheats, 27 chaffs", Timing(statistics.median(seconds),
                       min(seconds), repeat),
                       note=(f"{len(g.caught)}/{g.total} caught, {len(g.valid)} valid; "
                             f"wheats {', '.join(graded.wheats)}"),
                       target="<= 180 s"))
