"""Run benchmarks and print medians and ratios against peers measured in the same run.

    constrain-harness bench              # every benchmark
    constrain-harness bench compile      # one of them
    constrain-harness bench --quick      # fewer repeats
"""

from __future__ import annotations

import importlib

from harness.bench import BENCHMARKS
from harness.bench.timing import Report
from harness.commands.args import one_line_errors
from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke run")


def run(args, stdout, stderr) -> int:
    names = args.names or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=stderr)
        return int(ExitCode.USAGE)
    report = Report(stdout)
    for name in names:
        print(f"== bench {name}", file=stdout, flush=True)
        importlib.import_module(BENCHMARKS[name]).run(report, quick=args.quick)
    print("", file=stdout)
    report.summary()
    return int(ExitCode.OK)
