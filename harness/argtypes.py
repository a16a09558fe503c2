"""Argument types and file readers shared by every verb (and by the layers under the verbs
that read a file or a number the same way: reports, the batch, the benchmarks): bad
arguments exit 2 with one line.

At the bottom of the harness's layers (``harness/__init__.py``): it imports only
``harness.files_in`` and ``harness.exitcodes``. The verbs import it through
``harness.commands.args``, which adds the ``--unconfined`` flag.

Each ``type=`` function below turns the text of one argument into a checked value or
raises ``argparse.ArgumentTypeError`` naming what is wrong; ``one_line_errors(parser)``
makes the verb's parser report that as a single line (``constrain-harness check:
error: argument --timeout: nan is not a finite number``) and exit 2
(``ExitCode.USAGE``). The readers never hang and never recurse without bound: an
input file must be a regular file (not a folder, not an endless device such as
``/dev/zero``, not a FIFO) of at most ``MAX_INPUT_BYTES``, and JSON text is checked
for nesting deeper than ``MAX_JSON_DEPTH`` before ``json`` parses it (100,000 nested
brackets are a one-line error, not a ``RecursionError``).

Bounds, each a documented constant: ``MAX_SECONDS`` (a day), ``MAX_MEGABYTES``
(1 TiB), ``MAX_JOBS`` (64), ``MAX_COUNT`` (1,000,000 generated cases),
``MAX_INPUT_BYTES`` (16 MiB), ``MAX_JSON_DEPTH`` (256).

Example::

    parser.add_argument("--timeout", type=seconds, default=POLICY.test_cpu_seconds)
    parser.add_argument("--json", type=output_file)
    parser.add_argument("--schema", type=input_file)
    ...
    schema = read_json_file(args.schema)          # InputError (a ValueError) on bad input
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
from pathlib import Path

from harness import files_in
from harness.exitcodes import ExitCode

MAX_SECONDS = 86_400.0
"""Largest ``--timeout`` accepted (a day): past it a timer is no bound at all."""
MAX_MEGABYTES = 1 << 20
"""Largest ``--memory`` accepted, MB (1 TiB): larger values overflow ``RLIMIT_AS``."""
MAX_JOBS = 64
"""Largest ``--jobs``: more processes than that only thrash a machine."""
MAX_COUNT = 1_000_000
"""Largest count of generated cases (``compare --regexes/--schemas``, ``--shrink-limit``)."""
MAX_SCORE = 1_000_000.0
"""Largest ``--points`` / ``--max-score``: a score past it is a typo (and ``inf`` no score)."""
MAX_SEED = (1 << 32) - 1
"""Every seed of the product, the run seed and each verb's ``--seed``, is in ``0..MAX_SEED``
(short enough to read out, wide enough not to collide; ``harness.suite.seeding`` uses this one)."""


def check_seed(seed) -> int:
    """``seed`` if it is an int in 0 .. ``MAX_SEED``, else a TypeError / ValueError naming it: the
    product's one check of a run seed (``harness.run.CatalogueRun``, ``harness.suite.seeding``)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"the run seed must be an int, not {type(seed).__name__} ({seed!r})")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"the run seed must be in 0 .. {MAX_SEED}, not {seed}")
    return seed


def check_jobs(value) -> int:
    """``value`` if it is an int in 1 .. ``MAX_JOBS`` (never a bool), else a ValueError naming
    ``--jobs``: the typed options' check of how many processes at once (``BatchOptions``,
    ``StabilityOptions``, ``ToolsOptions``), as the command line's ``jobs`` is for its text."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_JOBS:
        raise ValueError(f"--jobs must be between 1 and {MAX_JOBS}, not {value!r}")
    return value


MAX_INPUT_BYTES = 16 << 20
"""Largest input file read (schemas, golden files), bytes."""
MAX_JSON_DEPTH = 256
"""Deepest nesting of arrays and objects in JSON text read (a schema of ``MAX_DEPTH`` 32
levels with enum values of depth 64 stays far below it)."""


InputError = files_in.InputError
"""An input file or text that cannot be read as asked; ``str`` names the file and the
problem (and the line and column for JSON). One class with ``harness.files_in``'s."""


