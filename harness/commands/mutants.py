"""Run the mutant catalogue, or generated mutants, and report the mutation score.

    constrain-harness mutants                         # all 27 + 11, two at a time
    constrain-harness mutants --only s05,s12,l10_9:s03 --jobs 1
    constrain-harness mutants --first-kill            # the same verdicts, each mutant up to its first kill
    constrain-harness mutants --json m.json --stryker m.stryker.json --html m.html
    constrain-harness mutants --generated --sample 200 --seed 1 [--operators NumberReplacer,SwapArguments]
        [--module parser,schema] [--jobs 2]
    constrain-harness mutants --generated --state run.jsonl [--resume] [--scheduler tcp://HOST:8786]
    constrain-harness mutants --generated --merge py310.jsonl py311.jsonl --md merged.md   # one plan, two Pythons
    constrain-harness mutants --stability --only s12,s21 --seeds 3   # kills under several run seeds
    constrain-harness mutants --tools --sample 40 --seed 1 --md tools.md   # mutants of oracles/tools

First checks the runner (the clean reference passes, a forced failure fails), then
runs each mutant in its own process, expected killers first. Exits 1 when a mutant
survives, times out, errors, or its patch no longer applies; 0 when all are killed.
Each mutant's report lists every expected killer's outcome (every replay check for a
replay mutant), and every test's when none of them kills it; ``--first-kill`` stops each
mutant at its first killing test or check (its expected killers first): the same
verdicts, killed and by an expected test or not, for about a tenth of the CPU, the kill
matrix then holding only what ran. The last line gives the wall seconds and the CPU seconds of
the mutant processes on this machine: the graders' and their confined candidates', each named
(``harness.mutants.process_cpu``; no ``getrusage`` sees a candidate behind the wall).

``--generated``: mutants made by the operators of ``harness.mutants.generation``
(cosmic-ray's and ours) over ``oracles/automaton``; each runs the default tier, then, if
it survives, the deep pass (``--deep --strict``: the deep properties and the contract's
decisions, which a mutant departing only from a decision the spec does not state passes
in the default tier); survivors are checked for equivalence
(``harness.mutants.equivalence``, ``equivalents.json``). Prints the kill rate per
reference module and per operator.
Exits 1 when a non-equivalent mutant survives both tiers.

Each generated mutant runs only the catalogue tests that execute its statement on the
reference (``harness.mutants.coverage``: coverage per test, recorded once per reference
version into ``--coverage-file``, by default beside ``--state`` or in the user's cache
folder), and each pass stops at the first killing test; a mutant no test executes is "not
covered" (nothing runs for it; it counts as not killed); a survivor's equivalence check
computes only the corpus keys that execute its statement, up to the first that differs;
``--every-test`` runs the whole catalogue and every test, as before. The mutants are built
``--jobs`` processes at a time.

``--state FILE`` appends each mutant's result to FILE as it finishes
(``harness.mutants.state``); ``--resume`` keeps the results FILE holds and runs only the
rest (on the Python that wrote FILE: a generated verdict can depend on the Python).
``--merge A.jsonl B.jsonl``: the states of one plan run on different Pythons, merged into one
report (``harness.mutants.merge``: killed on any, not covered only if none executes it,
equivalent only if equivalent with evidence on every Python executing it).
``--scheduler tcp://HOST:PORT`` (or ``$CONSTRAIN_HARNESS_SCHEDULER``) runs the mutants on a
Dask cluster's workers (``harness.fanout.executor``; docs/scale-out.md).

``--stability`` and ``--tools``: two developer measures (``harness.commands.mutants_modes``):
seed stability (each mutant's expected killers under ``--seeds`` run seeds) and the generated
mutants of the tool surface against the tools golden replay.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from harness.commands.args import (
    add_scheduler,
    jobs,
    names,
    one_line_errors,
    output_file,
    positive_count,
    seconds,
    seed,
    write_requested,
)
from harness.exitcodes import ExitCode
from harness.fanout import executor
from harness.report import registry
from harness.report.progress import bar as progress_bar


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("--only", metavar="IDS", type=names, help="comma-separated mutant ids (e.g. s05,s12,l10_9:s03; "
                                                      "the old p01-p11 name l10_9:s01-s11; with --generated the "
                                                      "report's ids, e.g. parser.RemoveStatement.27)")
    parser.add_argument("--jobs", type=jobs, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--timeout", type=seconds, default=None,
                        help="CPU seconds per mutant process (default 120; 30 with --generated)")
    registry.add_options(parser, {"mutants"})  # --json, --junit-xml, --stryker, --html (kill matrix), --csv, ...
    parser.add_argument("--no-self-check", action="store_true", help="skip the runner's self check")
    parser.add_argument("--first-kill", action="store_true",
                        help="catalogue: stop each mutant at its first killing test, expected killers first (the same "
                             "verdicts; the kill matrix holds only what ran)")
    parser.add_argument("--generated", action="store_true", help="generated mutants instead of the catalogue")
    parser.add_argument("--operators", metavar="OPS", type=names,
                        help="--generated: operator families or names, comma-separated")
    parser.add_argument("--module", metavar="MODS", type=names,
                        help="--generated: reference modules (e.g. parser,schema)")
    parser.add_argument("--sample", type=positive_count, default=None, metavar="N",
                        help="--generated: N mutants (default all)")
    parser.add_argument("--seed", type=seed, default=None, help="--generated: the sample's seed (default 1)")
    parser.add_argument("--no-deep", action="store_true",
                        help="--generated: the default tier only (no --deep --strict pass)")
    parser.add_argument("--every-test", action="store_true",
                        help="--generated: every catalogue test on every mutant (no coverage filter, no stop at the "
                             "first killing test)")
    parser.add_argument("--no-infection", action="store_true",
                        help="--generated: no infection map (harness.mutants.infection): every covering test runs, "
                             "no mutant is called equivalent for computing the reference's values everywhere")
    parser.add_argument("--coverage-file", metavar="FILE", type=output_file, default=None,
                        help="--generated: where the coverage per catalogue test is kept (default: beside --state, "
                             "else the user's cache folder)")
    parser.add_argument("--state", metavar="FILE", type=output_file, default=None,
                        help="append each mutant's result to FILE as it finishes (see --resume)")
    parser.add_argument("--resume", action="store_true",
                        help="with --state: keep the results FILE holds (same options) and run only the rest")
    parser.add_argument("--merge", metavar="STATE", nargs="+", type=Path, default=None,
                        help="--generated: merge the --state files of one plan run on different Pythons into one "
                             "report (harness.mutants.merge); runs nothing")
    add_scheduler(parser)
    modes = parser.add_argument_group("developer measures (harness.commands.mutants_modes)")
    modes.add_argument("--stability", action="store_true",
                       help="seed stability: each mutant's expected killers under --seeds run seeds (--only, "
                            "--generated, --sample, --seed, --tests, --jobs, --timeout, --json)")
    modes.add_argument("--seeds", metavar="N", type=positive_count, default=None,
                       help="--stability: how many run seeds (default 20)")
    modes.add_argument("--tests", metavar="LIST", type=names, default=None,
                       help="--stability: count kills by these catalogue tests instead of the expected killers")
    modes.add_argument("--tools", action="store_true",
                       help="generated mutants of oracles/tools against the tools golden replay (--module, "
                            "--sample, --seed, --jobs, --timeout, --json, --md, --html)")


GENERATED_ONLY = ("operators", "module", "sample", "seed", "coverage_file")
"""Options that only mean something with ``--generated``: given without it, a usage error
(they were silently ignored: ``--sample 5`` ran the whole catalogue)."""


def mutants_modes_only(args) -> list[str]:
    """The options given that only ``--stability`` reads."""
    return [name for name in ("seeds", "tests") if getattr(args, name, None) is not None]


def _select(args, stdout, stderr):
    """(mutants, lookup or None, GeneratedOptions or None) for the chosen mode, or an exit code."""
    from harness.mutants.catalogue import BY_ID, MUTANTS, resolve
    from harness.mutants.runner import GeneratedOptions

    stray = [f"--{name}" for name in GENERATED_ONLY if getattr(args, name) is not None]
    if args.every_test and not args.generated:
        stray.append("--every-test")
    if args.no_infection and not args.generated:
        stray.append("--no-infection")
    if args.first_kill and args.generated:
        print("constrain-harness mutants: error: --first-kill is the catalogue's: --generated stops at the first "
              "kill already (--every-test turns that off)", file=stderr)
        return int(ExitCode.USAGE)
    if args.resume and args.state is None:
        print("constrain-harness mutants: error: --resume needs --state FILE (the results to keep)", file=stderr)
        return int(ExitCode.USAGE)
    if stray and not args.generated:
        print(f"constrain-harness mutants: error: {', '.join(stray)} need --generated (ignored without it)",
              file=stderr)
        return int(ExitCode.USAGE)
    if args.generated:
        from harness.mutants import generation

        seed_value = 1 if args.seed is None else args.seed

        try:
            sites = generation.enumerate_sites(modules=args.module, operators=args.operators)
            if args.only:
                sites = generation.only(sites, args.only)
            mutants, dropped = generation.pick(sites, args.sample, seed_value, jobs=args.jobs)
        except ValueError as exc:
            print(f"mutants: {exc}", file=stderr)
            return int(ExitCode.USAGE)
        print(f"generated: {len(sites)} sites, {len(mutants)} mutants kept (seed {seed_value}); dropped: "
              + ", ".join(f"{n} {why}" for why, n in dropped.items()), file=stdout, flush=True)
        lookup = {m.id: m for m in mutants}
        return mutants, lookup, GeneratedOptions(deep=not args.no_deep, first_kill=not args.every_test)
    mutants = list(MUTANTS)
    if args.only:
        wanted = list(dict.fromkeys(resolve(x) for x in args.only))
        unknown = [x for x in wanted if x not in BY_ID]
        if unknown:
            print(f"mutants: unknown id(s) {', '.join(unknown)}; known: {', '.join(BY_ID)}", file=stderr)
            return int(ExitCode.USAGE)
        mutants = [BY_ID[x] for x in wanted]
    return mutants, None, None


def run(args, stdout, stderr) -> int:
    from harness.mutants.process_cpu import RunCpu

    if getattr(args, "stability", False) or getattr(args, "tools", False):
        from harness.commands import mutants_modes

        return mutants_modes.run(args, stdout, stderr)
    stray = [f"--{name}" for name in mutants_modes_only(args)]
    if stray:
        print(f"constrain-harness mutants: error: {', '.join(stray)} need --stability", file=stderr)
        return int(ExitCode.USAGE)

    with _ended_cleanly_by_sigterm():
        meter = RunCpu()   # before the first process of the run: every candidate logs its CPU for it
        try:
            return _run(args, stdout, stderr, meter)
        finally:
            meter.close()


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""What ends a run from outside (a job's time limit, a closed terminal): the run ends as on an
error, through its own clean-up (its processes stopped, its temporary files removed), with the
status a shell gives a process the signal ended (128 + the signal's number)."""


