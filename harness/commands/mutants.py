"""Run the mutant catalogue and report the mutation score.

    constrain-harness mutants                         # all 27 + 11, two at a time
    constrain-harness mutants --only s05,s12,l10_9:s03 --jobs 1
    constrain-harness mutants --json m.json --stryker m.stryker.json --html m.html

First checks the runner (the clean reference passes, a forced failure fails), then
runs each mutant in its own process, expected killers first. Exits 1 when a mutant
survives, times out, errors, or its patch no longer applies; 0 when all are killed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from harness.commands.args import jobs, one_line_errors, output_file, seconds
from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("--only", metavar="IDS", help="comma-separated mutant ids (e.g. s05,s12,l10_9:s03; "
                                                      "the old p01-p11 name l10_9:s01-s11)")
    parser.add_argument("--jobs", type=jobs, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--timeout", type=seconds, default=120.0, help="seconds per mutant process")
    parser.add_argument("--json", metavar="F", type=output_file, help="write the JSON report")
    parser.add_argument("--stryker", metavar="F", type=output_file,
                        help="write the Stryker mutation-testing-report-schema JSON")
    parser.add_argument("--html", metavar="F", type=output_file, help="write the self-contained HTML kill matrix")
    parser.add_argument("--no-self-check", action="store_true", help="skip the runner's self check")


def run(args, stdout, stderr) -> int:
    from harness.mutants import report
    from harness.mutants.catalogue import BY_ID, MUTANTS, resolve
    from harness.mutants.runner import Outcome, run_all, self_check

    mutants = list(MUTANTS)
    if args.only:
        wanted = list(dict.fromkeys(resolve(x.strip()) for x in args.only.split(",") if x.strip()))
        unknown = [x for x in wanted if x not in BY_ID]
        if unknown:
            print(f"mutants: unknown id(s) {', '.join(unknown)}; known: {', '.join(BY_ID)}", file=stderr)
            return int(ExitCode.USAGE)
        mutants = [BY_ID[x] for x in wanted]
    if not args.no_self_check:
        print("self check: clean reference and forced failure ...", file=stdout, flush=True)
        with tempfile.TemporaryDirectory(prefix="constrain-selfcheck-") as folder:
            problems = self_check(Path(folder), args.timeout)
        if problems:
            for p in problems:
                print(f"self check FAILED: {p}", file=stderr)
            return int(ExitCode.FAILED)
        print("self check: ok", file=stdout, flush=True)

    def progress(result, done, total):
        bar = "#" * (20 * done // total)
        print(f"[{bar:<20}] {done:>2}/{total} {result.id} {result.outcome.value}"
              f" ({', '.join(result.killed_by) or '-'}) {result.seconds:.1f}s", file=stdout, flush=True)

    results = run_all(mutants, jobs=args.jobs, timeout=args.timeout, progress=progress)
    print(report.table(results), file=stdout)
    unwritten = False
    for path, render in ((args.json, lambda: report.dumps(report.to_json(results))),
                         (args.stryker, lambda: report.dumps(report.to_stryker(results))),
                         (args.html, lambda: report.to_html(results))):
        if path:
            try:
                report.write(str(path), render())
            except OSError as exc:
                print(f"mutants: cannot write {path}: {exc.strerror or exc}", file=stderr)
                unwritten = True
    others_only = [r.id for r in results if r.outcome is Outcome.KILLED and not r.by_expected]
    if others_only:
        print(f"killed only by tests other than the expected ones: {', '.join(others_only)}", file=stdout)
    bad = [r for r in results if r.outcome is not Outcome.KILLED]
    if unwritten and not bad:
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    return int(ExitCode.FAILED if bad else ExitCode.OK)
