"""grade-tests' time limits: CPU seconds of a run's process trees, wall time only a backstop.

A light module (no harness imports beyond the policy): the command line reads its defaults
when it builds its parser.

Example::

    >>> RunLimits().test_cpu, RunLimits().run_wall
    (60.0, 1200.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.policy import POLICY

RUN_CPU_SECONDS = 2 * POLICY.test_cpu_seconds  # one run of a suite: every test, both process trees


@dataclass(frozen=True)
class RunLimits:
    """CPU seconds (the suite's and the implementation's process trees together) one test
    and one run may use; the wall-clock backstops are ``POLICY.backstop`` of each."""

    test_cpu: float = POLICY.test_cpu_seconds
    run_cpu: float = RUN_CPU_SECONDS

    def __post_init__(self):
        for name in ("test_cpu", "run_cpu"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a finite number of CPU seconds > 0, not {value!r}")

    @property
    def test_wall(self) -> float:
        return POLICY.backstop(self.test_cpu)

    @property
    def run_wall(self) -> float:
        return POLICY.backstop(self.run_cpu)
DEFAULT_LIMITS = RunLimits()
"""The defaults: ``POLICY.test_cpu_seconds`` per test, ``RUN_CPU_SECONDS`` per run."""
