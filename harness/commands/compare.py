"""Compare our pipeline with production engines on the shared subset, and explain
every difference.

    constrain-harness compare                                   # every installed peer
    constrain-harness compare --peers outlines-core,llguidance --md peers.md --json peers.json
    constrain-harness compare --regexes 200 --schemas 100 --seed 7
    constrain-harness compare --regex '[a-z]+@[a-z]+\\.com' --schema report.json --fail-on-unexplained

The input you hand it (``--regex PATTERN``, ``--schema FILE``, each repeatable, and
``--regexes-from FILE``, one pattern a line) replaces the generated cases: each is asked on
random members of our DFA (where ours compiles it), their one-byte edits and boundary
strings (metacharacters, controls, DEL, multi-byte and invalid UTF-8), judged by ours
and ``re`` (patterns) or ``jsonschema`` (schemas); where ours refuses it, by ``re`` on the
text or ``jsonschema`` alone (``harness.peers.given``).

Fixed cases and Hypothesis-generated ones (seeded: the same cases every run) are
asked of ours and of each peer: does a document belong to the language, which
tokens are allowed after a prefix. Each disagreement is classified as a known
design difference (unicode-vs-bytes, leftmost-first, whitespace, extra-keys,
canonical-tokens, empty-token) or as unexplained, and the smallest example of each
class is shrunk and shown. The Markdown report goes to stdout unless --md is given;
``--junit-xml``, ``--html``, ``--csv`` (``harness.report``) give a row per peer, failed
when one of its disagreements is unexplained.

Exit code: 0; 1 with --fail-on-unexplained when some disagreement is unexplained or a peer
has a finding; 1 when nothing was checked (every case skipped);
2 for an unknown peer, or when no requested peer is installed.
"""

from __future__ import annotations

from argparse import ArgumentTypeError

from harness.commands.args import (
    count,
    input_file,
    one_line_errors,
    output_file,
    requested_reports,
    seed,
    write_requested,
)
from harness.exitcodes import ExitCode
from harness.report import registry
from harness.report.model import Report, Row


def add_arguments(parser) -> None:
    from harness.peers import PEER_NAMES

    one_line_errors(parser)
    parser.add_argument("--peers", default=",".join(PEER_NAMES),
                        help=f"comma-separated peers (default: all of {', '.join(PEER_NAMES)})")
    # --json, --md (default: the Markdown goes to stdout), --junit-xml, --html, --csv: a row per peer, failed
    # when it has an unexplained disagreement; the paths are checked below, before the work
    registry.add_options(parser, {"tests"}, checked=False)
    parser.add_argument("--regexes", type=count, default=60, metavar="N",
                        help="generated patterns (default 60; each gives several cases)")
    parser.add_argument("--schemas", type=count, default=40, metavar="N",
                        help="generated schemas (default 40)")
    parser.add_argument("--seed", type=seed, default=0, help="Hypothesis seed (default 0)")
    parser.add_argument("--shrink-limit", type=count, default=3, metavar="K",
                        help="shrink the K smallest disagreements of each peer and class (default 3)")
    parser.add_argument("--fail-on-unexplained", action="store_true",
                        help="exit 1 when any disagreement is unexplained or a peer has a finding")
    parser.add_argument("--peer-python", action="append", default=[], metavar="PEER=PYTHON",
                        help="run PEER's child with this interpreter (a venv holding another release, e.g. "
                             "xgrammar=/opt/xgr/bin/python; repeatable)")
    parser.add_argument("--regex", action="append", default=[], metavar="PATTERN",
                        help="compare on this pattern (repeatable; replaces the generated cases)")
    parser.add_argument("--schema", action="append", default=[], metavar="F", type=input_file,
                        help="compare on the JSON schema in FILE (repeatable)")
    parser.add_argument("--regexes-from", action="append", default=[], metavar="F", type=input_file,
                        help="compare on every pattern of FILE, one a line")


