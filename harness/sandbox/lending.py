"""What of the harness a candidate's sandbox holds.

The wall's rule (inputs in, answers out: ``harness.sandbox``) applies to the file system
too. The harness's packages hold answers: the reference (``oracles``) is an oracle, and a
submission that imports it answers every call with the reference's own answer (``from
oracles.automaton import *`` was a whole submission that passed every test); grade-tests'
wheats (``harness/grading/gradetests/wheats``) are whole correct implementations; the
catalogue (``harness/suite``) holds hand lists of inputs with their verdicts. So a student's
sandbox holds, of the harness, what its own process runs and nothing else:

- ``harness``: the candidate process's server and loader only (``SERVER_FILES``: the
  package's ``__init__``, ``harness/sandbox/`` and the contract's ``.pyi``); every other file
  of the package is absent (the catalogue, grade-tests' wheats, the mutants...);
- ``golden`` and ``facts``: for the tool-calling contract only (the server imports
  ``golden.tools_replay`` for the contract's names; its JSON files read as empty,
  ``view._golden_answers_hidden``); absent for the ``constrain`` contract;
- ``oracles`` and ``strategies``: absent; with ``--ref-deps`` the spec's "Needs" only, L8.1's
  sampler and M05.2's byte map (``REF_DEPS_FILES``; ``sampling`` imports the pipeline behind
  ``Constraint`` only inside ``constrained_sample``).

Every package is whole (the JSON golden files still empty) when:

- the candidate is **the reference** (no ``--impl``; a module, file or folder of ``oracles``);
- it is **a file of the harness itself** (``--impl harness/grading/gradetests/wheats/brzozowski.py``:
  a wheat or chaff shipped in the installed packages; a student's submission never lives there, the
  batch and the bundle grade copies in folders of their own);
- it is **an implementation the staff serve** (``staff_made``: grade-tests serves only wheats
  and chaffs, ``harness.grading.gradetests.relay``; the student's code there is the suite,
  confined apart with no harness at all);
- the staff **lend** it: ``CONSTRAIN_HARNESS_LEND_REFERENCE=1`` in the grader's own
  environment, for candidates the staff made from the reference (the test suite's gallery wraps
  it, the mutants are copies of it, ``bench batch`` grades the gallery). The batch, the
  Gradescope bundle and ``check`` on a student's code never set it, and a student cannot: it
  is read in the grader, outside every sandbox.

``lending(spec, ref_deps, scratch, staff_made, contract)`` returns a ``Lending``: the binds
that carry it out, ``(source, destination)`` pairs bound after the system's (a deeper bind
wins: bwrap binds in order of depth), and a phrase for the run header. Invariant: each
package of ``PACKAGES`` gets exactly one bind at its own path (the real folder, an empty
folder, or a stand-in holding empty mount points for the files bound over them), so nothing
depends on the order of two binds at one path.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

LEND_VARIABLE = "CONSTRAIN_HARNESS_LEND_REFERENCE"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("facts", "golden", "harness", "oracles", "strategies")
ORACLES = PACKAGE_ROOT / "oracles"
REFERENCE_NAMES = ("oracles",)  # a candidate named by one of these modules is the reference
SERVER_FILES = ("__init__.py", f"__pycache__/__init__.{sys.implementation.cache_tag}.pyc", "sandbox", "contract")
"""Of ``harness``, what a student's candidate process runs: the package's ``__init__`` and its
compiled bytecode (that file alone of ``harness/__pycache__``, which holds the bytecode of every
module of the package's top level: the verbs' ``cli``, ``policy``...), the ``sandbox`` package
with its bytecode (the server, the loader, the channel, the plans; the rest of it is the wall's
own code, which holds no answer: else every candidate compiles the server afresh), the
contract's ``.pyi``."""
REF_DEPS_FILES = ("__init__.py", "automaton/__init__.py", "automaton/sampling.py", "automaton/bytemap.py",
                  "automaton/errors.py")


