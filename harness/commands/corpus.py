"""Check a collection of real schemas: compiled or refused by name, sound, complete, and the peers.

    constrain-harness corpus tests/corpus                      # a folder of MaskBench records
    constrain-harness corpus schemas.jsonl --peers llguidance,outlines-core --jobs 2
    constrain-harness corpus DIR --results c.jsonl [--resume] --json c.json --md c.md --html c.html

Each schema (``harness.differential.corpus.check``): bounded (16 KiB, 4 CPU s of compilation), compiled
or refused with a named error (a crash is a finding), ``--walks`` seeded random members of
its DFA validated by jsonschema (soundness), the record's instances re-serialised in the
spec's reading and fed to the DFA (completeness); ``--peers`` the same schemas through
llguidance and outlines-core (absent peers are reported and skipped). Prints coverage by
source, refusal reasons ranked, soundness, completeness, timings, peers and the slowest
schemas. Exits 1 when something was found (a crash, an unsound walk, a valid instance of
the reading rejected, an invalid one accepted), when an input could not be read or nothing
was checked (said first, never a silent pass), and with ``--fail-on-difference`` when a
peer differs from ours or fails; 0 otherwise. A JSON-lines file is read record by record
(16 MiB a record, any size in all).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.args import (
    count,
    jobs,
    names,
    one_line_errors,
    output_file,
    positive_count,
    seed,
    write_requested,
)
from harness.exitcodes import ExitCode
from harness.report import registry

__all__ = ["add_arguments", "run"]


MAX_WALKS = 10_000
"""``--walks`` above this is refused (each walk is validated by jsonschema)."""


def _walks(text: str) -> int:
    n = count(text)
    if n > MAX_WALKS:
        raise argparse.ArgumentTypeError(f"--walks {n} is over MAX_WALKS={MAX_WALKS}")
    return n


def _collection(text: str) -> Path:
    path = Path(text)
    if not (path.is_dir() or path.is_file()):
        raise argparse.ArgumentTypeError(f"{text} is neither a folder nor a file" + ("" if path.exists()
                                                                                    else " (it does not exist)"))
    return path


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("path", type=_collection, metavar="PATH", help="a folder of schema files, or a .jsonl file")
    parser.add_argument("--walks", type=_walks, default=20, help="random walks per compiled schema (20)")
    parser.add_argument("--seed", type=seed, default=0, help="the walks' seed (0)")
    parser.add_argument("--peers", type=names, default=None, help="peers to run too, e.g. llguidance,outlines-core")
    parser.add_argument("--limit", type=positive_count, default=None, help="only the first N schemas")
    parser.add_argument("--jobs", type=jobs, default=1, help="schemas at once, each in a process of its own past 1 (1)")
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address (default: local)")
    parser.add_argument("--results", type=output_file, default=None, metavar="F",
                        help="record every finished schema in F (JSON lines)")
    parser.add_argument("--resume", action="store_true", help="continue from --results F")
    parser.add_argument("--fail-on-difference", action="store_true",
                        help="exit 1 when a peer differs from ours or crashes, hangs, runs past a limit or fails "
                             "on a valid schema")
    registry.add_options(parser, {"tests"})


def run(args, stdout, stderr) -> int:
    from harness.differential.corpus import report as corpus_report
    from harness.differential.corpus.runner import run_corpus
    from harness.fanout.executor import scheduler_from
    from harness.fanout.results import ResultsFile

    peers = tuple(args.peers or ())
    # how each schema is checked (--limit is not: a resumed run may take more or fewer schemas)
    options = {"path": str(args.path.resolve()), "seed": args.seed, "walks": args.walks, "peers": list(peers)}
    try:
        if peers:
            from harness.peers import available_peers
            _loaded, missing = available_peers(list(peers))
            for name, reason in missing.items():
                print(f"peer {name} skipped: {reason}", file=stderr)
        results = ResultsFile.open(args.results, "corpus", options, resume=args.resume)
        result = run_corpus(args.path, seed=args.seed, walks=args.walks, peers=peers, jobs=args.jobs,
                            scheduler=scheduler_from(args.scheduler), results=results, progress_out=stderr,
                            limit=args.limit, fail_on_difference=args.fail_on_difference)
    except ValueError as exc:
        print(f"constrain-harness corpus: error: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    report = corpus_report.to_report(result)
    print(report.terminal, file=stdout)
    if not write_requested(args, report, stderr, prefix="constrain-harness corpus: "):
        return int(ExitCode.USAGE)
    return report.exit_code
