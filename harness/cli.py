"""The ``constrain-harness`` command.

Verbs are organized by task; each lives in its own module, which provides
``add_arguments(parser)`` and ``run(args, stdout, stderr) -> int``::

    constrain-harness dfa '(cat|car|dog)s?'        # the canonical table of a pattern
    constrain-harness dfa --schema tool.json --dot # a schema's DFA as Graphviz DOT

``main(argv)`` parses, then calls the verb's ``run``, so tests drive it with StringIO.
Exit codes: see ``harness.exitcodes``.

Every verb's help reads alike (``plain_help``): one placeholder vocabulary for the values
options take (``PLACEHOLDERS``: ``S`` seconds, ``N`` a number, ``F`` a file, ``DIR`` a
folder, ``MB``, ``LIST`` a comma-separated list, ``NAME``, ...; an option with choices shows
them), and examples under the options, the lines of the verb module's docstring that run
it (``constrain-harness VERB ...``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

from harness import __version__
from harness.commands.args import OneLineParser
from harness.exitcodes import ExitCode, exit_without_teardown
from harness.sandbox.isolated import ONE_THREAD_ENV

# verb -> (module, one-line help). Each verb's module declares its own arguments
# (add_arguments); build_parser imports only the module of the verb being run (the others
# are listed with their one-line help): some verbs import heavy libraries (conform: the
# openai client, about 1 CPU s), which no other verb should pay for.
VERBS: dict[str, tuple[str, str]] = {
    "dfa": ("harness.commands.dfa", "print the canonical DFA of a pattern or schema"),
    "bench": ("harness.commands.bench", "benchmarks: medians and ratios against peers"),
    "check": ("harness.commands.check", "grade an implementation with the conformance catalogue"),
    "mutants": ("harness.commands.mutants", "run the mutant catalogue, report the mutation score"),
    "compare": ("harness.commands.compare", "differences with outlines-core, llguidance, interegular, xgrammar"),
    "golden": ("harness.commands.golden", "write, check or replay the golden files"),
    "conform": ("harness.commands.conform", "check a live OpenAI-compatible server's tool calling"),
    "serve-reference": ("harness.commands.serve_reference",
                        "serve the reference chat API (random model, tools grammar)"),
    "autograder": ("harness.commands.autograder", "build a Gradescope autograder bundle, or grade in its container"),
    "grade-tests": ("harness.commands.grade_tests", "grade a student's own tests with wheats and chaffs"),
    "sweep": ("harness.commands.sweep", "every pattern or schema up to a size: reference, derivatives, re agree"),
    "corpus": ("harness.commands.corpus", "a collection of real schemas: coverage, soundness, completeness, peers"),
}


PROBING_VERBS = frozenset({"check", "grade-tests", "mutants"})
"""The verbs whose every run starts candidates behind the wall, so asks first whether it can
be built here (``confine.prefetch`` begins that as the program starts)."""


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The command's parser, with every verb's arguments when ``verb`` is None, else only
    with ``verb``'s (the other verbs are still listed, so ``--help`` and a wrong verb read
    the same)."""
    parser = OneLineParser(  # every usage error, of every verb and action: one line, exit 2
        prog="constrain-harness",
        description="Differential testing and oracle harness for constrained decoding.",
        epilog="example: constrain-harness dfa '(cat|car|dog)s?'",
    )
    parser.add_argument("--version", action="version", version=f"constrain-harness {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for name, (module_name, help_text) in VERBS.items():
        if verb is not None and name != verb:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        verb_parser = sub.add_parser(name, help=help_text, description=(module.__doc__ or "").split("\n\n")[0])
        module.add_arguments(verb_parser)
        plain_help(verb_parser, ["constrain-harness", name], module.__doc__ or "")
        verb_parser.set_defaults(_module=module)
    return parser


# dest -> the placeholder its value is shown as, one vocabulary for every verb
PLACEHOLDERS: dict[str, str] = {
    **dict.fromkeys(("timeout", "case_timeout", "submission_limit", "class_limit", "budget", "wall"), "S"),
    **dict.fromkeys(("jobs", "seed", "points", "regexes", "schemas", "walks", "limit", "max_size", "max_len",
                     "max_depth", "port", "shrink_limit"), "N"),
    **dict.fromkeys(("peers", "ops", "cases", "wheats", "chaffs", "only", "operators"), "LIST"),
    **dict.fromkeys(("model", "model_name", "lab", "variant", "assignment", "regrade"), "NAME"),
    "memory": "MB", "impl": "IMPL", "api_key": "KEY", "alphabet": "CHARS", "scheduler": "ADDRESS", "host": "HOST",
    **dict.fromkeys(("coverage_file", "state", "merge", "schema"), "F"),
    "late_policy": "POLICY", "dir": "DIR", "module": "MODULE",
}
PLACEHOLDER_WORDS = frozenset({"S", "N", "F", "DIR", "MB", "LIST", "NAME", "IMPL", "KEY", "CHARS", "ADDRESS", "HOST",
                               "POLICY", "URL", "WHEN", "ID", "TEST=V", "MODULE", "PEER=PYTHON", "PATTERN"})
"""Every placeholder a verb's help shows (tests/grading/test_rough_edges.py holds every option to it)."""


def plain_help(parser: argparse.ArgumentParser, words: list[str], doc: str) -> None:
    """``parser``'s options shown with ``PLACEHOLDERS``, and its examples (the lines of
    ``doc`` that start with ``words``) under its options; its actions' parsers alike."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                plain_help(sub, [*words, name], doc)
        elif action.option_strings and action.nargs != 0 and action.choices is None and action.dest in PLACEHOLDERS:
            action.metavar = PLACEHOLDERS[action.dest]
    command = " ".join(words)
    examples = [line.strip() for line in doc.splitlines() if line.strip().startswith(command)][:4]
    if examples and not parser.epilog:
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.epilog = "examples:\n" + "\n".join(f"  {line}" for line in examples)


def _verb(argv: list[str]) -> str:
    """The verb ``argv`` runs: its first word that is not an option (the command itself has
    only ``-h`` and ``--version``, which take no value); "" when there is none."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: list[str] | None = None, stdout=None, stderr=None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_verb(argv))
    try:
        # argparse writes usage errors, --help and --version to sys.stderr / sys.stdout:
        # send them to the streams main was given
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if args.verb is None:
        parser.print_help(stdout)
        return int(ExitCode.USAGE)
    return int(args._module.run(args, stdout, stderr))


def program() -> int:
    """The ``constrain-harness`` program (its console script and ``python -m harness.cli``):
    ``main`` in a process whose numeric libraries, and its children's, run on one thread
    (``isolated.ONE_THREAD_ENV``, set before any verb imports numpy). ``check`` of one
    submission first runs itself again isolated where that changes nothing it does, so its
    grader children are forks (``_run_isolated_again``). ``main`` alone, as tests call it,
    leaves the caller's environment as it is."""
    if _verb(sys.argv[1:]) == "check" and "--batch" not in sys.argv and not _asks_for_help(sys.argv[1:]):
        _run_isolated_again()
    os.environ.update(ONE_THREAD_ENV)
    if _verb(sys.argv[1:]) in PROBING_VERBS and "--unconfined" not in sys.argv and not _asks_for_help(sys.argv[1:]):
        from harness.sandbox import confine

        confine.prefetch()  # the sandbox's probe overlaps the verb's imports and parsing
    code = main()
    if _verb(sys.argv[1:]) == "check":
        exit_without_teardown(code)   # returns only where another thread still runs
    return code


def _run_isolated_again() -> None:
    """``check`` of one submission: this program again, isolated, in this process (``exec``),
    so that its grader children are forks of it (``harness.sandbox.isolated.isolated_again``, which
    says when; otherwise nothing happens here)."""
    from harness.sandbox import isolated

    command = isolated.isolated_again("harness.cli", sys.argv[1:])
    if command is not None:
        os.execve(command[0], command, isolated.isolated_environment())
    isolated.unbuffered_again()


def _asks_for_help(argv: list[str]) -> bool:
    return any(word in ("-h", "--help", "--version") for word in argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(program())
