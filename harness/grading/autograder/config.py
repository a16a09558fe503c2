"""The settings a bundle carries from ``autograder build`` to ``run_autograder``.

``wall`` is the one time budget of a run (``harness.policy``'s ``run_budget_seconds``, 540 s:
Gradescope's 10 minutes less a margin): the submission's check and then the student's
own tests share it. ``visibility`` and ``test_visibility`` are Gradescope's visibility
values (``harness.grading.autograder.visibility``): which tests a student sees now, after the due
date, after publication, or never.

``build`` writes them as ``constrain-harness-autograder.json`` next to ``setup.sh``;
``run_autograder`` reads them back, so the course's choices (tier, points, hints, limits)
are fixed when the bundle is built, and every submission is graded the same way.

Example::

    >>> AutograderConfig(points=50, hints="none").to_json()["points"]
    50.0
    >>> AutograderConfig.from_json({"lab": "L10.9"})
    Traceback (most recent call last):
    ...
    ValueError: lab 'L10.9' cannot be graded by check: only L8.7 (the Python module); ...
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from harness.files_in import read_text
from harness.grading.autograder.gradescope import HINTS
from harness.grading.autograder.grading import TIERS, GradeOptions
from harness.grading.autograder.visibility import Visibility
from harness.policy import POLICY
from harness.seconds import check_seconds

__all__ = ["AutograderConfig", "CONFIG_NAME", "SECRET_NAME", "LABS"]

CONFIG_NAME = "constrain-harness-autograder.json"
SECRET_NAME = "constrain-harness-course-secret"
"""The bundle's course secret, beside ``CONFIG_NAME`` (``harness.suite.seeding.course_seed``: 64 hex
digits made when the bundle is built). Staff-only: never in the config, a report or results.json."""
LABS = ("L8.7",)


MAX_POINTS = 1_000_000.0
"""Largest assignment score (as ``harness.argtypes.MAX_SCORE``)."""
MAX_SECONDS = 86_400.0
"""Largest per-test timeout or per-submission wall, seconds (a day)."""
MAX_MEGABYTES = 1 << 20
"""Largest memory limit, MB (1 TiB: larger values overflow RLIMIT_AS)."""


def _number_in(value, low: float, high: float) -> bool:
    """Return True if and only if ``value`` is a real number (not a bool) with ``low < value <= high``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and low < value <= high


@dataclasses.dataclass(frozen=True)
class AutograderConfig:
    lab: str = "L8.7"
    tier: str = POLICY.tier
    points: float = 16.0
    hints: str = POLICY.hints
    timeout: float = POLICY.test_cpu_seconds    # seconds per test (check --timeout)
    memory: int = POLICY.memory_mb              # MB (check --memory)
    wall: float = POLICY.run_budget_seconds   # the ONE wall-clock budget of a run (harness.policy): the
                                # submission's check (its backstop: the shorter of this and the policy's 10x),
                                # then the student's own tests with what is left; below Gradescope's default
                                # 10-minute limit, so a hanging submission still gets a results.json from us
    submission_cpu: float = POLICY.submission_cpu_seconds   # CPU seconds of the whole run's process tree
    ref_deps: bool = POLICY.ref_deps            # fill in L8.1 sampling / M05.2 byte map the student skipped
    grade_student_tests: bool = True
    visibility: str = "visible"   # Gradescope's value for the results and every test (autograder.visibility)
    test_visibility: dict = dataclasses.field(default_factory=dict)   # test name -> value: the exceptions
    version: str = ""           # the constrain-harness version the bundle installs
    commit: str = ""            # the source commit it was built from, when known

    def __post_init__(self):
        if self.lab not in LABS:
            raise ValueError(f"lab {self.lab!r} cannot be graded by check: only {', '.join(LABS)} (the Python "
                             f"module); L10.9 (the Rust port) is checked by 'golden replay'")
        if self.tier not in TIERS:
            raise ValueError(f"tier must be one of {', '.join(TIERS)}, not {self.tier!r}")
        if self.hints not in HINTS:
            raise ValueError(f"hints must be one of {', '.join(HINTS)}, not {self.hints!r}")
        # finite and in range (results.json must hold JSON numbers: no Infinity, no NaN)
        if not _number_in(self.points, 0, MAX_POINTS):
            raise ValueError(f"points must be a finite number in (0, {MAX_POINTS:g}], not {self.points!r}")
        object.__setattr__(self, "points", float(self.points))
        for name in ("timeout", "wall", "submission_cpu"):
            check_seconds(name, getattr(self, name), at_most=MAX_SECONDS)
        if isinstance(self.memory, bool) or not isinstance(self.memory, int) or not 256 <= self.memory <= MAX_MEGABYTES:
            raise ValueError(f"memory must be an integer number of MB in 256..{MAX_MEGABYTES}, not {self.memory!r}")
        self.grade_options()  # validates timeout, memory and submission_cpu (harness.policy)
        self.visibility_settings()  # validates the values and the test names

    def visibility_settings(self) -> Visibility:
        return Visibility(self.visibility, dict(self.test_visibility))

    def grade_options(self) -> GradeOptions:
        """The policy's options with this bundle's choices; the wall backstop is the policy's
        (10x the CPU limit) or the platform's clock, whichever is shorter."""
        backstop = min(self.wall, POLICY.backstop(self.submission_cpu))
        return GradeOptions(tier=self.tier, ref_deps=self.ref_deps, timeout=self.timeout, memory=self.memory,
                            submission_cpu=self.submission_cpu, wall=backstop)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "AutograderConfig":
        if not isinstance(data, dict):
            raise TypeError(f"the autograder config must be a JSON object, not {type(data).__name__}")
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown autograder setting(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    @classmethod
    def read(cls, path: Path) -> "AutograderConfig":
        try:
            return cls.from_json(json.loads(read_text(path)))  # a regular file, size-capped, read once
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read the autograder config {path}: {exc}") from exc
