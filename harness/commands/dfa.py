"""Print the canonical DFA of a pattern or of a JSON schema, one line per state.

    constrain-harness dfa '(cat|car|dog)s?'
    constrain-harness dfa --schema tool.json          # the schema's regex, then its DFA
    constrain-harness dfa '[0-9]+' --dot | dot -Tsvg > dfa.svg

A pattern outside the subset prints the error with a caret under the offending
character and exits 2.
"""

from __future__ import annotations

from harness.commands.args import InputError, one_line_errors, read_json_file
from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    one_line_errors(parser)
    parser.add_argument("pattern", nargs="?", help="a pattern of the regex subset")
    parser.add_argument("--schema", metavar="FILE", help="a JSON schema file (of the subset) instead of a pattern")
    parser.add_argument("--dot", action="store_true", help="print Graphviz DOT instead of the table")


def run(args, stdout, stderr) -> int:
    from harness.commands.dfa_dump import dump, to_dot
    from oracles.automaton import json_schema_to_regex, regex_to_dfa

    if (args.pattern is None) == (args.schema is None):
        print("dfa: give exactly one of PATTERN or --schema FILE", file=stderr)
        return int(ExitCode.USAGE)
    try:
        if args.schema is not None:
            schema = read_json_file(args.schema)
            pattern = json_schema_to_regex(schema)
            if not args.dot:
                print(f"regex: {pattern}", file=stdout)
        else:
            pattern = args.pattern
        dfa = regex_to_dfa(pattern)
    except InputError as exc:
        print(f"dfa: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    except (ValueError, TypeError) as exc:
        print(f"dfa: {type(exc).__name__}: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    print(to_dot(dfa) if args.dot else dump(dfa), file=stdout)
    return int(ExitCode.OK)
