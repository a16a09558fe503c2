"""The run seed: every random choice of a catalogue run comes from one number.

``harness.grading.check`` passes it to the grader child (in the run value,
``harness.run.CatalogueRun.seed``; the plugin puts it in the session's state,
``harness.suite.session``, which the helpers below read), prints it in the run header and writes it in every report, so
``check --seed N`` replays a run exactly. Its default is derived from the submission's
content (``submission_seed``: a hash of the file, of a package's files, or of the
reference's files), so a regrade of the same submission draws the same inputs.

**A seed no student can choose.** ``submission_seed`` is public: anyone with the harness
computes it, so a student could try comment after comment offline until the random draws
miss their bug. Batch and Gradescope grading therefore use ``course_seed(secret, spec)``: a
keyed hash (HMAC-SHA256) of the same submission content under a course secret
(``new_course_secret``: 32 random bytes made when a batch starts, kept in its staff-only
state file; or when an autograder bundle is built, kept in the bundle, readable by root
only). Without the secret it cannot be computed, and it differs from ``submission_seed``
and from the seed under another secret; the same secret and content always give the same
seed, so a resumed batch or a rerun on Gradescope draws the same inputs. The seed (never
the secret) is recorded in the staff's report, and ``check --seed N`` replays the run.
And since no one chooses the seed, no verdict may hang on it: a test that exists to catch a
mistake catches it under every seed (``harness.mutants.stability`` measures it; the table is
in ``docs/mutants-seed-stability.md``).

Each random stream of the catalogue is named by the constant it was written with
(``default_rng(1234)`` in a test) and drawn from ``seeded_rng(1234)``: the stream's
constant XOR the run seed. So seed 0 is the catalogue's own constants (what the mutant
runner and ``pytest harness/suite`` use by default), distinct streams stay distinct under
any one seed, and ``numpy.random.default_rng`` (PCG64 through ``SeedSequence``, the
same bits on every platform and supported Python) makes each stream's draws a pure
function of (constant, run seed). The Hypothesis properties (``--deep``) draw from
``hypothesis_seed(name)`` when the run seed is not 0 (at 0: derandomized, as written).
``stable_text`` takes out of a traceback put in a report what differed from run to run
(memory addresses) or from Python to Python (3.11's caret lines).

Example::

    >>> set_run_seed(5); derive(7)
    2
    >>> set_run_seed(0); int(seeded_rng(7).integers(100)) == int(np.random.default_rng(7).integers(100))
    True
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from pathlib import Path

import numpy as np

from harness.argtypes import MAX_SEED, check_seed  # the product's one seed maximum (2**32 - 1) and check
from harness.suite import session

__all__ = ["MAX_SEED", "set_run_seed", "run_seed", "derive", "seeded_rng", "hypothesis_seed", "submission_seed",
           "course_seed", "new_course_secret", "check_course_secret", "COURSE_SECRET_BYTES", "check_seed",
           "stable_text"]

def set_run_seed(seed: int) -> None:
    """Make ``seed`` the run seed of the catalogue state in force (``harness.suite.session``; a
    session's is set by the plugin from its run value: this is for a run outside pytest)."""
    session.current().seed = check_seed(seed)


def run_seed() -> int:
    """The run seed of the catalogue state in force (``harness.suite.session.current``)."""
    return session.current().seed


def derive(stream: int) -> int:
    """The seed of the random stream written as ``stream``, under the run seed."""
    return check_seed(stream) ^ session.current().seed


def seeded_rng(stream: int) -> np.random.Generator:
    """``np.random.default_rng(derive(stream))``: the catalogue's generators."""
    return np.random.default_rng(derive(stream))


def hypothesis_seed(name: str) -> int | None:
    """The seed of the Hypothesis property ``name`` (None at run seed 0: derandomized)."""
    seed = session.current().seed
    if seed == 0:
        return None
    return int.from_bytes(hashlib.sha256(f"{seed}:{name}".encode()).digest()[:8], "big")


def submission_seed(spec: str | None) -> int:
    """The default run seed of grading ``spec`` (``harness.sandbox.candidate``'s spellings): a hash
    of the ``.py`` file's bytes, of a package directory's ``.py`` files (by relative path),
    of a module name's file found under the current folder (else of its name), or, for
    the reference (None), of ``oracles/automaton``'s files."""
    digest = hashlib.sha256()
    for label, data in _submission_files(spec):
        digest.update(label.encode() + b"\0" + hashlib.sha256(data).digest())
    return int.from_bytes(digest.digest()[:4], "big")


COURSE_SECRET_BYTES = 32
"""A course secret is 32 random bytes (``secrets.token_bytes``), written as 64 hex digits."""


def new_course_secret() -> str:
    """A fresh course secret, as 64 lowercase hex digits (never printed in a student's output)."""
    return secrets.token_bytes(COURSE_SECRET_BYTES).hex()


def check_course_secret(secret) -> str:
    """``secret`` if it is ``COURSE_SECRET_BYTES`` bytes written in hex, else a TypeError /
    ValueError that says what is wrong without repeating the value (it is a secret)."""
    if not isinstance(secret, str):
        raise TypeError(f"a course secret must be a str of hex digits, not {type(secret).__name__}")
    if len(secret) != 2 * COURSE_SECRET_BYTES or not re.fullmatch(r"[0-9a-f]+", secret):
        raise ValueError(f"a course secret must be {2 * COURSE_SECRET_BYTES} lowercase hex digits "
                         f"(got {len(secret)} characters)")
    return secret


def course_seed(secret: str, spec: str | None) -> int:
    """The run seed of grading ``spec`` in a course whose secret is ``secret``: HMAC-SHA256
    keyed with the secret over the submission's content (``submission_seed``'s files), its
    first 4 bytes. A pure function of (secret, content); no student can compute it."""
    mac = hmac.new(bytes.fromhex(check_course_secret(secret)), b"constrain-harness run seed\0", hashlib.sha256)
    for label, data in _submission_files(spec):
        mac.update(label.encode() + b"\0" + hashlib.sha256(data).digest())
    return int.from_bytes(mac.digest()[:4], "big")


def _submission_files(spec: str | None) -> list[tuple[str, bytes]]:
    if spec is None:
        return _package_files(Path(__file__).resolve().parents[2] / "oracles" / "automaton")
    path = Path(spec)
    if path.is_file():
        return [("", path.read_bytes())]
    if path.is_dir():
        return _package_files(path)
    for candidate in (Path(*spec.split(".")).with_suffix(".py"), Path(*spec.split(".")) / "__init__.py"):
        if candidate.is_file():
            return [("", candidate.read_bytes())]
    return [("module", spec.encode())]


def _package_files(folder: Path) -> list[tuple[str, bytes]]:
    files = sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts and p.is_file())
    return [(p.relative_to(folder).as_posix(), p.read_bytes()) for p in files]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_CARETS = re.compile(r"^[ \t]*[\^~]+[ \t]*\n", re.MULTILINE)


def stable_text(text: str) -> str:
    """``text`` (a traceback put in a report) without what differs from run to run or from
    Python to Python: the memory addresses of default reprs (``<function f at 0x7f...>``,
    ``<... object at 0x...>``) and the lines of ``^^^^`` carets Python 3.11+ draws under
    an expression. A report must be the same for the same submission and seed."""
    return _CARETS.sub("", _ADDRESS.sub("", text))
