"""The typed options of ``check --batch``: what the batch and its reports read, never an
argparse ``Namespace`` (argparse stops at ``harness/commands/``).

``harness.commands.check`` builds one ``BatchOptions`` from the command line; a caller that
grades a class from Python builds it directly. Both values are frozen and validated once,
when made: a bad field is a ``ValueError`` in one line naming the option it came from
(``--jobs must be between 1 and 64, not 0``), the words ``check --batch`` has always printed.
What needs the files (the roster, the metadata, the due date, the starter code) is read and
checked by ``Course.open`` (``harness.grading.batch.course``), before anything is graded.

Example::

    >>> options = BatchOptions(folder=Path("submissions"), jobs=2, reports={"csv": Path("grades.csv")})
    >>> options.grade.header()
    'policy: ... (wall backstop 5400 s)'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from harness.argtypes import MAX_JOBS, check_jobs
from harness.policy import HINT_LEVELS, POLICY
from harness.seconds import check_seconds

if TYPE_CHECKING:   # imported when a value is made: `check`'s parser imports this module, the grading need not
    from harness.grading.autograder.grading import GradeOptions

__all__ = ["BatchOptions", "CourseOptions", "MAX_JOBS", "METADATA_NAME", "course_arguments"]

DEFAULT_POINTS = 16.0            # one per test of the catalogue
DEFAULT_ASSIGNMENT = "L8.7 constrain"


@dataclass(frozen=True)
class CourseOptions:
    """The course around a batch (``harness.grading.batch.course``): ``--points``, ``--regrade``,
    ``--metadata``, ``--roster``, ``--due``, ``--late-policy``, the gradebooks and their Canvas
    assignment, the two overrides and ``--starter``. The paths are as given (``Course.open``
    reads and checks the files); ``points`` is a finite number > 0, ``regrade`` a tuple of names."""

    points: float = DEFAULT_POINTS
    regrade: tuple[str, ...] = ()
    metadata: str | None = None
    roster: Path | None = None
    due: str | None = None
    late_policy: str | None = None
    gradebook: Path | None = None
    canvas_gradebook: Path | None = None
    assignment: str = DEFAULT_ASSIGNMENT
    canvas_assignment_id: str = ""
    allow_duplicate_students: bool = False
    allow_missing_students: bool = False
    starter: str | None = None

    def __post_init__(self):
        points = self.points
        if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 < points < math.inf:
            raise ValueError(f"--points must be a finite number > 0, not {points!r}")
        object.__setattr__(self, "points", float(points))
        if isinstance(self.regrade, str) or not all(isinstance(name, str) for name in self.regrade):
            raise ValueError(f"--regrade takes names (one per option), not {self.regrade!r}")
        object.__setattr__(self, "regrade", tuple(self.regrade))


@dataclass(frozen=True)
class BatchOptions:
    """One ``check --batch DIR``: the class folder, ``jobs`` at a time (1 .. ``MAX_JOBS``),
    ``resume``, each submission's limits (``tier``, ``ref_deps``, ``timeout`` and ``memory`` per
    test, ``submission_limit`` CPU seconds per submission: ``grade``, the ``GradeOptions`` every
    submission is graded with, twin off), ``class_limit`` (CPU seconds for the class, or None),
    ``hints`` (one of ``HINT_LEVELS``, or None for the policy's), ``feedback`` (a folder, or
    None), ``scheduler`` (a Dask address, or None: ``$CONSTRAIN_HARNESS_SCHEDULER`` then local),
    ``reports`` (a report format's name -> its path) and ``course``."""

    folder: Path
    jobs: int
    resume: bool = False
    tier: str = POLICY.tier
    ref_deps: bool = POLICY.ref_deps
    timeout: float = POLICY.test_cpu_seconds
    memory: int = POLICY.memory_mb
    submission_limit: float | None = None
    class_limit: float | None = None
    hints: str | None = None
    feedback: Path | None = None
    scheduler: str | None = None
    reports: Mapping[str, Path] = field(default_factory=dict)
    course: CourseOptions = field(default_factory=CourseOptions)
    grade: GradeOptions = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        check_jobs(self.jobs)
        from harness.grading.autograder.grading import GradeOptions

        submission_cpu = _limit("submission-limit", self.submission_limit, POLICY.submission_cpu_seconds)
        # validated by GradingPolicy: the tier, the per-test CPU seconds and memory, the submission's limit;
        # --jobs fill the cores, so no twin (the verdicts are the twin's: harness.suite.twin)
        grade = GradeOptions(tier=self.tier, ref_deps=bool(self.ref_deps), timeout=self.timeout, memory=self.memory,
                             submission_cpu=submission_cpu, twin=False)
        object.__setattr__(self, "grade", grade)
        object.__setattr__(self, "class_limit", _limit("class-limit", self.class_limit, None))
        if self.hints is not None and self.hints not in HINT_LEVELS:
            raise ValueError(f"--hints must be one of {', '.join(HINT_LEVELS)}, not {self.hints!r}")
        from harness.report.registry import BY_NAME

        unknown = sorted(set(self.reports) - set(BY_NAME))
        if unknown:
            raise ValueError(f"BatchOptions.reports: no report format {', '.join(unknown)} "
                             f"(the formats: {', '.join(BY_NAME)})")
        object.__setattr__(self, "reports", MappingProxyType({name: Path(p) for name, p in self.reports.items()}))
        if not isinstance(self.course, CourseOptions):
            raise TypeError(f"BatchOptions.course must be a CourseOptions, not {type(self.course).__name__}")

    @property
    def hint_level(self) -> str:
        """What the reports and feedback files say of a failed test: ``hints``, else the policy's."""
        return self.hints or POLICY.hints


def _limit(option: str, value, default):
    """``value`` as a finite number of CPU seconds > 0, or ``default`` when None."""
    if value is None:
        return default
    return float(check_seconds(f"--{option}", value, unit="CPU seconds"))


METADATA_NAME = "submission_metadata.yml"   # Gradescope's export metadata (harness.grading.batch.roster reads it)


def course_arguments(group) -> None:
    """The course's options of ``check --batch`` (``CourseOptions``' fields), declared here, where a
    single ``check`` reads them without importing the batch's course (``harness.grading.batch.course``:
    the roster, gradebooks and similarity, ~0.05 CPU s of the ``check`` verb's start, 2026-12-07)."""
    from harness.argtypes import input_file, output_file, score

    group.add_argument("--roster", metavar="F", type=input_file, default=None,
                       help="with --batch: a roster CSV (name, SID, email; a Canvas or Gradescope roster export works)")
    group.add_argument("--metadata", metavar="F", default=None,
                       help=f"with --batch: Gradescope's {METADATA_NAME} (default: DIR/{METADATA_NAME} when present)")
    group.add_argument("--due", metavar="WHEN", default=None,
                       help="with --batch: the due date, ISO 8601 with its zone (e.g. 2026-12-01T23:59:00-08:00)")
    group.add_argument("--late-policy", metavar="P", default=None,
                       help="with --batch --due: none | flag (default) | penalty:PERCENT_PER_DAY[,cap:PERCENT]; "
                            "any of them [,grace:MINUTES]")
    group.add_argument("--points", metavar="N", type=score, default=16.0,
                       help="with --batch: the assignment's points in the gradebooks (default 16: one per test)")
    group.add_argument("--gradebook", metavar="F", type=output_file, default=None,
                       help="with --batch: write the gradebook as a plain CSV (one row per student)")
    group.add_argument("--canvas-gradebook", metavar="F", type=output_file, default=None,
                       help="with --batch: write the gradebook as Canvas's import CSV")
    group.add_argument("--assignment", metavar="NAME", default="L8.7 constrain",
                       help="with --canvas-gradebook: the assignment's name in Canvas (default 'L8.7 constrain')")
    group.add_argument("--canvas-assignment-id", metavar="ID", default="",
                       help="with --canvas-gradebook: Canvas's id of an existing assignment (else Canvas creates one)")
    group.add_argument("--allow-duplicate-students", action="store_true",
                       help="with --gradebook/--canvas-gradebook: write a row per submission even when two "
                            "submissions match one roster student (default: both submissions are listed and no "
                            "gradebook is written)")
    group.add_argument("--allow-missing-students", action="store_true",
                       help="with --gradebook/--canvas-gradebook and --roster: write the gradebooks even when a "
                            "roster student has no submission, with no score for them (default: they are listed "
                            "and no gradebook is written)")
    group.add_argument("--starter", metavar="DIR", default=None,
                       help="with --batch: the starter code students were given (a folder or a file); the "
                            "similarity check discounts it, so a shared stub is never flagged")
    group.add_argument("--regrade", metavar="NAME", action="append", default=[],
                       help="with --batch --resume: grade this student again even if the upload is unchanged "
                            "(folder name, or the student's name, SID or email; repeatable)")
