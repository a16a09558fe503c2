"""Grade a student's own tests: valid on every wheat, and how many chaffs they catch.

    constrain-harness grade-tests python/tests/l8-7-constrain/
    constrain-harness grade-tests DIR --hints pitfall --gradescope /autograder/results/results.json
    constrain-harness grade-tests DIR --module mypkg.constrain --json grade.json --html grade.html

The suite in DIR runs under pytest in its own confined process and imports ``--module``
(default ``tinyllm.infer.constrain``), which is served from another confined process by
the implementation under test: every wheat (the reference, the fairness gallery,
brzozowski) twice, then every chaff (the catalogue's s01-s27) once
(``harness.gradetests``). A test failing on a wheat is invalid and excluded; a chaff is
caught when a valid test fails on it; the score is caught/total (0 without a valid test).

Exit codes: 0 every test valid and every chaff caught; 1 graded, with invalid tests or
surviving chaffs; 2 usage error; 4 the harness's files changed during the grading.
"""

from __future__ import annotations

import sys

from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    parser.add_argument("suite", metavar="DIR", help="the student's test folder")
    parser.add_argument("--module", default="tinyllm.infer.constrain",
                        help="the module name the tests import (default tinyllm.infer.constrain)")
    parser.add_argument("--hints", choices=("none", "pitfall", "full"), default="pitfall",
                        help="what is said of a surviving chaff: nothing, the seed's pitfall, the mutant "
                             "(default pitfall)")
    parser.add_argument("--json", metavar="F", help="write the JSON report to F")
    parser.add_argument("--gradescope", metavar="F", help="write Gradescope's results.json to F")
    parser.add_argument("--max-score", metavar="N", type=float, default=100.0,
                        help="the Gradescope score of a suite catching every chaff (default 100)")
    parser.add_argument("--stryker", metavar="F", help="write the mutation-testing-report-schema JSON to F")
    parser.add_argument("--html", metavar="F", help="write the offline HTML matrix to F")
    parser.add_argument("--timeout", metavar="S", type=float, default=60.0,
                        help="wall-clock seconds of one run of the suite (default 60)")
    parser.add_argument("--budget", metavar="S", type=float, default=900.0,
                        help="wall-clock seconds of the whole grading (default 900)")
    parser.add_argument("--wheats", metavar="LIST", default="",
                        help="comma-separated wheats ('reference' or paths; default: reference, "
                             "tests/candidates/fair_*.py, brzozowski.py)")
    parser.add_argument("--chaffs", metavar="IDS", default="", help="comma-separated catalogue ids (default s01-s27)")
    parser.add_argument("--jobs", metavar="N", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--seed", metavar="N", type=int, default=None, help="the chaff order's seed (default random)")


def run(args, stdout, stderr) -> int:
    from pathlib import Path

    from harness.gradetests import reports
    from harness.gradetests.grade import GradeOptions, grade

    def split(text: str) -> tuple[str, ...]:
        return tuple(x.strip() for x in text.split(",") if x.strip())

    try:
        options = GradeOptions(suite=Path(args.suite), module=args.module, timeout=args.timeout, budget=args.budget,
                               wheats=split(args.wheats), chaffs=split(args.chaffs), jobs=args.jobs, seed=args.seed)
        if args.max_score <= 0:
            raise ValueError(f"--max-score must be positive, not {args.max_score}")
        graded = grade(options, lambda done, total, run: print(reports.progress_line(done, total, run),
                                                               file=stdout, flush=True))
    except ValueError as exc:
        print(f"grade-tests: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    outputs = [(args.json, lambda: reports.to_json(graded, args.hints)),
               (args.gradescope, lambda: reports.to_gradescope(graded, args.hints, args.max_score)),
               (args.stryker, lambda: reports.to_stryker(graded))]
    for path, make in outputs:
        if path:
            _write(path, lambda p, m=make: reports.write_json(p, m()), stderr)
    if args.html:
        _write(args.html, lambda p: Path(p).write_text(reports.to_html(graded, args.hints), encoding="utf-8"), stderr)
    print("", file=stdout)
    print(reports.table(graded, args.hints), file=stdout, end="", flush=True)
    if graded.tampered:
        return int(ExitCode.TAMPERED)
    g = graded.grade
    return int(ExitCode.OK if g.valid and not g.invalid and not g.surviving else ExitCode.FAILED)


def _write(path: str, write, stderr) -> None:
    try:
        write(path)
    except OSError as exc:
        print(f"cannot write {path}: {exc}", file=stderr or sys.stderr)
