"""Grade an implementation of the contract with the conformance catalogue.

    constrain-harness check                                # grade the built-in reference
    constrain-harness check --impl submission/constrain.py --ref-deps --json report.json
    constrain-harness check --impl my_pkg.constrain --gradescope /autograder/results/results.json
    constrain-harness check --impl harness/grading/gradetests/wheats/brzozowski.py --only test_canonical_form
    constrain-harness check --batch submissions/ --jobs 2 --csv out/grades.csv --feedback out/feedback

The catalogue (the spec's 16 tests, ``harness/suite``) runs in the grader; the candidate
runs behind the wall (``harness.sandbox``: a confined process, a data-only channel,
per-test deadlines, memory limits, the harness's files verified after the run). The
terminal shows the confinement, the spec's table with a verdict and one line why per
test, then the counterexamples, the contract-decision notes, then the totals.

Limits and defaults come from ``harness.policy`` (printed in the header): ``--timeout``
is CPU seconds per test of the candidate's process tree, wall time only a backstop (10x).
``--seed N`` replays a run: every random choice comes from the run seed, by default
derived from the submission's content (``harness.suite.seeding``), printed in the header
and written in every report.

``--strict`` also grades the contract's decisions where the spec is silent
(``harness.suite.tiers``); by default a departure is a note and changes nothing.

Where no confinement can start (``harness.sandbox.confine``: bubblewrap, which comes with
the install) it refuses with one line and exit 2; ``--unconfined`` runs the candidate
without any wall, for trusted code only (the header and every report say so).

Exit codes: 0 all passed; 1 tests failed; 2 usage error (or no confinement); 3 the candidate
crashed or timed out; 4 the harness's files changed during the run (``harness.exitcodes``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import report
from harness.argtypes import check_seed
from harness.commands.args import (
    add_unconfined,
    confinement,
    confinement_for,
    input_file,
    megabytes,
    names,
    one_line_errors,
    requested_reports,
    seconds,
)
from harness.exitcodes import ExitCode
from harness.policy import POLICY
from harness.suite.catalogue import DEEP_NAMES, NAMES


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("--impl", metavar="X", default=None,
                        help="module name, .py file, package directory, or a submission folder (the spec's layout "
                             "python/tinyllm/infer/constrain.py, or constrain.py at its top) (default: the "
                             "reference oracles.automaton)")
    parser.add_argument("--ref-deps", action=argparse.BooleanOptionalAction, default=POLICY.ref_deps,
                        help="supply the reference SamplingParams, sample and GPT-2 byte map where X lacks them "
                             f"(default: {'on' if POLICY.ref_deps else 'off'}, harness.policy)")
    parser.add_argument("--deep", action="store_true",
                        help="also run the Hypothesis differential properties (derandomized)")
    parser.add_argument("--strict", action="store_true",
                        help="also grade the contract's decisions where the spec is silent (default: notes)")
    parser.add_argument("--timeout", metavar="S", type=seconds, default=None,
                        help=f"CPU seconds per test, of the candidate's process tree (default "
                             f"{POLICY.test_cpu_seconds:g}; 300 with --deep); wall time is only a backstop, "
                             f"{POLICY.backstop(1):g}x")
    parser.add_argument("--seed", metavar="N", type=run_seed, default=None,
                        help="the run seed every random choice comes from (default: derived from the "
                             "submission's content; the header prints it, so --seed N replays a run)")
    parser.add_argument("--memory", metavar="MB", type=megabytes(256), default=POLICY.memory_mb,
                        help=f"address-space limit of the candidate in MB (default {POLICY.memory_mb})")
    parser.add_argument("--only", metavar="NAMES", type=names, default=None,
                        help="comma-separated test names to run: the catalogue's, or the deep tier's "
                             "(test_deep_..., which implies --deep) (default: all 16)")
    parser.add_argument("--golden-file", metavar="F", type=input_file, default=None,
                        help="the masks golden file to replay (default golden/masks_golden.json)")
    add_unconfined(parser)
    # the report files of one run (kinds tests, graded) and of a batch (kind class: --json, --csv, --html)
    report.add_options(parser, {"tests", "graded", "class"})
    from harness.grading import batch  # check --batch DIR [--jobs N] [--resume]: harness/grading/batch
    batch.add_arguments(parser)


def run_seed(text: str) -> int:
    """``--seed``'s value: an int in 0 .. 2**32 - 1 (argparse reports the ValueError)."""
    try:
        return check_seed(int(text))
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}" if "seed" in str(exc) else
                                         f"{text!r} is not an integer seed") from None


def run(args, stdout, stderr) -> int:
    verb = "check --batch" if getattr(args, "batch", None) else "check"
    with confinement(args, verb, stderr) as refused:
        if refused is not None:
            return refused
        if getattr(args, "batch", None):
            from harness.sandbox.guard import verified

            # each run verifies the harness's files itself; one killed at its wall clock cannot: this does (here:
            # the batch decodes no candidate message, only the runs' reports)
            return verified(verb, lambda out, err: _run_batch(args, out, err), stdout, stderr)
        return _run_one(args, stdout, stderr)


# check's options that mean nothing for a batch (each has its own per-run meaning)
_SINGLE_RUN_OPTIONS = {"impl": "--impl", "only": "--only", "deep": "--deep", "junit_xml": "--junit-xml",
                       "gradescope": "--gradescope", "golden_file": "--golden-file"}


