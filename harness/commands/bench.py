"""Run benchmarks and print medians and ratios against peers measured in the same run.

    constrain-harness bench              # every benchmark
    constrain-harness bench compile      # one of them
    constrain-harness bench --quick      # fewer repeats
    constrain-harness bench corpus PATH  # a benchmark that takes a path: the word after its name
    constrain-harness bench check batch --page docs/performance.md   # a dated section on the page
    constrain-harness bench batch --class worst-case   # the worst-case class against its correct part
    constrain-harness bench batch --class DIR          # a class folder of your own (graded on a copy)
    constrain-harness bench stress --timeout 20 --memory 2000 --pythonpath /tmp/main   # another checkout
"""

from __future__ import annotations

import importlib
import os
from datetime import datetime, timezone
from pathlib import Path

from harness.argtypes import megabytes, names, output_file, seconds
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
    stress = parser.add_argument_group("with stress (harness.bench.stress.StressOptions)")
    stress.add_argument("--timeout", type=seconds, default=None, help="kill each case's child past S seconds (30)")
    stress.add_argument("--memory", type=megabytes(64), default=None, help="each child's address space, MB (2000)")
    stress.add_argument("--pythonpath", metavar="DIR", default=None, help="a checkout to measure instead of this one")
    stress.add_argument("--cases", type=names, default=None, help="only these cases of the corpus (comma-separated)")
    stress.add_argument("--targets", metavar="LIST", type=names, default=None,
                        help="reference, derivatives or both (default both; a wire case runs as its own target)")


STRESS_OPTIONS = {"timeout": "timeout", "memory": "memory_mb", "pythonpath": "pythonpath", "cases": "only",
                  "targets": "targets"}
"""``bench`` option's dest -> its ``StressOptions`` field."""


def stress_options(args):
    """The ``StressOptions`` of the stress options given (None when none is): a ValueError names a bad one."""
    from harness.bench.stress import StressOptions

    given = {field: getattr(args, dest) for dest, field in STRESS_OPTIONS.items()
             if getattr(args, dest, None) is not None}
    if not given:
        return None
    return StressOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})


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
    try:
        stress = stress_options(args)
    except ValueError as exc:
        print(f"bench: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    if stress is not None and names != ["stress"]:
        print("--timeout, --memory, --pythonpath, --cases and --targets go with the stress benchmark alone: "
              "constrain-harness bench stress --timeout S", file=stderr)
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
        elif stress is not None:
            module.run(report, quick=args.quick, options=stress)
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
