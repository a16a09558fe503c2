"""Wheats and chaffs: the implementations a student's suite is graded against.

- Wheats (correct): the reference (``oracles.automaton``), every fairness-gallery
  implementation ``harness/grading/gradetests/wheats/fair_*.py`` present at run time, and
  ``harness/grading/gradetests/wheats/brzozowski.py`` (a correct implementation sharing no DFA
  code with the reference); ``--wheats`` overrides the list (``reference`` or paths).
  ``WHEATS`` is package data (``pyproject.toml``), so a wheel install (the Gradescope
  bundle) grades against the same wheats as a checkout.
- Chaffs (buggy): the mutant catalogue's ``s01``-``s27`` (``harness.mutants``), each
  materialized as a package under a private folder. ``CHAFF_SOURCES`` is the hook for
  more (generated mutants): each entry maps a folder to a list of ``Implementation``.

No word of an implementation reaches the tests (``relay.Gate``, ``normalise``): they see
its behaviour only, so they never read which one they face.

Example::

    >>> [w.id for w in default_wheats()][:1]
    ['reference']
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from harness.mutants.apply import REFERENCE_DIR, materialize
from harness.mutants.catalogue import CATALOGUE, MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[3]
WHEATS = Path(__file__).resolve().parent / "wheats"


@dataclass(frozen=True)
class Implementation:
    id: str
    role: str                 # "wheat" or "chaff"
    spec: str | None          # what the wall's Candidate loads (None: the reference)
    mutant: Mutant | None = None

    @property
    def folder(self) -> Path:
        """The folder holding the implementation's files."""
        if self.spec is None:
            return REFERENCE_DIR.parents[1]
        path = Path(self.spec)
        return path.parent if path.suffix == ".py" or path.is_dir() else ROOT


def wheat(spec: str) -> Implementation:
    """``reference`` or a path to a module file or package."""
    if spec == "reference":
        return Implementation("reference", "wheat", None)
    path = Path(spec).resolve()
    if not path.exists():
        raise ValueError(f"--wheats: {spec!r} is neither 'reference' nor an existing file or folder")
    return Implementation(path.stem if path.suffix == ".py" else path.name, "wheat", str(path))


def default_wheats() -> list[Implementation]:
    fair = sorted(WHEATS.glob("fair_*.py"))
    if not (WHEATS / "brzozowski.py").is_file():
        raise ValueError(f"the default wheats are missing from {WHEATS} (a broken install): pass --wheats")
    return [wheat("reference"), *(wheat(str(p)) for p in fair), wheat(str(WHEATS / "brzozowski.py"))]


def catalogue_chaffs(root: Path, only: tuple[str, ...] = ()) -> list[Implementation]:
    """The catalogue's s01-s27, materialized under ``root`` (``only``: a subset by id)."""
    chosen = [m for m in MUTANTS if m.kind == CATALOGUE and (not only or m.id in only)]
    unknown = set(only) - {m.id for m in chosen}
    if unknown:
        raise ValueError(f"--chaffs: unknown catalogue mutant(s) {', '.join(sorted(unknown))}")
    chaffs = []
    for mutant in chosen:
        package = materialize(mutant, root)
        chaffs.append(Implementation(mutant.id, "chaff", str(package), mutant))
    return chaffs


CHAFF_SOURCES: list[Callable[[Path, tuple[str, ...]], list[Implementation]]] = [catalogue_chaffs]
"""Where chaffs come from; generated mutants register a function here."""


def all_chaffs(root: Path, only: tuple[str, ...] = ()) -> list[Implementation]:
    return [chaff for source in CHAFF_SOURCES for chaff in source(root, only)]