def run(args, stdout, stderr) -> int:
    from harness.peers import PEERS, available_peers
    from harness.peers.cases import fixed_cases, generated_cases
    from harness.peers.compare import compare, report_markdown

    names = [n.strip() for n in args.peers.split(",") if n.strip()]
    unknown = [n for n in names if n not in PEERS or n == "ours"]
    if unknown or not names:
        print(f"unknown peer(s): {', '.join(unknown) or '(none given)'}; known: "
              f"{', '.join(n for n in PEERS if n != 'ours')}", file=stderr)
        return int(ExitCode.USAGE)
    if min(args.regexes, args.schemas, args.shrink_limit) < 0:
        print("--regexes, --schemas and --shrink-limit must be >= 0", file=stderr)
        return int(ExitCode.USAGE)
    for path in requested_reports(args).values():  # checked before the work, reported on this verb's stderr
        try:
            output_file(str(path))
        except ArgumentTypeError as exc:
            print(f"cannot write the report: {exc}", file=stderr)
            return int(ExitCode.USAGE)
    try:
        patterns, schemas = _given(args)
    except ValueError as exc:
        print(f"compare: error: {' '.join(str(exc).split())}", file=stderr)
        return int(ExitCode.USAGE)
    pythons = {}
    for item in args.peer_python:
        peer, _, python = item.partition("=")
        if peer not in names or not python:
            print(f"--peer-python {item!r}: expected PEER=PYTHON with PEER one of {', '.join(names)}", file=stderr)
            return int(ExitCode.USAGE)
        pythons[peer] = python
    peers, missing = available_peers(names, pythons=pythons)
    for name, reason in missing.items():
        print(f"skipping {name}: {reason}", file=stderr)
    if not peers:
        print("no requested peer is installed: pip install 'constrain-harness[peers]'", file=stderr)
        return int(ExitCode.USAGE)

    progress = lambda msg: print(msg, file=stderr, flush=True)  # noqa: E731
    if patterns or schemas:
        from harness.peers.given import given_cases
        fixed, generated = given_cases(patterns, schemas, args.seed), []
        progress(f"given: {len(patterns)} pattern(s), {len(schemas)} schema(s): {len(fixed)} cases, seed {args.seed}")
    else:
        fixed = fixed_cases()
        progress(f"generating cases: {args.regexes} patterns, {args.schemas} schemas, seed {args.seed}")
        generated = generated_cases(args.regexes, args.schemas, args.seed)
    cases = fixed + generated
    progress(f"comparing {len(cases)} cases with {', '.join(p.name for p in peers)}")
    results = compare(peers, cases, shrink_limit=args.shrink_limit, progress=progress)

    given = bool(patterns or schemas)
    meta = {"cases": len(cases), "fixed": 0 if given else len(fixed), "generated": len(generated),
            "given": len(fixed) if given else 0, "seed": args.seed, "regexes": args.regexes, "schemas": args.schemas,
            "given_patterns": patterns, "given_schemas": len(schemas)}
    compared = to_report(results, missing, meta)
    if not args.md:
        stdout.write(report_markdown(results, missing, meta))
    if not write_requested(args, compared, stderr, prefix="compare: ", announce=stderr):
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    unexplained = sum(r.counts.get("unexplained", 0) for r in results)
    if args.md:
        print(f"{len(cases)} cases, {sum(r.checks for r in results)} checks, "
              f"{sum(sum(r.counts.values()) for r in results)} disagreements, {unexplained} unexplained",
              file=stdout)
    findings = sum(len(r.findings) for r in results)
    if findings:
        print(f"{findings} finding(s): a peer crashed, hung, ran past a limit, raised or failed on valid input",
              file=stderr)
    if (unexplained or findings) and args.fail_on_unexplained:
        return int(ExitCode.FAILED)
    if not findings and not any(r.checks for r in results):
        print("compare: FAILED: nothing was checked: every case was skipped (see the skipped column)", file=stderr)
        return int(ExitCode.FAILED)
    return int(ExitCode.OK)


def _given(args) -> tuple[list[str], list]:
    """The patterns and schemas the user handed (ValueError naming a bad one)."""
    from harness.peers.given import check_pattern, read_regexes, read_schema

    patterns = [check_pattern(p) for p in args.regex]
    for path in args.regexes_from:
        patterns += read_regexes(path)
    return patterns, [read_schema(path) for path in args.schema]


def to_report(results, missing: dict[str, str], meta: dict) -> Report:
    """The comparison as ``harness.report``'s model (kind ``tests``): a row per peer,
    passed when every disagreement has a known design difference as its class, failed
    when one is unexplained, skipped when the peer is not installed. The JSON and the
    Markdown of ``harness.peers.compare`` are the native renderers."""
    from harness.peers.classify import UNEXPLAINED
    from harness.peers.compare import dumps, report_json, report_markdown

    rows = [_peer_row(r, UNEXPLAINED) for r in results]
    rows += [Row(name, "skipped", "unavailable", reason, group="peers") for name, reason in sorted(missing.items())]
    failed = any(row.status == "failed" for row in rows)
    return Report("compare", f"constrain-harness compare: {meta.get('cases')} cases, seed {meta.get('seed')}",
                  frozenset({"tests"}), tuple(rows), "unexplained disagreements" if failed else "explained",
                  0, 0.0, native={"json": lambda: dumps(report_json(results, missing, meta)),
                                  "markdown": lambda: report_markdown(results, missing, meta)})


def _peer_row(result, unexplained: str) -> Row:
    counts = ", ".join(f"{cls} {n}" for cls, n in sorted(result.counts.items())) or "no disagreements"
    why = f"{result.checks} checks, {result.agreements} agree; disagreements: {counts}"
    detail = "\n".join(f"{cls}: {d.to_json()}" for cls, d in result.examples.items())
    status = "failed" if result.counts.get(unexplained) else "passed"
    return Row(result.name, status, status if status == "passed" else unexplained, why, detail, group="peers")
