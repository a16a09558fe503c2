"""Measuring the machine's stretch for the calibrated wall limit (``harness.policy.WallCalibration``).

``measure()`` times the reference (``oracles.automaton``) compiling the catalogue's kind of
patterns (``regex_to_dfa``: the work every catalogue test asks of a candidate first) until it
has used ``WORK_CPU_SECONDS`` CPU seconds, and returns its wall and CPU seconds. The grading
run (``harness.grading.check.run_check``) measures once as it starts, on the same machine at
the same moment as the candidate it grades, and its grader child puts the result in force.

The work runs in the grading process itself, not in a confined candidate of its own: what the
calibration needs is how much wall time a CPU second costs on this machine now (the
scheduler's share, the same for any process here), and a second confined process per
submission would cost a sandbox start (some 0.5 s) where this costs ``WORK_CPU_SECONDS``.
CPU is this thread's (``time.thread_time``), so another thread of the process that holds the
interpreter lock only makes the stretch (and so the limit) larger, never smaller.

Example::

    >>> calibration = measure()
    >>> calibration.stretch >= 1.0
    True
"""

from __future__ import annotations

import time

from harness.policy import WallCalibration

__all__ = ["PATTERNS", "WORK_CPU_SECONDS", "measure"]

WORK_CPU_SECONDS = 0.03  # CPU seconds of reference work per measurement (~10 scheduler slices; 0.1 cost a
# quiet `check` 4% of its wall, measured 2026-12-06)
PATTERNS = ("(cat|car|dog)s?", "[a-z]+@[a-z]+\\.(com|org)", "(ab|a)*b{2,4}", "\\d{1,3}(\\.\\d{1,3}){3}")
_MAX_ROUNDS = 10_000  # a bound on the loop whatever the clocks say


def measure(work_cpu_seconds: float = WORK_CPU_SECONDS) -> WallCalibration:
    """The reference's wall and CPU seconds for about ``work_cpu_seconds`` CPU seconds of
    compiling ``PATTERNS`` (at least one round)."""
    from oracles.automaton import regex_to_dfa

    if isinstance(work_cpu_seconds, bool) or not isinstance(work_cpu_seconds, (int, float)) or \
            not 0 < work_cpu_seconds <= 10:
        raise ValueError(f"work_cpu_seconds must be a number of seconds in (0, 10], not {work_cpu_seconds!r}")
    wall_start, cpu_start = time.perf_counter(), time.thread_time()
    for _ in range(_MAX_ROUNDS):
        for pattern in PATTERNS:
            regex_to_dfa(pattern)
        if time.thread_time() - cpu_start >= work_cpu_seconds:
            break
    wall, cpu = time.perf_counter() - wall_start, time.thread_time() - cpu_start
    return WallCalibration(reference_wall=max(wall, 1e-6), reference_cpu=max(cpu, 1e-6))
