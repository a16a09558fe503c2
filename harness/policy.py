"""The grading policy: every default that decides a verdict, stated once.

``check``, ``check --batch``, ``autograder run`` (Gradescope, PrairieLearn) and
``grade-tests`` read their defaults from here, and each prints ``POLICY.header()`` (or the
values it was given instead) in its run header, so the same submission is graded the
same way by every verb.

Time limits count **CPU seconds** of the candidate's process tree (a busy machine does not
change a verdict); wall time is only a backstop, ``BACKSTOP_FACTOR`` times the CPU limit,
for a candidate that sleeps or blocks, and a verdict reached by the backstop says so.

**The calibrated wall limit** (``WallCalibration``): a grading run (``check``, and so every
batch and Gradescope submission) times the reference doing CPU-bound work of its own kind on
the same machine at the same moment (``harness.grading.wall_calibration``) and its grader
child puts the result in force (``use_wall_calibration``); from then on ``backstop(S)`` in
that process is ``WallCalibration.limit(S)``::

    limit(S) = min(BACKSTOP_FACTOR * S, max(WALL_FLOOR_SECONDS, WALL_FACTOR * stretch * S))
    stretch  = max(1, reference wall seconds / reference CPU seconds)

Invariant (why it is fair under load): a candidate that computes gets at least
``WALL_FACTOR`` times the wall time its whole CPU budget costs on this machine now (or the
fixed backstop when that is shorter), so one that is merely slow reaches its CPU-seconds verdict
exactly as before, and the limit grows with the measured stretch; a candidate that sleeps or
blocks is stopped after ``WALL_FACTOR * stretch`` times its CPU limit (2 x 60 s on a quiet
machine) instead of ``BACKSTOP_FACTOR`` times; the limit is never longer than the fixed
backstop and never shorter than the floor. Without a calibration (a ``Candidate`` opened by
hand, the other verbs) the fixed backstop stands.

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

from harness.seconds import check_seconds

__all__ = ["BACKSTOP_FACTOR", "GradingPolicy", "POLICY", "TIERS", "HINT_LEVELS", "WALL_FACTOR",
           "WALL_FLOOR_SECONDS", "WallCalibration", "use_wall_calibration", "wall_calibration_in_force"]

BACKSTOP_FACTOR = 10.0  # wall-clock backstop = this x the CPU limit (a sleeping or blocked candidate)
WALL_FACTOR = 2.0  # calibrated wall limit = this x the measured stretch x the CPU limit (module docstring)
WALL_FLOOR_SECONDS = 5.0  # ... and never less than this (a short CPU limit still has room to start)


@dataclass(frozen=True)
class WallCalibration:
    """The reference's wall and CPU seconds for one piece of CPU-bound work, measured on this
    machine at the start of a grading run, and the wall limits they set (module docstring).

    Invariants: both figures are finite and > 0; ``stretch`` >= 1; ``limit(S)`` lies between
    ``min(WALL_FLOOR_SECONDS, BACKSTOP_FACTOR * S)`` and ``BACKSTOP_FACTOR * S`` and never
    decreases when the reference's wall time grows.

        >>> WallCalibration(0.2, 0.2).limit(60.0), WallCalibration(0.5, 0.25).limit(60.0)
        (120.0, 240.0)
        >>> WallCalibration(2.0, 0.2).limit(60.0)      # at most the fixed backstop
        600.0
    """

    reference_wall: float
    reference_cpu: float

    def __post_init__(self):
        for name in ("reference_wall", "reference_cpu"):
            check_seconds(f"WallCalibration.{name}", getattr(self, name))

    def argument(self) -> str:
        """The calibration as one command-line word, ``WALL:CPU`` (``parse`` reads it back)."""
        return f"{self.reference_wall!r}:{self.reference_cpu!r}"

    @classmethod
    def parse(cls, text: str) -> "WallCalibration":
        """The calibration ``argument()`` wrote; a ValueError naming the text otherwise."""
        wall, sep, cpu = str(text).partition(":")
        try:
            return cls(float(wall), float(cpu)) if sep else cls(float("nan"), 0.0)
        except ValueError as exc:
            raise ValueError(f"a wall calibration is WALL:CPU seconds, both > 0, not {text!r} ({exc})") from None

    @property
    def stretch(self) -> float:
        """Wall seconds one CPU second costs on this machine now (1 when nothing competes)."""
        return max(1.0, self.reference_wall / self.reference_cpu)

    def limit(self, cpu_seconds: float) -> float:
        """The wall limit of a budget of ``cpu_seconds`` CPU seconds."""
        check_seconds("cpu_seconds", cpu_seconds)
        calibrated = max(WALL_FLOOR_SECONDS, WALL_FACTOR * self.stretch * cpu_seconds)
        return min(BACKSTOP_FACTOR * cpu_seconds, calibrated)

    def describe(self, cpu_seconds: float) -> str:
        """One line for a run header: the limit for ``cpu_seconds`` and how it was set. The
        measured figures are written at a fixed width (up to a stretch of 999 and 999 s), so
        the line's length does not depend on the load: a report clipped in the middle
        (``grading.printable``) cuts the same text from two gradings of one upload."""
        return (f"wall limit: {self.limit(cpu_seconds):4.0f} s per test = {WALL_FACTOR:g} x {self.stretch:6.2f} "
                f"(the reference's wall/CPU seconds on this machine now: {self.reference_wall:7.3f}/"
                f"{self.reference_cpu:7.3f}) x {cpu_seconds:g} CPU s, at least {WALL_FLOOR_SECONDS:g} s, "
                f"at most the {BACKSTOP_FACTOR * cpu_seconds:g} s backstop")


_WALL_IN_FORCE: list[WallCalibration] = []  # this process's calibration (the grader child's run), at most one


def use_wall_calibration(calibration: WallCalibration | None) -> None:
    """Put ``calibration`` in force in this process (None: the fixed backstop again). Every
    ``GradingPolicy.backstop`` read after it, the candidate's per-call wall limits included
    (``harness.sandbox.client``), is ``calibration.limit``."""
    if calibration is not None and not isinstance(calibration, WallCalibration):
        raise TypeError(f"use_wall_calibration takes a WallCalibration or None, not {type(calibration).__name__}")
    _WALL_IN_FORCE[:] = [calibration] if calibration is not None else []


def wall_calibration_in_force() -> WallCalibration | None:
    """This process's calibration (``use_wall_calibration``), or None."""
    return _WALL_IN_FORCE[0] if _WALL_IN_FORCE else None