@contextlib.contextmanager
def _ended_cleanly_by_sigterm():
    """While the run goes, ``ENDING_SIGNALS`` raise ``SystemExit`` in the verb's own process (by
    default they end it at once, leaving the run's temporary folders in ``/tmp``). A process
    forked from it that meets one ends by the signal as before. Nothing changes when the verb
    is not in the main thread (a test calling ``main`` from a thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def end(number, _frame):
        if os.getpid() != owner:
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
            return
        signal.signal(number, signal.SIG_IGN)   # one clean-up, however many signals follow
        print(f"constrain-harness mutants: ended by {signal.Signals(number).name}: cleaning up", file=sys.stderr)
        raise SystemExit(128 + number)

    previous = {number: signal.signal(number, end) for number in ENDING_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _run(args, stdout, stderr, meter) -> int:
    from harness.mutants import course, report
    from harness.mutants.runner import DEFAULT_TIMEOUT, GENERATED_TIMEOUT, Outcome, run_all, self_check

    if args.merge is not None:
        return _merge(args, stdout, stderr)
    timeout = args.timeout or (GENERATED_TIMEOUT if args.generated else DEFAULT_TIMEOUT)
    chosen = _select(args, stdout, stderr)
    if isinstance(chosen, int):
        return chosen
    mutants, lookup, generated = chosen
    wall = time.monotonic()
    if not args.no_self_check:
        print("self check: clean reference and forced failure ...", file=stdout, flush=True)
        with tempfile.TemporaryDirectory(prefix="constrain-selfcheck-") as folder:
            problems = self_check(Path(folder), timeout, jobs=args.jobs)
        if problems:
            for p in problems:
                print(f"self check FAILED: {p}", file=stderr)
            return int(ExitCode.FAILED)
        print("self check: ok", file=stdout, flush=True)

    def progress(result, done, total):
        tier = f":{result.tier}" if result.tier else ""
        print(f"{progress_bar(done, total, 20, ' ')} {done:>3}/{total} {result.id} {result.outcome.value}{tier}"
              f" ({', '.join(result.killed_by)[:60] or '-'}) {result.seconds:.1f}s", file=stdout, flush=True)

    try:
        scheduler = executor.scheduler_from(args.scheduler)
        state = _open_state(args, mutants, generated, timeout)
        if generated is not None and not args.every_test:
            generated = dataclasses.replace(generated, coverage=_coverage(args, timeout, stdout))
            if not args.no_infection:
                generated = dataclasses.replace(generated, infection=_infection(args, timeout, stdout, len(mutants)))
        if state is not None and state.records:
            print(f"--resume: {len(state.records)} result(s) kept from {state.path}", file=stdout, flush=True)
        stats = executor.RunStats()
        results = run_all(mutants, jobs=args.jobs, timeout=timeout, progress=progress, generated=generated,
                          scheduler=scheduler, state=state, stats=stats, first_kill=args.first_kill)
    except ValueError as exc:   # a state or scheduler that cannot be used (SchedulerProblem too)
        print(f"mutants: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    except executor.WorkerLost as exc:   # Dask gave up on a task: what finished is in --state
        print(f"mutants: {exc}" + (f"; rerun with --resume to keep what finished ({args.state})" if args.state
                                   else ""), file=stderr)
        return int(ExitCode.FAILED)
    if stats.retried:
        print(f"{len(stats.retried)} mutant(s) run again after a Dask worker was lost: {', '.join(stats.retried)}",
              file=stdout)
    killed = report.to_report(results, lookup) if lookup is None else course.with_course_pages(results, lookup)
    print(killed.terminal, file=stdout)
    if lookup is not None:
        print("\n" + report.rates_table(results, lookup), file=stdout)
    print("\n" + cpu_line(time.monotonic() - wall, *meter.seconds(), jobs=args.jobs, scheduler=scheduler),
          file=stdout)
    unwritten = not write_requested(args, killed, stderr, prefix="mutants: ")
    others_only = [r.id for r in results if r.outcome is Outcome.KILLED and not r.by_expected and r.expected]
    if others_only:
        print(f"killed only by tests other than the expected ones: {', '.join(others_only)}", file=stdout)
    ok = (Outcome.KILLED, Outcome.TIMEOUT, Outcome.EQUIVALENT) if lookup is not None else (Outcome.KILLED,)
    bad = [r for r in results if r.outcome not in ok]
    if unwritten and not bad:
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    return int(ExitCode.FAILED if bad else ExitCode.OK)


MERGE_ALONE = ("only", "operators", "module", "sample", "seed", "state", "coverage_file", "scheduler", "timeout")
"""Options ``--merge`` refuses: it runs nothing, and the plan is the files'."""