# --- argument types (argparse ``type=``) ------------------------------------------------------

def _number(text: str, kind) -> float | int:
    try:
        value = kind(text)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number")
    return value


def _bounded(text: str, kind, low, high, unit: str = ""):
    value = _number(text, kind)
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{text} is outside {low}..{high}{unit}")
    return value


def seconds(text: str) -> float:
    """A positive, finite number of seconds, at most ``MAX_SECONDS`` (e.g. ``"60"``)."""
    value = _number(text, float)
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds in (0, {MAX_SECONDS:g}]")
    return value


def megabytes(low: int = 256):
    """An int number of MB in ``low..MAX_MEGABYTES`` (e.g. ``megabytes(256)("2048")``)."""
    def parse(text: str) -> int:
        return _bounded(text, int, low, MAX_MEGABYTES, " MB")
    parse.__name__ = "megabytes"
    return parse


def jobs(text: str) -> int:
    """How many processes at once: ``1..MAX_JOBS``."""
    return _bounded(text, int, 1, MAX_JOBS)


SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
"""Dask's address schemes (``distributed.comm``): an address is ``SCHEME://HOST:PORT``."""


def scheduler_address(text: str) -> str:
    """A Dask scheduler's address, ``tcp://HOST:PORT`` (``harness.fanout.executor``)."""
    scheme, sep, rest = text.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or scheme not in SCHEDULER_SCHEMES or not colon or not host or not port.isdigit() \
            or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a scheduler address such as tcp://127.0.0.1:8786")
    return text


def add_scheduler(parser) -> None:
    """``--scheduler ADDRESS``: run the verb's tasks on a Dask cluster (default: here, or
    ``$CONSTRAIN_HARNESS_SCHEDULER``)."""
    parser.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address, default=None,
                        help="run the tasks on this Dask scheduler's workers (tcp://HOST:PORT; default "
                             "$CONSTRAIN_HARNESS_SCHEDULER, else here); needs constrain-harness[dask]")


def count(text: str) -> int:
    """A count of cases: ``0..MAX_COUNT``."""
    return _bounded(text, int, 0, MAX_COUNT)


def seed(text: str) -> int:
    """A seed: ``0..MAX_SEED``."""
    return _bounded(text, int, 0, MAX_SEED)


def score(text: str) -> float:
    """A positive, finite score of at most ``MAX_SCORE`` points (e.g. ``"16"``, ``"12.5"``):
    ``inf``, ``nan``, ``0`` and ``-1`` are refused (a results.json must hold JSON numbers)."""
    value = _number(text, float)
    if not 0 < value <= MAX_SCORE:
        raise argparse.ArgumentTypeError(f"{text} is not a score in (0, {MAX_SCORE:g}]")
    return value


def positive_count(text: str) -> int:
    """A count of at least one: ``1..MAX_COUNT`` (e.g. ``--sample 200``)."""
    return _bounded(text, int, 1, MAX_COUNT)


def names(text: str) -> list[str]:
    """A non-empty comma-separated list of names (``"s05,s12"``); an empty one (``""``,
    ``","``) is refused rather than read as "everything"."""
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"{text!r} names nothing (leave the option out to take all)")
    return items


def input_file(text: str) -> Path:
    """An existing regular file of at most ``MAX_INPUT_BYTES`` that we may read."""
    path = Path(text)
    try:
        info = path.stat()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {text}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise argparse.ArgumentTypeError(f"{text} is not a regular file (a device or a pipe is not read)")
    if info.st_size > MAX_INPUT_BYTES:
        raise argparse.ArgumentTypeError(f"{text} has {info.st_size} bytes, over MAX_INPUT_BYTES={MAX_INPUT_BYTES}")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text}: permission denied")
    return path


