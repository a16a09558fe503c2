"""Copy the reference and apply a mutant's edits to the copy.

``materialize(mutant, root)`` copies ``oracles/automaton`` (``oracles/tools`` for a
tool-surface mutant, ``reference_dir``) to ``root/mutant_<id>/``
(the package imports itself relatively, so the copy never touches the reference),
applies the mutant's edits in order (``anchors.apply_edit``: an ``Anchor``'s node, or
an ad-hoc ``Edit``'s text, must occur exactly once, else ``PatchDoesNotApply``), and
returns the package directory, which any loader can import by path
(``--impl root/mutant_<id>``). Example: ``materialize(BY_ID["s01"], tmp)`` is
``tmp/mutant_s01``, whose ``parser.py`` says ``DOT = FULL_MASK``.
``materialize_generated(mutant, root)`` does the same for a generated mutant
(``harness.mutants.generation``): the copy with one file replaced by the mutant's text.
``load(path)`` imports it under its own name in this process.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from harness.mutants.anchors import EditDoesNotApply, apply_edit
from harness.mutants.mutant import TOOLS_REPLAY, Mutant

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "oracles" / "automaton"
TOOLS_REFERENCE_DIR = REFERENCE_DIR.parent / "tools"


def reference_dir(mutant: Mutant) -> Path:
    """The package a mutant's edits apply to: ``oracles/tools`` for the tool-surface
    mutants (kind ``TOOLS_REPLAY``), ``oracles/automaton`` for every other."""
    return TOOLS_REFERENCE_DIR if mutant.kind == TOOLS_REPLAY else REFERENCE_DIR


class PatchDoesNotApply(ValueError):
    """An edit no longer applies to the reference (its node, or its text, is not there
    exactly once): the mutant is stale."""


def materialize(mutant: Mutant, root: Path, *, reference: Path | None = None) -> Path:
    """Copy ``reference`` (default ``reference_dir(mutant)``) to ``root/<mutant.package>``
    and apply the mutant's edits there; one that no longer applies raises ``PatchDoesNotApply``."""
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(reference or reference_dir(mutant), target, ignore=shutil.ignore_patterns("__pycache__"))
    for edit in mutant.edits:
        path = target / edit.file
        try:
            path.write_text(apply_edit(path.read_text(encoding="utf-8"), edit), encoding="utf-8")
        except (EditDoesNotApply, FileNotFoundError) as exc:
            raise PatchDoesNotApply(f"{mutant.id}: {exc}") from None
    return target


def materialize_generated(mutant, root: Path) -> Path:
    """Copy the reference to ``root/<mutant.package>`` and write the mutated file into the copy."""
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(REFERENCE_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / mutant.file).write_text(mutant.source, encoding="utf-8")
    return target


def load(package_dir: Path):
    """Import a materialized package by path under its directory's name."""
    package_dir = Path(package_dir)
    name = package_dir.name
    if name in sys.modules:
        del sys.modules[name]
        for key in [k for k in sys.modules if k.startswith(name + ".")]:
            del sys.modules[key]
    spec = importlib.util.spec_from_file_location(name, package_dir / "__init__.py",
                                                  submodule_search_locations=[str(package_dir)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
