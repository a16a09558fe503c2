"""Benchmark: ``constrain-harness grade-tests`` end to end.

Subject: the strong example suite (``tests/student_suites/strong``) against the default
wheats (the reference, ``harness/grading/gradetests/wheats/fair_*.py``, brzozowski; two runs
each) and the 27 catalogue chaffs, 2 runs at a time, as a grader runs it. Target (issue
23): <= 120 s wall on 2 quiet cores. The peer row is one run of the suite against the
reference (two processes, pytest, the relay), so its ratio (the grading / one run) says
how many runs' worth the grading costs; the note gives the CPU seconds the grading's
process trees used (what its limits count), how many runs it took, and the CPU seconds of
the grader's own process (the relay: every request of every run decoded, gated and
encoded again, ``gradetests.relay``), which no limit counts but the machine pays.
"""

from __future__ import annotations

import os
import statistics
import time

from harness.bench.timing import Row, Timing
from harness.grading.gradetests.grade import GradeOptions, grade
from harness.grading.gradetests.implementations import ROOT, wheat
from harness.grading.gradetests.suite_run import run_suite

SUITE = ROOT / "tests" / "student_suites" / "strong"


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def run(report, quick: bool) -> None:
    repeat = 1 if quick else 3
    one = [run_suite(SUITE, wheat("reference"), seed=0) for _ in range(repeat)]
    seconds = [r.seconds for r in one]
    report.add(Row("grade-tests", "one run (reference)", Timing(statistics.median(seconds), min(seconds), repeat),
                   note=f"{len(one[0].outcomes)} tests, 2 processes, {one[0].cpu_seconds:.1f} CPU s",
                   peer_of="strong suite, default wheats, 27 chaffs"))
    options = GradeOptions(suite=SUITE, seed=0)
    seconds, own, graded = [], [], None
    for _ in range(repeat):
        start, own_start = time.monotonic(), time.process_time()
        graded = grade(options)
        seconds.append(time.monotonic() - start)
        own.append(time.process_time() - own_start)
    g = graded.grade
    runs = 2 * len(graded.wheats) + g.total
    report.add(Row("grade-tests", "strong suite, default wheats, 27 chaffs",
                   Timing(statistics.median(seconds), min(seconds), repeat),
                   note=(f"{len(g.caught)}/{g.total} caught, {len(g.valid)} valid; {len(graded.wheats)} wheats, "
                         f"{runs} runs, {graded.cpu_seconds:.0f} CPU s, {statistics.median(own):.0f} CPU s in the "
                         f"grader's own process; {_load()}"),
                   target="<= 120 s"))
