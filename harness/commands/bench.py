"""Run benchmarks and print medians and ratios against peers measured in the same run.

    constrain-harness bench              # every benchmark
    constrain-harness bench compile      # one of them
    constrain-harness bench --quick      # fewer repeats
    constrain-harness bench corpus PATH  # a benchmark that takes a path: the word after its name
    constrain-harness bench check batch --page docs/performance.md   # a dated section on the page
    constrain-harness bench batch --class worst-case   # the worst-case class against its correct part
    constrain-harness bench batch --class DIR          # a class folder of your own (graded on a copy)
"""

from __future__ import annotations

import importlib
import os
from datetime import datetime, timezone
from pathlib import Path

from harness.argtypes import output_file
from harness.bench import BENCHMARKS
from harness.bench.timing import Report
from harness.commands.args import one_line_errors
from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke run")
    parser.add_argument("--class", dest="class_dir", metavar="DIR", default=None,
                        help="with batch: grade this class folder (a copy) instead of the built class; "
                             "'worst-case': a class of 10 correct submissions and a looping, a sleeping and a "
                             "fork-bombing one, against the 10 alone (the worst case within 3x their time)")
    parser.add_argument("--page", metavar="F", type=output_file,
                        help="add the run's table as a dated section at the top of the Markdown page F "
                             "(docs/performance.md)")


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
    class_dir = getattr(args, "class_dir", None)
    if class_dir is not None:
        from harness.bench.batch import check_class_dir

        if names != ["batch"]:
            print("--class goes with the batch benchmark alone: constrain-harness bench batch --class DIR",
                  file=stderr)
            return int(ExitCode.USAGE)
        try:
            check_class_dir(class_dir)
        except ValueError as exc:
            print(str(exc), file=stderr)
            return int(ExitCode.USAGE)
    report = Report(stdout)
    load_before = _load()
    for name in names:
        print(f"== bench {name}", file=stdout, flush=True)
        module = importlib.import_module(BENCHMARKS[name])
        if name in paths:
            module.run(report, quick=args.quick, path=paths[name])
        elif class_dir is not None:
            module.run(report, quick=args.quick, class_dir=class_dir)
        else:
            module.run(report, quick=args.quick)
    print("", file=stdout)
    report.summary()
    if args.page:
        _write_page(Path(args.page), names, report, load_before)
    return int(ExitCode.OK)


def _write_page(path: Path, names: list[str], report: Report, load_before: str) -> None:
    from harness.bench.page import add_section, section
    from harness.bench.timing import machine_line

    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    add_section(path, section(when, names, machine_line(), load_before, _load(), report.table()))


def _load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
