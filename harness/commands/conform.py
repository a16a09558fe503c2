"""Check a running OpenAI-compatible server against the tool-calling conformance cases.

    constrain-harness conform --base-url http://127.0.0.1:8000/v1
    constrain-harness conform --base-url http://127.0.0.1:8000/v1 --cases tools.call,tools.stream --json c.json

Requests go through the official openai client (once each, no retries; ``--timeout``
seconds each, ``--case-timeout`` seconds for all the requests of a case, responses cut
past ``MAX_RESPONSE_BYTES``). Cases: tools.call, tools.stream, tools.choice,
tools.errors, response_format, tools.cutoff, tools.cutoff_stream, stream.usage
(``harness/server/conform/cases.py`` states every rule). Each failure names the rule, the
request and an excerpt of the response.

Exit code: 0 every case passed; 1 some case failed; 2 bad arguments (a base URL that
is not an http(s) URL, a timeout that is not a finite number of seconds > 0: one line
on stderr, no request sent); 3 some case could not be judged (connection refused,
timeout, a body that is not JSON, a malformed stream, a response over the bound).
"""

from __future__ import annotations

from harness import report
from harness.commands.args import write_requested
from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    from harness.server.conform.cases import CASES
    from harness.server.conform.exchange import DEFAULT_CASE_TIMEOUT, DEFAULT_TIMEOUT

    parser.add_argument("--base-url", required=True, metavar="URL",
                        help="the API root, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default=None, metavar="M", help="model name (default: the first of GET /models)")
    parser.add_argument("--api-key", default=None, metavar="K", help="bearer key (default: a placeholder)")
    parser.add_argument("--cases", default=None, metavar="LIST",
                        help=f"comma-separated cases (default: all of {','.join(CASES)})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds per request (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--case-timeout", type=float, default=DEFAULT_CASE_TIMEOUT, metavar="S",
                        help=f"seconds per case, all its requests (default {DEFAULT_CASE_TIMEOUT:g})")
    report.add_options(parser, {"tests"})  # --json, --junit-xml, --html, --csv, --md


def run(args, stdout, stderr) -> int:
    from harness.server.conform.exchange import check_base_url, check_timeout
    from harness.server.conform.report import to_report
    from harness.server.conform.run import parse_cases, run_conformance

    try:
        cases = parse_cases(args.cases)
    except ValueError as exc:
        print(str(exc), file=stderr)
        return int(ExitCode.USAGE)
    try:
        check_base_url(args.base_url)
        check_timeout("--timeout", args.timeout)
        check_timeout("--case-timeout", args.case_timeout)
    except ValueError as exc:
        print(f"conform: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    try:
        result = run_conformance(args.base_url, cases, model=args.model, api_key=args.api_key,
                                 timeout=args.timeout, case_timeout=args.case_timeout)
    except (RuntimeError, ValueError) as exc:  # the openai client is not installed; an argument it refuses
        print(f"conform: {' '.join(str(exc).split())}", file=stderr)
        return int(ExitCode.USAGE)
    conformed = to_report(result)
    print(conformed.terminal, file=stdout)
    if not write_requested(args, conformed, stderr) and conformed.exit_code == ExitCode.OK:
        return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
    return conformed.exit_code
