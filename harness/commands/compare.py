"""Compare our pipeline with production engines on the shared subset, and explain
every difference.

    constrain-harness compare                                   # every installed peer
    constrain-harness compare --peers outlines-core,llguidance --md peers.md --json peers.json
    constrain-harness compare --regexes 200 --schemas 100 --seed 7

Fixed cases and Hypothesis-generated ones (seeded: the same cases every run) are
asked of ours and of each peer: does a document belong to the language, which
tokens are allowed after a prefix. Each disagreement is classified as a known
design difference (unicode-vs-bytes, leftmost-first, whitespace, extra-keys,
canonical-tokens, empty-token) or as unexplained, and the smallest example of each
class is shrunk and shown. The Markdown report goes to stdout unless --md is given.

Exit code: 0; 1 with --fail-on-unexplained when some disagreement is unexplained;
2 for an unknown peer, or when no requested peer is installed.
"""

from __future__ import annotations

from argparse import ArgumentTypeError

from harness.commands.args import count, one_line_errors, output_file, seed, write_text
from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    from harness.peers import PEER_NAMES

    one_line_errors(parser)
    parser.add_argument("--peers", default=",".join(PEER_NAMES),
                        help=f"comma-separated peers (default: all of {', '.join(PEER_NAMES)})")
    parser.add_argument("--json", metavar="F", help="write the JSON report to F")
    parser.add_argument("--md", metavar="F", help="write the Markdown report to F (default: stdout)")
    parser.add_argument("--regexes", type=count, default=60, metavar="N",
                        help="generated patterns (default 60; each gives several cases)")
    parser.add_argument("--schemas", type=count, default=40, metavar="N",
                        help="generated schemas (default 40)")
    parser.add_argument("--seed", type=seed, default=0, help="Hypothesis seed (default 0)")
    parser.add_argument("--shrink-limit", type=count, default=3, metavar="K",
                        help="shrink the K smallest disagreements of each peer and class (default 3)")
    parser.add_argument("--fail-on-unexplained", action="store_true",
                        help="exit 1 when any disagreement is unexplained")


def run(args, stdout, stderr) -> int:
    from harness.peers import PEERS, available_peers
    from harness.peers.cases import fixed_cases, generated_cases
    from harness.peers.compare import compare, dumps, report_json, report_markdown

    names = [n.strip() for n in args.peers.split(",") if n.strip()]
    unknown = [n for n in names if n not in PEERS or n == "ours"]
    if unknown or not names:
        print(f"unknown peer(s): {', '.join(unknown) or '(none given)'}; known: "
              f"{', '.join(n for n in PEERS if n != 'ours')}", file=stderr)
        return int(ExitCode.USAGE)
    if min(args.regexes, args.schemas, args.shrink_limit) < 0:
        print("--regexes, --schemas and --shrink-limit must be >= 0", file=stderr)
        return int(ExitCode.USAGE)
    for path in (args.json, args.md):  # checked before the work, reported on this verb's stderr
        try:
            if path is not None:
                output_file(path)
        except ArgumentTypeError as exc:
            print(f"cannot write the report: {exc}", file=stderr)
            return int(ExitCode.USAGE)
    peers, missing = available_peers(names)
    for name, reason in missing.items():
        print(f"skipping {name}: {reason}", file=stderr)
    if not peers:
        print("no requested peer is installed: pip install 'constrain-harness[peers]'", file=stderr)
        return int(ExitCode.USAGE)

    progress = lambda msg: print(msg, file=stderr, flush=True)  # noqa: E731
    fixed = fixed_cases()
    progress(f"generating cases: {args.regexes} patterns, {args.schemas} schemas, seed {args.seed}")
    generated = generated_cases(args.regexes, args.schemas, args.seed)
    cases = fixed + generated
    progress(f"comparing {len(cases)} cases with {', '.join(p.name for p in peers)}")
    results = compare(peers, cases, shrink_limit=args.shrink_limit, progress=progress)

    meta = {"cases": len(cases), "fixed": len(fixed), "generated": len(generated), "seed": args.seed,
            "regexes": args.regexes, "schemas": args.schemas}
    markdown = report_markdown(results, missing, meta)
    try:
        if args.md:
            _write(args.md, markdown)
            progress(f"wrote {args.md}")
        else:
            stdout.write(markdown)
        if args.json:
            _write(args.json, dumps(report_json(results, missing, meta)))
            progress(f"wrote {args.json}")
    except OSError as exc:
        print(f"cannot write the report: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    unexplained = sum(r.counts.get("unexplained", 0) for r in results)
    if args.md:
        print(f"{len(cases)} cases, {sum(r.checks for r in results)} checks, "
              f"{sum(sum(r.counts.values()) for r in results)} disagreements, {unexplained} unexplained",
              file=stdout)
    if unexplained and args.fail_on_unexplained:
        return int(ExitCode.FAILED)
    return int(ExitCode.OK)


def _write(path, text: str) -> None:
    problem = write_text(path, text)
    if problem is not None:
        raise OSError(problem)