@dataclass(frozen=True)
class Lending:
    """The binds giving a candidate's sandbox its share of the harness, and the header's phrase."""

    binds: tuple
    description: str

    def __post_init__(self):  # a package the installation lacks (a wheel without strategies) gets no bind
        object.__setattr__(self, "binds", tuple((source, dest) for source, dest in self.binds if dest.exists()))


def lending(spec: str | None, ref_deps: bool, scratch: Path, staff_made: bool = False,
            contract: str = "constrain") -> Lending:
    """What of the harness's packages the sandbox of the candidate ``spec`` holds (see the
    module docstring); ``scratch`` is the candidate's own folder for stand-ins."""
    whole = tuple((PACKAGE_ROOT / name, PACKAGE_ROOT / name) for name in PACKAGES)
    if is_the_reference(spec) or staff_made or is_the_harness_own(spec):
        return Lending(whole, "the harness: whole (the candidate is the reference or the staff's own)")
    if os.environ.get(LEND_VARIABLE) == "1":
        return Lending(whole, f"the harness: whole, lent ({LEND_VARIABLE}=1: candidates the staff made from it)")
    empty = _folder(scratch / "not-lent")
    tools = contract == "tools"
    binds = [*_view(scratch, "harness", SERVER_FILES),
             *((PACKAGE_ROOT / name, PACKAGE_ROOT / name) if tools else (empty, PACKAGE_ROOT / name)
               for name in ("golden", "facts")),
             *(_view(scratch, "oracles", REF_DEPS_FILES) if ref_deps else [(empty, ORACLES)]),
             (empty, PACKAGE_ROOT / "strategies")]
    lent = "the reference's sampler and byte map (--ref-deps)" if ref_deps else "nothing of the reference"
    return Lending(tuple(binds), f"the harness: its candidate server only{' and the tools contract' * tools}, "
                                 f"{lent}")


def is_the_reference(spec: str | None) -> bool:
    """Whether the candidate ``spec`` is the reference: none given, a module of ``oracles``
    (``oracles.automaton``, ``oracles.tools``), or a file or folder inside it."""
    if spec is None:
        return True
    if spec.split(".")[0] in REFERENCE_NAMES and not spec.endswith(".py") and "/" not in spec:
        return True
    path = Path(spec).resolve()
    return path == ORACLES or ORACLES in path.parents


def is_the_harness_own(spec: str | None) -> bool:
    """Whether the candidate ``spec`` is a file or folder inside one of the harness's installed
    packages (``PACKAGES``): the staff's own code, e.g. a wheat."""
    if spec is None or not (spec.endswith(".py") or "/" in spec):
        return False
    path = Path(os.path.abspath(spec))
    if path.resolve() != path:  # through a link (a submission's constrain.py linked to a wheat): not the staff's
        return False
    return any(path == PACKAGE_ROOT / name or PACKAGE_ROOT / name in path.parents for name in PACKAGES)


@contextlib.contextmanager
def lent_to_staff_candidates():
    """Lend the whole harness to every candidate started inside the block (in this process and
    its children): for the staff's own candidates only, the gallery ``bench batch`` grades."""
    before = os.environ.get(LEND_VARIABLE)
    os.environ[LEND_VARIABLE] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(LEND_VARIABLE, None)
        else:
            os.environ[LEND_VARIABLE] = before


def _folder(path: Path) -> Path:
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    path.chmod(0o755)
    return path


def _view(scratch: Path, package: str, names: tuple[str, ...]) -> list:
    """A stand-in for ``package`` holding an empty mount point for each of ``names`` (files
    or folders), then each bound over its mount point: the package with those and no other."""
    view = _folder(scratch / f"view-{package}")
    root = PACKAGE_ROOT / package
    present = [name for name in names if (root / name).exists()]
    for name in present:
        target = view / name
        if (root / name).is_dir():
            _folder(target)
        else:
            _folder(target.parent)
            target.touch(mode=0o644)
            target.chmod(0o644)
    return [(view, root), *((root / name, root / name) for name in present)]
