"""Grade an implementation of the contract with the conformance catalogue.

    constrain-harness check                                # grade the built-in reference
    constrain-harness check --impl submission/constrain.py --ref-deps --json report.json
    constrain-harness check --impl my_pkg.constrain --gradescope /autograder/results/results.json
    constrain-harness check --impl harness/gradetests/wheats/brzozowski.py --only test_canonical_form

The catalogue (the seed's 16 tests, ``harness/suite``) runs in the grader; the candidate
runs behind the wall (``harness.sandbox``: a confined process, a data-only channel,
per-test deadlines, memory limits, the harness's files verified after the run). The
terminal shows the confinement, the seed's table with a verdict and one line why per
test, then the counterexamples, the contract-decision notes, then the totals.

``--strict`` also grades the contract's decisions where the seed is silent
(``harness.suite.tiers``); by default a departure is a note and changes nothing.

Exit codes: 0 all passed; 1 tests failed; 2 usage error; 3 the candidate crashed or
timed out; 4 the harness's files changed during the run (``harness.exitcodes``).
"""

from __future__ import annotations

from harness import report
from harness.commands.args import input_file, megabytes, one_line_errors, seconds
from harness.exitcodes import ExitCode
from harness.suite.catalogue import NAMES


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("--impl", metavar="X", default=None,
                        help="module name, .py file or package directory (default: the reference oracles.automaton)")
    parser.add_argument("--ref-deps", action="store_true",
                        help="supply the reference SamplingParams, sample and GPT-2 byte map where X lacks them")
    parser.add_argument("--deep", action="store_true",
                        help="also run the Hypothesis differential properties (derandomized)")
    parser.add_argument("--strict", action="store_true",
                        help="also grade the contract's decisions where the seed is silent (default: notes)")
    parser.add_argument("--timeout", metavar="S", type=seconds, default=None,
                        help="wall-clock seconds per test (default 60; 300 with --deep)")
    parser.add_argument("--memory", metavar="MB", type=megabytes(256), default=2048,
                        help="address-space limit of the child in MB (default 2048)")
    parser.add_argument("--only", metavar="NAMES", default="",
                        help="comma-separated catalogue test names to run (default: all 16)")
    parser.add_argument("--golden-file", metavar="F", type=input_file, default=None,
                        help="the masks golden file to replay (default golden/masks_golden.json)")
    # the report files of one run (kinds tests, graded) and of a batch (kind class: --json, --csv, --html)
    report.add_options(parser, {"tests", "graded", "class"})
    from harness import batch  # check --batch DIR [--jobs N] [--resume]: harness/batch
    batch.add_arguments(parser)


def run(args, stdout, stderr) -> int:
    if getattr(args, "batch", None):
        from harness import batch
        return batch.run(args, stdout, stderr)
    from harness import reports
    from harness.check import CheckOptions, run_check

    only = tuple(n.strip() for n in args.only.split(",") if n.strip())
    unknown = [n for n in only if n not in NAMES]
    if unknown:
        print(f"unknown test(s): {', '.join(unknown)}; the catalogue: {', '.join(NAMES)}", file=stderr)
        return int(ExitCode.USAGE)
    timeout = args.timeout if args.timeout is not None else (300.0 if args.deep else 60.0)
    if timeout <= 0 or args.memory < 256:
        print("--timeout must be > 0 and --memory at least 256 MB", file=stderr)
        return int(ExitCode.USAGE)
    golden_file = None if args.golden_file is None else str(args.golden_file)
    options = CheckOptions(impl=args.impl, ref_deps=args.ref_deps, deep=args.deep, timeout=timeout,
                           memory=args.memory, only=only, golden_file=golden_file,
                           strict=args.strict)
    checked = reports.to_report(run_check(options))
    written = report.write_requested(args, checked, stderr)
    print(checked.terminal, file=stdout, flush=True)
    if not written and checked.exit_code == ExitCode.OK:
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    return checked.exit_code