TIERS = ("default", "strict")
HINT_LEVELS = ("none", "pitfall", "full")
SEED_KEPT = "seed: kept by the course staff (it replays this run exactly)"
"""What a student reads where a report would name the run seed. The seed is the staff's: every
Gradescope results file (``check --gradescope``, ``grade-tests --gradescope``, the autograder
bundle's) holds it in a hidden test only, and its stdout is hidden; a student who read it could
replay the run offline and try uploads until its random inputs miss a bug (issue 48)."""
SEED_TEST = "course staff only: the run seed"
"""The hidden, 0-point test of a Gradescope results file that holds the run seed."""


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
            check_seconds(name, getattr(self, name))
        if not self.platform_margin_seconds < self.platform_wall_seconds:
            raise ValueError(f"platform_margin_seconds ({self.platform_margin_seconds:g}) must be less than "
                             f"platform_wall_seconds ({self.platform_wall_seconds:g})")
        if isinstance(self.memory_mb, bool) or not isinstance(self.memory_mb, int) or self.memory_mb < 256:
            raise ValueError(f"memory_mb must be an integer of at least 256, not {self.memory_mb!r}")

    @staticmethod
    def backstop(cpu_seconds: float) -> float:
        """The wall-clock limit for a limit of ``cpu_seconds`` CPU seconds: the calibrated one
        where this process has one in force (``use_wall_calibration``), else the fixed backstop."""
        if _WALL_IN_FORCE:
            return _WALL_IN_FORCE[0].limit(cpu_seconds)
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
