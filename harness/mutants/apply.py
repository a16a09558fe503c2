"""Copy the reference and apply a mutant's edits to the copy.

``materialize(mutant, root)`` copies ``oracles/automaton`` (``oracles/tools`` for a
tool-surface mutant, ``reference_dir``) to ``root/mutant_<id>/``
(the package imports itself relatively, so the copy never touches the reference),
applies the mutant's syntax anchors (``anchors.ANCHORS``: s01-s27) or else each
``Edit`` (``old`` must occur exactly once), and returns the package directory, which
any loader can import by path (``--impl root/mutant_<id>``).
``materialize_generated(mutant, root)`` does the same for a generated mutant
(``harness.mutants.generation``): the copy with one file replaced by the mutant's text.
``load(path)`` imports it under its own name in this process.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from harness.mutants.anchors import ANCHORS, AnchorDoesNotApply, apply_anchor
from harness.mutants.catalogue import TOOLS_REPLAY, Mutant

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "oracles" / "automaton"
TOOLS_REFERENCE_DIR = REFERENCE_DIR.parent / "tools"


def reference_dir(mutant: Mutant) -> Path:
    """The package a mutant's edits apply to: ``oracles/tools`` for the tool-surface
    mutants (kind ``TOOLS_REPLAY``), ``oracles/automaton`` for every other."""
    return TOOLS_REFERENCE_DIR if mutant.kind == TOOLS_REPLAY else REFERENCE_DIR


class PatchDoesNotApply(ValueError):
    """An edit's ``old`` text is not in the reference exactly once: the mutant is stale."""


def materialize(mutant: Mutant, root: Path, *, edits=None, reference: Path | None = None) -> Path:
    """Copy ``reference`` (default ``REFERENCE_DIR``) to ``root/<mutant.package>`` and apply the mutant there.

    Anchors first (``ANCHORS[mutant.id]``, unless ``edits`` are given explicitly), text
    edits otherwise; a patch that no longer applies raises ``PatchDoesNotApply``.
    """
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(reference or reference_dir(mutant), target, ignore=shutil.ignore_patterns("__pycache__"))
    if edits is None and mutant.id in ANCHORS:
        _apply_anchors(mutant, target)
        return target
    for edit in mutant.edits if edits is None else edits:
        path = target / edit.file
        text = path.read_text(encoding="utf-8")
        count = text.count(edit.old)
        if count != 1:
            raise PatchDoesNotApply(f"{mutant.id}: {edit.file}: the text to replace occurs {count} times "
                                    f"(expected once): {edit.old[:60]!r}")
        path.write_text(text.replace(edit.old, edit.new), encoding="utf-8")
    return target


def _apply_anchors(mutant: Mutant, target: Path) -> None:
    for anchor in ANCHORS[mutant.id]:
        path = target / anchor.file
        try:
            path.write_text(apply_anchor(path.read_text(encoding="utf-8"), anchor), encoding="utf-8")
        except AnchorDoesNotApply as exc:
            raise PatchDoesNotApply(f"{mutant.id}: {exc}") from None


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
