"""Each catalogue test's CPU budget for a generated mutant, calibrated from the reference's own CPU.

A test's calls into a mutant had one budget, the same for every test: ``runner.test_cpu_seconds``
(``min(POLICY.test_cpu_seconds, timeout / TEST_SHARE)``, 10 CPU s for a generated mutant), and
its load the policy's ``load_cpu_seconds`` (60 CPU s, a student's). A mutant that loops spent all
of it: the whole run of 2026-12-07 spent 508 CPU s (7.5%) in 24 timeouts and 363 in four loads
that spun, where the reference takes a fraction of a second. Mutation tools calibrate the
timeout per test from the unmutated run (Stryker: ``baseline x timeoutFactor + timeoutConstant``);
so do we, from the coverage map's recording (``coverage.record``, ``coverage_plugin``), which runs
every catalogue test alone on the reference and measures its candidate's CPU and its load's:

- a test's budget is ``FACTOR x`` its reference candidate's CPU ``+ CONSTANT``, never above today's;
- a load's (the candidate's start and import, and each fresh candidate's after a crash or at the
  split) is ``FACTOR x`` the dearest reference load of the recording ``+ LOAD_CONSTANT``, never above
  the policy's.

Why these numbers: CPU seconds vary with the machine's load by tens of percent, never 3x (the
cost audits of docs/testing.md: the same tests 10-30% apart at loads 2 to 18); the recording's
candidate runs the reference under coverage's tracer, which only adds to its figure; and a fresh
candidate in the recording pays its first calls' one-off costs that a mutant's later tests may
not. ``FACTOR`` 4 puts every budget at four times a figure that is itself at or above the
reference's, and ``CONSTANT`` (1 CPU s) covers the tests whose calls cost almost nothing (a slice
of the budget's reading, ``client.SLICE``, the channel's overhead, a page-fault storm).

A mutant that is correct but several times slower than the reference on a test now times out
there: a timeout is a kill by its tier, as it was at 10 CPU s (Stryker's rule too). The sample
that checks it (``tests/mutants/test_mutants_budget_verdicts.py``) gives every mutant the same
verdict both ways. ``CONSTRAIN_HARNESS_NO_TEST_BUDGETS=1`` turns the calibration off (every test
and load has today's budget); a coverage map recorded before the figures has none (the same).

Example::

    >>> figures = {"load": 0.4, "tests": {"test_hand_example": {"candidate": 0.05, "grader": 0.3}}}
    >>> budgets_for(figures, 10.0)   # today's budget of a test: 10 CPU s
    {'load': 2.6, 'tests': {'test_hand_example': 1.2}}
"""

from __future__ import annotations

import os

from harness.policy import POLICY

FACTOR = 4.0          # times the reference's CPU on the test (or its dearest load)
CONSTANT = 1.0        # CPU s more, every test: the floor of a test whose calls cost almost nothing
LOAD_CONSTANT = 1.0   # CPU s more, every load
OFF_VARIABLE = "CONSTRAIN_HARNESS_NO_TEST_BUDGETS"
"""Set to 1: every test of a generated mutant has today's budget (``runner.test_cpu_seconds``) and
every load the policy's, whatever the coverage map recorded (the slow path, to compare verdicts)."""


def on() -> bool:
    """Whether the calibrated budgets are used (``OFF_VARIABLE`` unset or not 1), read at each plan."""
    return os.environ.get(OFF_VARIABLE) != "1"


def budgets_for(figures: dict | None, cap: float) -> dict | None:
    """``{"load": CPU s, "tests": test -> CPU s}`` from the reference's ``figures``
    (``coverage.CoverageMap.cpu``), each at most today's (``cap``: a test's budget today,
    ``runner.test_cpu_seconds`` of the run's limit; the policy's ``load_cpu_seconds``); None when
    there are no figures or the calibration is off (``on``): today's budgets."""
    if figures is None or not on():
        return None
    tests = {name: round(min(cap, FACTOR * cost["candidate"] + CONSTANT), 3)
             for name, cost in sorted(figures["tests"].items())}
    load = round(min(POLICY.load_cpu_seconds, FACTOR * figures["load"] + LOAD_CONSTANT), 3)
    return {"load": load, "tests": tests}
