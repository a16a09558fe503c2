"""The verbs' arguments: the types and readers of ``harness.argtypes`` (re-exported here,
where every verb imports them), and the ``--unconfined`` flag of the verbs that run a
candidate (``add_unconfined``, ``confinement``).

Example::

    parser.add_argument("--timeout", type=seconds, default=POLICY.test_cpu_seconds)
    add_unconfined(parser)
    with confinement(args, "check", stderr) as refused:
        ...
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from harness.argtypes import (  # noqa: F401 - the verbs' types and readers, imported from here
    MAX_COUNT,
    MAX_INPUT_BYTES,
    MAX_JOBS,
    MAX_JSON_DEPTH,
    MAX_MEGABYTES,
    MAX_SCORE,
    MAX_SECONDS,
    MAX_SEED,
    SCHEDULER_SCHEMES,
    InputError,
    OneLineParser,
    add_scheduler,
    count,
    existing_folder,
    input_file,
    jobs,
    megabytes,
    names,
    one_line_errors,
    output_file,
    output_folder,
    parse_json_text,
    positive_count,
    read_json_file,
    read_text,
    scheduler_address,
    score,
    seconds,
    seed,
    write_text,
)
from harness.exitcodes import ExitCode

# --- the report files a verb's command line asks for (harness.report.registry.add_options) -------


def requested_reports(args) -> dict[str, Path]:
    """Format name -> the path asked for on the command line (only those given): what
    ``harness.report.registry.write_reports`` takes, argparse stopping here."""
    from harness.report.registry import FORMATS

    return {f.name: Path(getattr(args, f.dest)) for f in FORMATS if getattr(args, f.dest, None)}


def write_requested(args, report, stderr, *, prefix: str = "", announce=None) -> bool:
    """``harness.report.registry.write_reports`` of the files ``args`` asks for."""
    from harness.report.registry import write_reports

    return write_reports(requested_reports(args), report, stderr, prefix=prefix, announce=announce)


# --- the wall: refuse to run a candidate without confinement, unless --unconfined ------------

UNCONFINED_HELP = ("run candidates WITHOUT confinement (no bubblewrap: as your own user, seeing your files): "
                   "for trusted code only; said in the header and in every report")


def add_unconfined(parser: argparse.ArgumentParser) -> None:
    """The ``--unconfined`` flag of the verbs that run a candidate."""
    parser.add_argument("--unconfined", action="store_true", help=UNCONFINED_HELP)


def confinement(args, verb: str, stderr):
    """``confinement_for`` with the verb's ``--unconfined``."""
    return confinement_for(bool(getattr(args, "unconfined", False)), verb, stderr)


@contextlib.contextmanager
def confinement_for(unconfined: bool, verb: str, stderr):
    """Yields None when ``verb`` may run candidates: bubblewrap can start here, or
    ``--unconfined`` was given (then ``CONSTRAIN_HARNESS_UNCONFINED=1`` is set in this
    process's environment for the duration, for every grader child to inherit, and one
    line says so on ``stderr``). Otherwise prints the one line naming what is missing and
    yields ``ExitCode.USAGE`` (2) for the verb to return."""
    from harness.sandbox import confine

    if not unconfined:
        line = confine.refusal(verb)
        if line is not None:
            print(line, file=stderr, flush=True)
        yield None if line is None else int(ExitCode.USAGE)
        return
    before = os.environ.get(confine.UNCONFINED_ENV)
    confine.allow_unconfined()
    print(f"{verb}: {confine.UNCONFINED_HEADLINE}: candidates run without any wall", file=stderr, flush=True)
    try:
        yield None
    finally:
        if before is None:
            os.environ.pop(confine.UNCONFINED_ENV, None)
        else:
            os.environ[confine.UNCONFINED_ENV] = before
