"""Check every pattern of the subset up to a size with the reference, the derivative oracle and re.

    constrain-harness sweep                                  # size <= 4 over {a,b}, strings up to 5
    constrain-harness sweep --max-size 7 --max-len 6 --jobs 2
    constrain-harness sweep --max-size 4 --classes --dot --escapes --empty --ops 'concat,|,*,+,?,{2}'
    constrain-harness sweep --schemas --max-depth 2          # the small schema grammar, jsonschema judging
    constrain-harness sweep --results sweep.jsonl [--resume] --json sweep.json --md sweep.md

Patterns are enumerated by ``harness.differential.sweep.enumerate`` (size = atoms + operators,
deduplicated by syntactic canonical form) and each is checked by
``harness.differential.sweep.patterns`` (outcome, canonical tables, every string up to ``--max-len``,
masks over a small vocabulary; ``--peers`` adds the peers' answers on those strings and
the widened ones (boundary bytes), listed, failing the run only with ``--fail-on-difference``);
``--schemas`` checks the schema grammar of ``harness.differential.sweep.schemas`` (``--peers``: each
peer against jsonschema on its instances). Work goes
through ``harness.fanout.executor`` in chunks (``--jobs``, ``--scheduler``); ``--results F``
records every finished chunk, ``--resume`` continues from it. Prints the counts per size,
the items per second and every disagreement with its minimal witness; exits 1 when there
is one, 0 when everything agrees.
"""

from __future__ import annotations

import argparse

from harness.commands.args import count, jobs, names, one_line_errors, output_file, seed, write_requested
from harness.exitcodes import ExitCode
from harness.report import registry

__all__ = ["add_arguments", "run"]


def _alphabet(text: str) -> bytes:
    try:
        data = text.encode("ascii")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"--alphabet {text!r}: ASCII only") from None
    from harness.differential.sweep.enumerate import Grammar
    try:
        Grammar(alphabet=data)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return data


def _operators(text: str) -> list[str]:
    """Comma-separated operators; a comma inside braces belongs to the operator (``{0,2}``)."""
    import re
    items = [x.strip() for x in re.findall(r"\{[^}]*\}|[^,]+", text) if x.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"{text!r} names no operator")
    return items


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("--max-size", type=count, default=4, help="largest pattern size, atoms + operators (4)")
    parser.add_argument("--max-len", type=count, default=5, help="longest string checked (5; at most 10)")
    parser.add_argument("--alphabet", type=_alphabet, default=b"ab", help="the literal bytes (ab)")
    parser.add_argument("--classes", action="store_true", help="atoms: brackets over the alphabet, negated too")
    parser.add_argument("--dot", action="store_true", help="atoms: '.'")
    parser.add_argument("--escapes", action="store_true", help="atoms: \\d \\w \\s \\D \\W \\S \\.")
    parser.add_argument("--empty", action="store_true", help="atoms: the empty pattern")
    parser.add_argument("--ops", type=_operators, default=None,
                        help="operators, comma-separated, of: concat | * + ? {2} {0,2} {1,} () "
                             "(default concat,|,*,+,?)")
    parser.add_argument("--schemas", action="store_true", help="sweep the small schema grammar instead")
    parser.add_argument("--max-depth", type=count, default=1, help="--schemas: nesting depth (1; at most 3)")
    parser.add_argument("--seed", type=seed, default=0, help="--schemas: the random walks' seed (0)")
    parser.add_argument("--peers", type=names, default=None,
                        help="also ask these peers (e.g. outlines-core,llguidance); absent ones are skipped")
    parser.add_argument("--jobs", type=jobs, default=1, help="tasks at once, each in a process of its own past 1 (1)")
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address (default: local)")
    parser.add_argument("--results", type=output_file, default=None, metavar="F",
                        help="record every finished chunk in F (JSON lines)")
    parser.add_argument("--resume", action="store_true", help="continue from --results F")
    parser.add_argument("--fail-on-difference", action="store_true",
                        help="exit 1 when a peer differs (or crashes, hangs, fails on a valid input)")
    registry.add_options(parser, {"tests"})


def run(args, stdout, stderr) -> int:
    from harness.differential.sweep import report as sweep_report
    from harness.differential.sweep.enumerate import DEFAULT_OPERATORS, Grammar
    from harness.differential.sweep.runner import SweepOptions, run_sweep
    from harness.fanout.executor import scheduler_from
    from harness.fanout.results import ResultsFile

    try:
        grammar = Grammar(alphabet=args.alphabet, operators=tuple(args.ops or DEFAULT_OPERATORS),
                          classes=args.classes, dot=args.dot, escapes=args.escapes, empty=args.empty)
        options = SweepOptions(grammar, args.max_size, args.max_len, args.schemas, args.max_depth, args.seed,
                               tuple(args.peers or ()))
        if options.schemas:
            from harness.differential.sweep.schemas import schemas_by_depth
            schemas_by_depth(options.max_depth)  # refuses a depth out of range before any work
        else:
            from harness.differential.sweep.enumerate import patterns_by_size
            patterns_by_size(grammar, options.max_size)
        results = ResultsFile.open(args.results, "sweep", options.as_dict(), resume=args.resume)
        if args.peers:
            from harness.peers import available_peers
            _loaded, missing = available_peers(args.peers)
            for name, reason in missing.items():
                print(f"peer {name} skipped: {reason}", file=stderr)
        result = run_sweep(options, jobs=args.jobs, scheduler=scheduler_from(args.scheduler), results=results,
                           progress_out=stderr)
    except ValueError as exc:
        print(f"constrain-harness sweep: error: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    report = sweep_report.to_report(result)
    differences = [d for level in result.levels.values() for d in level.peer_differences]
    if args.fail_on_difference and differences:
        print(f"sweep: FAILED: {len(differences)} peer difference(s) (--fail-on-difference)", file=stdout)
    print(report.terminal, file=stdout)
    if not write_requested(args, report, stderr, prefix="constrain-harness sweep: "):
        return int(ExitCode.USAGE)
    if args.fail_on_difference and differences:
        return int(ExitCode.FAILED)
    return report.exit_code
