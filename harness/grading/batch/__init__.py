"""Batch grading: ``constrain-harness check --batch DIR`` grades a class's folder of
submissions, N at a time, each in its own confined ``check`` run.

    constrain-harness check --batch submissions/ --jobs 2 --csv grades.csv --json grades.json --html grades.html
    constrain-harness check --batch submissions/ --resume     # after Ctrl-C or a crash: finished ones are kept

One module per concern: ``submissions`` (what is in DIR, fingerprints), ``state`` (the
resumable state, written atomically after each submission), ``records`` (one student's
result), ``progress`` (the bar), ``reports`` (table, histogram, CSV, JSON, HTML, Markdown),
``feedback`` (what one student reads: why, hint, counterexample; ``--feedback DIR``),
``diagnosis`` (the spec's pitfalls that fit a student's failures, ranked), ``charts`` (the
HTML page's inline SVG), ``runner`` (the pool), and ``course`` (the roster, due date, late
policy, gradebooks, similar submissions and ``--regrade``, from ``roster``, ``late``,
``gradebook`` and ``similarity``). Each submission is graded by
``harness.grading.autograder.grading``, the same code as the Gradescope autograder.

Every submission is graded on a private copy of its own files (``harness.intake``),
with the grading policy's defaults (``harness.policy``: ref-deps on, the default tier, the
per-test and per-submission limits in CPU seconds) and the same code as the autograder, so
a submission gets the same grade from ``check``, ``check --batch`` and Gradescope.
``--submission-limit S`` changes the per-submission limit, ``--class-limit S`` bounds the
whole class, ``--no-ref-deps`` (check's) turns the reference's dependencies off.

``add_arguments`` adds the options to ``check`` (the report files, ``--json``, ``--csv``,
``--html``, ``--md``, are check's, from ``harness.report``; ``--hints`` and ``--feedback DIR``
change only what is written, never a grade, and can differ from one ``--resume`` to the
next); ``run`` is called by ``check`` when ``--batch`` is given, with the ``BatchOptions``
(``options``: typed and validated once; the batch never reads an argparse ``Namespace``)
``harness.commands.check`` built from the command line. Exit codes: 0 every
submission has a verdict (the verdicts are in the reports); 1 interrupted (what finished
is saved: rerun with ``--resume``); 2 bad arguments.
"""

from __future__ import annotations

from harness.argtypes import add_scheduler, output_folder, seconds
from harness.grading.batch.options import BatchOptions, CourseOptions, course_arguments
from harness.policy import BACKSTOP_FACTOR, HINT_LEVELS, POLICY

__all__ = ["add_arguments", "batch_only_options", "run", "BatchOptions", "CourseOptions"]


def add_arguments(parser) -> None:
    group = parser.add_argument_group("batch grading (check --batch DIR)")
    group.add_argument("--batch", metavar="DIR", default=None,
                       help="grade every submission in DIR (a folder or a .py file per student)")
    group.add_argument("--jobs", metavar="N", type=int, default=None,
                       help="submissions graded at a time (default: the number of cores)")
    group.add_argument("--resume", action="store_true",
                       help="with --batch: keep the submissions already graded (the state, NAME.batch-state.json, "
                            "is in the folder of the reports, else next to DIR)")
    group.add_argument("--submission-limit", metavar="S", type=seconds, default=None,
                       help=f"with --batch: CPU seconds of one submission's whole check run (default "
                            f"{POLICY.submission_cpu_seconds:g}; wall backstop {BACKSTOP_FACTOR:g}x)")
    group.add_argument("--hints", choices=HINT_LEVELS, default=None,
                       help=f"with --batch: what the reports and feedback files say of a failed test: none (the "
                            f"verdict), pitfall (also the why and the diagnosed pitfall), full (also the "
                            f"counterexample and where to look; the TA's reports always show why and "
                            f"counterexample) (default {POLICY.hints})")
    group.add_argument("--feedback", metavar="DIR", type=output_folder, default=None,
                       help="with --batch: write one Markdown feedback file per student into DIR")
    group.add_argument("--class-limit", metavar="S", type=seconds, default=None,
                       help=f"with --batch: CPU seconds for the whole class (default: none; wall backstop "
                            f"{BACKSTOP_FACTOR:g}x); when it runs out the batch stops, --resume grades the rest")
    course_arguments(group)   # --roster, --due, --late-policy, --gradebook, --canvas-gradebook, --regrade
    add_scheduler(group)
    _BATCH_ONLY[:] = [(a.dest, a.default, a.option_strings[0]) for a in group._group_actions if a.dest != "batch"]


_BATCH_ONLY: list[tuple[str, object, str]] = []  # (dest, default, option): the options that need --batch DIR


def batch_only_options() -> list[tuple[str, object, str]]:
    """(dest, default, option) of each option ``add_arguments`` added that means something only with
    ``--batch DIR``: ``harness.commands.check`` refuses them without it rather than ignore them."""
    return list(_BATCH_ONLY)


def run(options: BatchOptions, stdout, stderr) -> int:
    """Grade the class ``options`` names (``harness.grading.batch.runner.run_batch``); the exit code."""
    from harness.grading.batch.runner import run_batch

    return run_batch(options, stdout, stderr)