def _merge(args, stdout, stderr) -> int:
    """``--generated --merge A.jsonl B.jsonl``: one report of a plan's runs on several Pythons."""
    from harness.mutants import merge, report
    from harness.mutants.runner import Outcome

    given = [f"--{name.replace('_', '-')}" for name in MERGE_ALONE if getattr(args, name, None) is not None]
    given += [f"--{flag.replace('_', '-')}" for flag in ("resume", "every_test", "no_deep", "first_kill")
              if getattr(args, flag, False)]
    if not args.generated or given:
        why = "needs --generated" if not args.generated else f"runs nothing: {', '.join(given)} mean nothing with it"
        print(f"constrain-harness mutants: error: --merge {why}", file=stderr)
        return int(ExitCode.USAGE)
    try:
        runs = merge.read_runs(args.merge)
        merged = merge.merge(runs)
        lookup = merge.lookup_for(runs, jobs=args.jobs)
    except ValueError as exc:
        print(f"mutants: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    killed = merge.to_report(runs, merged, lookup)
    results = [m.result for m in merged.values()]
    print(killed.terminal, file=stdout)
    print("\n" + report.rates_table(results, lookup), file=stdout)
    unwritten = not write_requested(args, killed, stderr, prefix="mutants: ")
    bad = [r for r in results if r.outcome not in (Outcome.KILLED, Outcome.TIMEOUT, Outcome.EQUIVALENT)]
    if unwritten and not bad:
        return int(ExitCode.USAGE)
    return int(ExitCode.FAILED if bad else ExitCode.OK)


def _open_state(args, mutants, generated, timeout):
    """The run's ``MutantState`` (``--state``), or None."""
    from harness.mutants.state import MutantState

    if args.state is None:
        return None
    options = {"mode": "generated" if generated is not None else "catalogue", "timeout": timeout,
               "mutants": [m.id for m in mutants], "deep": getattr(generated, "deep", None),
               "every_test": bool(args.every_test), **({"first_kill": True} if args.first_kill else {})}
    if generated is not None:   # the plan --only chose from: what --merge checks the runs' ids against
        options["plan"] = {"module": sorted(args.module or ()), "operators": sorted(args.operators or ()),
                           "sample": args.sample, "seed": 1 if args.seed is None else args.seed}
    return MutantState.open(args.state, options, resume=args.resume)


INFECTION_RECORD_AT = 200
"""A run of at least this many mutants records the infection map when none is stored (~140 CPU s
once per reference version, about what ~20 equivalents by no infection save); a smaller run uses a
stored map, or none (the map changes no verdict, only the cost)."""


def _infection(args, timeout, stdout, count: int):
    """The infection map for this reference (``harness.mutants.infection``), beside the coverage map:
    stored, or recorded now (once) for a run of ``INFECTION_RECORD_AT`` mutants or more; else None."""
    from harness.mutants import coverage, infection

    path = infection.default_path(args.coverage_file or coverage.default_path(args.state))
    found = infection.InfectionMap.load(path)
    if found is not None:
        print(f"infections per catalogue test and item: {path}", file=stdout, flush=True)
        return found
    if count < INFECTION_RECORD_AT:
        print(f"infections per catalogue test and item: none stored at {path}, and {count} mutant(s) are too few to "
              f"record them (from {INFECTION_RECORD_AT}): every covering test runs", file=stdout, flush=True)
        return None
    print(f"infections per catalogue test and item: recording them (once) into {path} ...", file=stdout, flush=True)
    return infection.load_or_record(path, timeout, args.jobs)


def _coverage(args, timeout, stdout):
    """The coverage per catalogue test for this reference: stored, or recorded now (once)."""
    from harness.mutants import coverage

    path = args.coverage_file or coverage.default_path(args.state)
    found = coverage.CoverageMap.load(path)
    if found is not None:
        print(f"coverage per catalogue test: {path} (reference {found.digest[:12]})", file=stdout, flush=True)
        if found.evidence is None:
            print("the evidence's lines per item: recording them (once) ...", file=stdout, flush=True)
        return coverage.with_evidence(found, path, timeout)
    print(f"coverage per catalogue test: recording it (one run per test) into {path} ...", file=stdout, flush=True)
    return coverage.load_or_record(path, timeout, args.jobs)


def cpu_line(wall: float, graders: float, candidates: float, *, jobs: int, scheduler: str | None) -> str:
    """The run's closing line: wall seconds, and the CPU seconds of the mutant processes on this
    machine, graders and their confined candidates (``harness.mutants.process_cpu``), e.g.
    ``wall 116 s, CPU 29.4 s in mutant processes (17.2 s graders + 12.2 s their confined candidates; ...)``
    (tenths: a one-mutant run's candidates may take less than a second)."""
    where = "; on this machine only: the Dask workers' CPU is each record's cpu_seconds" if scheduler else ""
    return (f"wall {wall:.0f} s, CPU {graders + candidates:.1f} s in mutant processes ({graders:.1f} s graders + "
            f"{candidates:.1f} s their confined candidates{where}; jobs {jobs}; the machine may be shared: "
            f"CPU / cores is the unshared estimate)")
