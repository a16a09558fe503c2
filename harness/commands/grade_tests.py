"""Grade a student's own tests: valid on every wheat, and how many chaffs they catch.

    constrain-harness grade-tests python/tests/l8-7-constrain/
    constrain-harness grade-tests DIR --hints pitfall --gradescope /autograder/results/results.json
    constrain-harness grade-tests DIR --module mypkg.constrain --json grade.json --html grade.html

The suite in DIR runs under pytest in its own confined process and imports ``--module``
(default ``tinyllm.infer.constrain``), which is served from another confined process by
the implementation under test: every wheat (the reference, the fairness gallery,
brzozowski) twice, then every chaff (the catalogue's s01-s27) once
(``harness.grading.gradetests``). A test failing on a wheat is invalid and excluded; a chaff is
caught when a valid test fails on it; the score is caught/total (0 without a valid test).
Every implementation gets the same hello and runs every test (invalid ones are filtered
when scoring). Limits are CPU seconds of the suite's and the implementation's process
trees (``--test-cpu``, ``--timeout``, ``--budget``; defaults from ``harness.policy``), wall
time only a backstop 10x each; the run seed (``--seed``, by default derived from the
suite's files) is printed in the header and every report and replays the run.

Exit codes: 0 every test valid and every chaff caught; 1 graded, with invalid tests or
surviving chaffs; 2 usage error; 4 the harness's files changed during the grading.
"""

from __future__ import annotations

from harness.commands.args import (
    add_scheduler,
    add_unconfined,
    confinement,
    jobs,
    score,
    seconds,
    seed,
    write_requested,
)
from harness.exitcodes import ExitCode
from harness.grading.gradetests.limits import RUN_CPU_SECONDS
from harness.policy import POLICY
from harness.report import registry


def add_arguments(parser) -> None:
    parser.add_argument("suite", metavar="DIR", help="the student's test folder")
    parser.add_argument("--module", default="tinyllm.infer.constrain",
                        help="the module name the tests import (default tinyllm.infer.constrain)")
    parser.add_argument("--hints", choices=("none", "pitfall", "full"), default="pitfall",
                        help="what is said of a surviving chaff: nothing, the spec's pitfall, the mutant "
                             "(default pitfall)")
    registry.add_options(parser, {"mutants", "graded"})  # --json, --gradescope, --stryker, --html, --junit-xml, ...
    parser.add_argument("--max-score", metavar="N", type=score, default=100.0,
                        help="the Gradescope score of a suite catching every chaff (default 100)")
    parser.add_argument("--test-cpu", metavar="S", type=seconds, default=POLICY.test_cpu_seconds,
                        help=f"CPU seconds of one test, the suite's and the implementation's processes together "
                             f"(default {POLICY.test_cpu_seconds:g}; wall-clock backstop 10x)")
    parser.add_argument("--timeout", metavar="S", type=seconds, default=RUN_CPU_SECONDS,
                        help=f"CPU seconds of one run of the suite (default {RUN_CPU_SECONDS:g}; wall-clock backstop "
                             f"10x)")
    parser.add_argument("--budget", metavar="S", type=seconds, default=POLICY.suite_cpu_seconds,
                        help=f"CPU seconds of the whole grading (default {POLICY.suite_cpu_seconds:g}; wall-clock "
                             f"backstop 10x)")
    parser.add_argument("--wheats", metavar="LIST", default="",
                        help="comma-separated wheats ('reference' or paths; default: reference, "
                             "harness/grading/gradetests/wheats/: fair_*.py, brzozowski.py)")
    parser.add_argument("--chaffs", metavar="IDS", default="", help="comma-separated catalogue ids (default s01-s27)")
    parser.add_argument("--jobs", metavar="N", type=jobs, default=2, help="runs at a time (default 2)")
    parser.add_argument("--seed", metavar="N", type=seed, default=None,
                        help="the run seed: the suite's random draws (random, numpy, Hypothesis) and the chaff order "
                             "(default: derived from the suite's files, so a regrade draws the same)")
    add_scheduler(parser)
    add_unconfined(parser)


def run(args, stdout, stderr) -> int:
    from harness.sandbox.guard import guarded

    with confinement(args, "grade-tests", stderr) as refused:
        if refused is not None:
            return refused
        # this process relays the suite's and the implementations' messages: it runs in a
        # child, and the harness's files are verified and restored here however it ends
        return guarded("grade-tests", lambda out, err: _grade(args, out, err), stdout, stderr)


def _grade(args, stdout, stderr) -> int:
    from pathlib import Path

    from harness.fanout import executor
    from harness.grading.gradetests import report as reports
    from harness.grading.gradetests.grade import GradeOptions, grade

    def split(text: str) -> tuple[str, ...]:
        return tuple(x.strip() for x in text.split(",") if x.strip())

    try:
        options = GradeOptions(suite=Path(args.suite), module=args.module, test_cpu=args.test_cpu,
                               timeout=args.timeout, budget=args.budget,
                               wheats=split(args.wheats), chaffs=split(args.chaffs), jobs=args.jobs, seed=args.seed,
                               scheduler=executor.scheduler_from(args.scheduler))
        if args.max_score <= 0:
            raise ValueError(f"--max-score must be positive, not {args.max_score}")
        graded = grade(options, lambda done, total, run: print(reports.progress_line(done, total, run),
                                                               file=stdout, flush=True))
    except ValueError as exc:
        print(f"grade-tests: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    graded_report = reports.to_report(graded, args.hints, args.max_score)
    written = write_requested(args, graded_report, stderr)
    print("", file=stdout)
    print(graded_report.terminal, file=stdout, end="", flush=True)
    if graded.retried:
        print(f"{len(graded.retried)} run(s) done again after a Dask worker was lost: {', '.join(graded.retried)}",
              file=stdout, flush=True)
    if not written and graded_report.exit_code == ExitCode.OK:
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    return graded_report.exit_code
