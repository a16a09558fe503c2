"""Run benchmarks and print medians and ratios against peers measured in the same run.

    constrain-harness bench              # every benchmark
    constrain-harness bench compile      # one of them
    constrain-harness bench --quick      # fewer repeats
    constrain-harness bench corpus PATH  # a benchmark that takes a path: the word after its name
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


TAKES_PATH = ("corpus",)
"""Benchmarks whose ``run`` takes ``path=``: the word after the name, when it is no benchmark."""


def _paths(names: list[str]) -> tuple[list[str], dict[str, str]]:
    out, paths = [], {}
    for name in names:
        if out and out[-1] in TAKES_PATH and out[-1] not in paths and name not in BENCHMARKS:
            paths[out[-1]] = name
        else:
            out.append(name)
    return out, paths


def run(args, stdout, stderr) -> int:
    names, paths = _paths(args.names)
    names = names or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=stderr)
        return int(ExitCode.USAGE)
    report = Report(stdout)
    for name in names:
        print(f"== bench {name}", file=stdout, flush=True)
        module = importlib.import_module(BENCHMARKS[name])
        if name in paths:
            module.run(report, quick=args.quick, path=paths[name])
        else:
            module.run(report, quick=args.quick)
    print("", file=stdout)
    report.summary()
    return int(ExitCode.OK)