def _run_batch(args, stdout, stderr) -> int:
    """``check --batch DIR``: the command line read once into a ``BatchOptions`` (a usage error, exit 2,
    when a value is refused), then the batch, which never sees the Namespace."""
    from harness.grading import batch

    try:
        options = batch_options(args)
    except ValueError as exc:
        print(f"check --batch: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    return batch.run(options, stdout, stderr)


def batch_options(args):
    """The ``BatchOptions`` of a parsed ``check --batch`` command line (validated when made: a
    ValueError naming the option); a one-run option given with ``--batch`` is refused."""
    import os

    from harness.grading.batch import BatchOptions, CourseOptions

    given = [flag for attr, flag in _SINGLE_RUN_OPTIONS.items() if getattr(args, attr, None)]
    if given:
        raise ValueError(f"{', '.join(given)} cannot be combined with --batch (they describe one run)")
    course = CourseOptions(
        points=args.points, regrade=tuple(args.regrade or ()), metadata=args.metadata, roster=args.roster,
        due=args.due, late_policy=args.late_policy, gradebook=args.gradebook, canvas_gradebook=args.canvas_gradebook,
        assignment=args.assignment, canvas_assignment_id=args.canvas_assignment_id,
        allow_duplicate_students=args.allow_duplicate_students, allow_missing_students=args.allow_missing_students,
        starter=args.starter)
    return BatchOptions(
        folder=Path(args.batch), jobs=args.jobs if args.jobs is not None else (os.cpu_count() or 1),
        resume=args.resume, tier="strict" if args.strict else POLICY.tier, ref_deps=bool(args.ref_deps),
        timeout=args.timeout if args.timeout is not None else POLICY.test_cpu_seconds,
        memory=args.memory if args.memory is not None else POLICY.memory_mb,
        submission_limit=args.submission_limit, class_limit=args.class_limit, hints=args.hints,
        feedback=args.feedback, scheduler=args.scheduler, reports=requested_reports(args), course=course)


def _run_one(args, stdout, stderr) -> int:
    from harness.grading import batch
    from harness.grading.check import CheckOptions

    batch_only = [option for dest, default, option in batch.batch_only_options()
                  if getattr(args, dest, default) != default]
    if batch_only:
        print(f"{', '.join(batch_only)}: only with --batch DIR (grading a class); check grades one "
              f"implementation", file=stderr)
        return int(ExitCode.USAGE)

    # --timeout and --memory were checked by their argparse types; the run value checks them once more as
    # an invariant (harness.run.CatalogueRun, through GradingPolicy)
    only = tuple(args.only or ())
    deep = args.deep or any(n in DEEP_NAMES for n in only)  # a deep test named: the deep tier
    timeout = args.timeout if args.timeout is not None else (300.0 if deep else POLICY.test_cpu_seconds)
    golden_file = None if args.golden_file is None else str(args.golden_file)
    options = CheckOptions(impl=args.impl, ref_deps=args.ref_deps, deep=deep, timeout=timeout,
                           memory=args.memory, only=only, golden_file=golden_file,
                           strict=args.strict, seed=args.seed)
    return check_one(options, requested_reports(args), stdout, stderr)


def run_request(text: str, stdout, stderr) -> int:
    """``check_entry --request JSON``: one check job as the batch and the autograder hand it over, whole
    (``{"options": CheckOptions.to_json's object, "reports": {format: path}}``; no argument parser)."""
    import json

    from harness.grading.check import CheckOptions

    try:
        request = json.loads(text)
        if not isinstance(request, dict) or set(request) - {"options", "reports"}:
            raise ValueError("a check request is {\"options\": {...}, \"reports\": {format: path}}")
        options = CheckOptions.from_document(request.get("options", {}))
        reports = request.get("reports", {})
        if not isinstance(reports, dict) or not all(name in report.BY_NAME and isinstance(path, str) and path
                                                    for name, path in reports.items()):
            raise ValueError(f"check request: reports maps a format ({', '.join(report.BY_NAME)}) to a path")
    except ValueError as exc:
        print(f"check --request: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    with confinement_for(False, "check", stderr) as refused:
        if refused is not None:
            return refused
        return check_one(options, {name: Path(path) for name, path in reports.items()}, stdout, stderr)


def check_one(options, reports: dict, stdout, stderr) -> int:
    """Grade one implementation (``options``: a ``CheckOptions``, its ``impl`` as the user gave it) and
    write ``reports`` (a format's name -> its path); the exit code. Typed: no argparse Namespace."""
    from dataclasses import replace

    from harness.grading.autograder.locate import SubmissionError, impl_target
    from harness.grading.check import run_check

    only = tuple(options.only)  # () : every test; an empty list is refused when parsed
    unknown = [n for n in only if n not in NAMES and n not in DEEP_NAMES]
    if unknown:
        print(f"unknown test(s): {', '.join(unknown)}; the catalogue: {', '.join(NAMES)}; the deep tier: "
              f"{', '.join(DEEP_NAMES)}", file=stderr)
        return int(ExitCode.USAGE)
    try:   # a student's folder, a zip or a mistyped path, as check --batch reads them
        impl = None if options.impl is None else impl_target(options.impl)
    except SubmissionError as exc:
        print(f"check --impl: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    result = run_check(replace(options, impl=impl))
    from harness.grading import report as reports_of  # after the run: nothing of it on the way to the first test

    checked = reports_of.to_report(result)
    written = report.write_reports(reports, checked, stderr)
    print(checked.terminal, file=stdout, flush=True)
    if not written and checked.exit_code == ExitCode.OK:
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    return checked.exit_code
