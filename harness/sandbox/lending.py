"""What of the reference a candidate's sandbox holds.

The wall's rule (inputs in, answers out: ``harness.sandbox``) applies to the file system
too. The reference (``oracles``) is an oracle: a candidate that can import it answers every
call with the reference's own answer (``from oracles.automaton import *`` is a whole
submission that passes every test). So a candidate's sandbox holds the reference only when
the candidate is the reference, or when the staff lend it:

- **the reference itself** (no ``--impl``; a module, file or folder of ``oracles``), or **an
  implementation the staff serve** (``staff_made``: grade-tests serves only wheats and chaffs,
  ``harness.grading.gradetests.relay``; the student's code there is the suite, confined
  apart with no harness at all): ``oracles`` and ``strategies`` whole;
- **lent by the staff**: ``CONSTRAIN_HARNESS_LEND_REFERENCE=1`` in the grader's own
  environment, for candidates the staff made from the reference (the test suite's gallery
  wraps it, the mutants are copies of it, ``bench batch`` grades the gallery). The batch,
  the Gradescope bundle and ``check`` on a student's code never set it, and a student
  cannot: the variable is read in the grader, outside every sandbox;
- **``--ref-deps``**: the spec's "Needs" only, L8.1's sampler and M05.2's byte map: of
  ``oracles``, the files ``__init__.py`` and ``automaton/{__init__,sampling,bytemap,errors}.py``
  (``sampling`` imports the pipeline behind ``Constraint`` only inside ``constrained_sample``);
  importing any other module of the reference fails, its file is not there;
- **otherwise**: nothing of ``oracles`` or ``strategies`` (an empty folder in their place).

``lending(spec, ref_deps, scratch, staff_made)`` returns a ``Lending``: the binds that carry it out, as
``(source, destination)`` pairs bound after the harness's own (the deeper bind wins), and a
phrase for the header. Invariant: whatever the case, ``oracles`` and ``strategies`` each
get exactly one bind at their own path, so nothing depends on the order of equal binds.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

LEND_VARIABLE = "CONSTRAIN_HARNESS_LEND_REFERENCE"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
ORACLES = PACKAGE_ROOT / "oracles"
STRATEGIES = PACKAGE_ROOT / "strategies"
REFERENCE_NAMES = ("oracles",)  # a candidate named by one of these modules is the reference
REF_DEPS_FILES = ("__init__.py", "automaton/__init__.py", "automaton/sampling.py", "automaton/bytemap.py",
                  "automaton/errors.py")


@dataclass(frozen=True)
class Lending:
    """The binds giving a candidate's sandbox its share of the reference, and the header's phrase."""

    binds: tuple
    description: str

    def __post_init__(self):  # a package the installation lacks (a wheel without strategies) gets no bind
        object.__setattr__(self, "binds", tuple((source, dest) for source, dest in self.binds if dest.exists()))


def lending(spec: str | None, ref_deps: bool, scratch: Path, staff_made: bool = False) -> Lending:
    """What of ``oracles`` and ``strategies`` the sandbox of the candidate ``spec`` holds
    (see the module docstring); ``scratch`` is the candidate's own folder for stand-ins."""
    if is_the_reference(spec) or staff_made:
        return Lending(((ORACLES, ORACLES), (STRATEGIES, STRATEGIES)),
                       "the reference: whole (the candidate is the reference or the staff's own)")
    if os.environ.get(LEND_VARIABLE) == "1":
        return Lending(((ORACLES, ORACLES), (STRATEGIES, STRATEGIES)),
                       f"the reference: lent ({LEND_VARIABLE}=1: candidates the staff made from it)")
    empty = _folder(scratch / "not-lent")
    if ref_deps:
        return Lending(((_ref_deps_view(scratch), ORACLES), *_ref_deps_files(), (empty, STRATEGIES)),
                       "the reference: its sampler and byte map only (--ref-deps)")
    return Lending(((empty, ORACLES), (empty, STRATEGIES)), "the reference: not in the sandbox")


def is_the_reference(spec: str | None) -> bool:
    """Whether the candidate ``spec`` is the reference: none given, a module of ``oracles``
    (``oracles.automaton``, ``oracles.tools``), or a file or folder inside it."""
    if spec is None:
        return True
    if spec.split(".")[0] in REFERENCE_NAMES and not spec.endswith(".py") and "/" not in spec:
        return True
    path = Path(spec).resolve()
    return path == ORACLES or ORACLES in path.parents


def _folder(path: Path) -> Path:
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    path.chmod(0o755)
    return path


def _ref_deps_view(scratch: Path) -> Path:
    """An ``oracles`` folder holding an empty mount point for each lent file."""
    view = _folder(scratch / "ref-deps-view")
    for name in REF_DEPS_FILES:
        target = view / name
        _folder(target.parent)
        target.touch(mode=0o644)
        target.chmod(0o644)
    return view


def _ref_deps_files() -> tuple:
    return tuple((ORACLES / name, ORACLES / name) for name in REF_DEPS_FILES)


@contextlib.contextmanager
def lent_to_staff_candidates():
    """Lend the reference to every candidate started inside the block (in this process and
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
