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

The compile, sampling and schema evidence's items are bounded the same way (``item_budget``): the
evidence record (``evidence.record_lines``, beside the coverage map) measures the reference's CPU on
each item, and a mutant's evidence child runs each item it computes under ``FACTOR x`` that ``+
CONSTANT`` (``evidence.within_budget``: its ``RLIMIT_CPU`` lowered for the item), never above the
child's own limit (the run's ``timeout``, 30 CPU s). An item that spins ends the child by SIGXCPU a
few CPU s in instead of 30, the same "undecided" (the survivor is unproven and the deep pass runs).
A record made before the figures has none (the child's limit, as before); the switch turns them off
too (``runner.plan`` drops the figures from the pick).

A mutant that is correct but several times slower than the reference on a test now times out
there: a timeout is a kill by its tier, as it was at 10 CPU s (Stryker's rule too). The sample
that checks it (``tests/mutants/test_mutants_budget_verdicts.py``) gives every mutant the same
verdict both ways. ``CONSTRAIN_HARNESS_NO_TEST_BUDGETS=1`` turns the calibration off (every test
and load has today's budget, every evidence item the child's limit); a coverage map recorded before
the figures has none (the same).

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
"""Set to 1: every test of a generated mutant has today's budget (``runner.test_cpu_seconds``),
every load the policy's and every evidence item its child's limit, whatever the coverage map
recorded (the slow path, to compare verdicts)."""


def on() -> bool:
    """Whether the calibrated budgets are used (``OFF_VARIABLE`` unset or not 1), read at each plan."""
    return os.environ.get(OFF_VARIABLE) != "1"


def item_budget(cpu: float, cap: float) -> float:
    """An evidence item's CPU budget in a mutant's evidence child (``evidence.Pick.budgets``): ``FACTOR x``
    the reference's CPU on the item (``evidence.record_lines``, under coverage's tracer from a fresh
    start) ``+ CONSTANT``, never above ``cap`` (the child's own limit today, the run's ``timeout``)."""
    return round(min(cap, FACTOR * cpu + CONSTANT), 3)


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