def _make_parents(text: str, folder: Path) -> None:
    """Make ``folder`` and its missing parents when the nearest one that exists is a folder
    we may write to (``--feedback out/fb`` with no ``out`` yet) other than the file
    system's root (``/no/such/folder`` is a typo, never made, even for root); else an
    ArgumentTypeError naming it."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
    if existing == folder:
        return
    if existing.resolve() == Path(existing.resolve().anchor):
        raise argparse.ArgumentTypeError(f"cannot write {text}: the folder {folder} does not exist")
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text}: {existing} is not a folder we may write to")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {exc.strerror or exc}") from None


def output_file(text: str) -> Path:
    """A file we can write: not a folder, in a folder we may write to (missing parent
    folders are made), and if it exists, a regular file we may overwrite (``/dev/null`` is
    allowed)."""
    path = Path(text)
    if text == "" or path.is_dir():
        raise argparse.ArgumentTypeError(f"{text or '(empty)'} is a folder, not a file to write")
    if path.exists():
        if not (path.is_file() or path == Path(os.devnull)) or not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"cannot write {text}: not a regular file we may overwrite")
        return path
    parent = path.parent if str(path.parent) else Path(".")
    _make_parents(text, parent)
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text}: the folder {parent} is not writable")
    try:  # the file system's own answer, before any work (os.access says yes to root on /proc)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        os.unlink(path)
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {exc.strerror or exc}") from None
    return path


def existing_folder(text: str) -> Path:
    """A folder that exists (e.g. the golden directory to check or replay)."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder" + ("" if path.exists() else " (it does not exist)"))
    return path


def output_folder(text: str) -> Path:
    """A folder to write into: an existing writable folder, or a new one (its missing parent
    folders made) under a folder we may write to."""
    path = Path(text)
    if not path.exists() and str(path.parent):
        _make_parents(text, path.parent)
    if path.exists():
        if not path.is_dir():
            raise argparse.ArgumentTypeError(f"{text} is not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise argparse.ArgumentTypeError(f"cannot write into {text}: permission denied")
        return path
    parent = path.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot create the folder {text}: {parent} is not a writable folder")
    return path


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` report a usage error as one line on stderr and exit 2."""
    def error(message: str):
        sys.stderr.write(f"{parser.prog}: error: {' '.join(message.split())}\n")
        raise SystemExit(int(ExitCode.USAGE))
    parser.error = error  # type: ignore[method-assign]


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line on stderr and exit 2 (its
    subparsers are of this class too: ``add_subparsers`` uses the parent's class)."""

    def error(self, message: str):
        sys.stderr.write(f"{self.prog}: error: {' '.join(message.split())}\n")
        raise SystemExit(int(ExitCode.USAGE))


# --- readers ---------------------------------------------------------------------------------

def read_text(path: Path | str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; InputError otherwise
    (``harness.files_in``: opened once, checked once opened, at most ``limit + 1``
    bytes read, so a FIFO, a device or a file that grows cannot hang the reader)."""
    return files_in.read_text(path, limit=limit)


def parse_json_text(text: str, *, name: str = "<text>", max_depth: int = MAX_JSON_DEPTH):
    """``json.loads(text)``, after checking the nesting depth without recursion;
    InputError with the line and column for malformed JSON or nesting over ``max_depth``.
    E.g. ``parse_json_text("[" * 100_000)`` raises InputError, not RecursionError."""
    position = _too_deep(text, max_depth)
    if position is not None:
        line, column = _line_column(text, position)
        raise InputError(f"{name}: JSON nested deeper than {max_depth} levels at line {line} column {column}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of 5000 digits
        raise InputError(f"{name}: not readable JSON: {exc}") from None


def read_json_file(path: Path | str):
    """The JSON value in a file (``read_text`` then ``parse_json_text``)."""
    return parse_json_text(read_text(path), name=str(path))


def _too_deep(text: str, max_depth: int) -> int | None:
    """The offset where ``[``/``{`` nesting (outside strings) passes ``max_depth``, or None."""
    if text.count("[") + text.count("{") <= max_depth:  # the common case, at C speed
        return None
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                return i
        elif ch in "]}":
            depth -= 1
    return None


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def write_text(path: Path | str, text: str) -> str | None:
    """Write ``text`` (UTF-8) to ``path``; None on success, else a one-line reason."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    return None
