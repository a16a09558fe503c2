"""The grading policy: every default that decides a verdict, stated once.

``check``, ``check --batch``, ``autograder run`` (Gradescope, PrairieLearn) and
``grade-tests`` read their defaults from here, and each prints ``POLICY.header()`` (or the
values it was given instead) in its run header, so the same submission is graded the
same way by every verb.

Time limits count **CPU seconds** of the candidate's process tree (a busy machine does not
change a verdict); wall time is only a backstop, ``BACKSTOP_FACTOR`` times the CPU limit,
for a candidate that sleeps or blocks, and a verdict reached by the backstop says so.

One exception, the Gradescope bundle: the platform stops a run at its own wall clock
(10 minutes by default), so a submission's check and the student's own tests share one
wall-clock budget, ``run_budget_seconds`` (that timeout less a margin), printed in the
autograder's header (``budget_line``).

Example::

    >>> POLICY.test_cpu_seconds, POLICY.backstop(POLICY.test_cpu_seconds)
    (60.0, 600.0)
    >>> POLICY.ref_deps, POLICY.tier
    (True, 'default')
    >>> POLICY.run_budget_seconds     # the Gradescope bundle: a submission and its student tests together
    540.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["BACKSTOP_FACTOR", "GradingPolicy", "POLICY", "TIERS", "HINT_LEVELS"]

BACKSTOP_FACTOR = 10.0  # wall-clock backstop = this x the CPU limit (a sleeping or blocked candidate)
TIERS = ("default", "strict")
HINT_LEVELS = ("none", "pitfall", "full")


@dataclass(frozen=True)
class GradingPolicy:
    """The limits and choices one grading run applies (see the module docstring).

    Invariants: every number is finite and positive; ``tier`` is one of ``TIERS`` and
    ``hints`` one of ``HINT_LEVELS``."""

    tier: str = "default"
    ref_deps: bool = True  # supply L8.1's sampling and M05.2's byte map only where the module lacks them
    hints: str = "pitfall"
    test_cpu_seconds: float = 60.0  # one test's calls into the candidate, CPU seconds of its process tree
    load_cpu_seconds: float = 60.0  # importing the candidate (and numpy) and checking the contract
    # the grader child's own CPU seconds to import pytest and numpy and collect the catalogue (check's
    # watchdog allows it before the load and between tests: harness.grading.check)
    startup_cpu_seconds: float = 60.0
    memory_mb: int = 2048  # address space of the candidate process
    submission_cpu_seconds: float = 540.0  # one submission's whole check run (Gradescope's 10 min, less margin)
    suite_cpu_seconds: float = 900.0  # grade-tests: one student suite against every wheat and chaff
    # the Gradescope bundle: ONE wall-clock budget for a submission's check and its student tests together,
    # within the platform's own timeout (Gradescope's default: 10 minutes) less a margin to start and write
    # the results: run_budget_seconds = 600 - 60 = 540 s (AutograderConfig.wall, autograder build --wall)
    platform_wall_seconds: float = 600.0
    platform_margin_seconds: float = 60.0

    def __post_init__(self):
        if self.tier not in TIERS:
            raise ValueError(f"tier must be one of {', '.join(TIERS)}, not {self.tier!r}")
        if self.hints not in HINT_LEVELS:
            raise ValueError(f"hints must be one of {', '.join(HINT_LEVELS)}, not {self.hints!r}")
        for name in ("test_cpu_seconds", "load_cpu_seconds", "startup_cpu_seconds", "submission_cpu_seconds",
                     "suite_cpu_seconds",
                     "platform_wall_seconds", "platform_margin_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a finite number of seconds > 0, not {value!r}")
        if not self.platform_margin_seconds < self.platform_wall_seconds:
            raise ValueError(f"platform_margin_seconds ({self.platform_margin_seconds:g}) must be less than "
                             f"platform_wall_seconds ({self.platform_wall_seconds:g})")
        if isinstance(self.memory_mb, bool) or not isinstance(self.memory_mb, int) or self.memory_mb < 256:
            raise ValueError(f"memory_mb must be an integer of at least 256, not {self.memory_mb!r}")

    @staticmethod
    def backstop(cpu_seconds: float) -> float:
        """The wall-clock backstop for a limit of ``cpu_seconds`` CPU seconds."""
        return BACKSTOP_FACTOR * cpu_seconds

    @property
    def run_budget_seconds(self) -> float:
        """The one wall-clock budget of a Gradescope run: the submission's check, then the
        student's own tests with what the check left (the platform's timeout less the margin)."""
        return self.platform_wall_seconds - self.platform_margin_seconds

    def budget_line(self, budget: float | None = None) -> str:
        """One line for the autograder's header: the time budget in force (``budget``: the
        bundle's, when it differs from the policy's)."""
        budget = self.run_budget_seconds if budget is None else budget
        return (f"time budget: {budget:g} s of wall time for the submission's check and the student's own tests "
                f"together (the tests get what the check leaves, at most {self.suite_cpu_seconds:g} CPU s), within "
                f"Gradescope's default timeout of {self.platform_wall_seconds:g} s")

    def with_(self, **changes) -> "GradingPolicy":
        """A copy with ``changes`` (validated again)."""
        return replace(self, **changes)

    def header(self) -> str:
        """One line for a run header: the limits and choices in force."""
        return (f"policy: tier {self.tier}, ref-deps {'on' if self.ref_deps else 'off'}, "
                f"{self.test_cpu_seconds:g} CPU s per test (wall backstop {self.backstop(self.test_cpu_seconds):g} s), "
                f"{self.load_cpu_seconds:g} CPU s to load, {self.memory_mb} MB, "
                f"{self.submission_cpu_seconds:g} CPU s per submission")


POLICY = GradingPolicy()
"""The defaults every verb starts from."""
