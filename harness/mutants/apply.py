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

**The reference's bytecode comes with the copy.** A copy is new, so each process that imports
it (the confined candidate, the fingerprint child) would compile every module of it from
source. ``materialize`` and ``materialize_generated`` also write, into the copy's
``__pycache__``, the reference's compiled modules for every file the mutant leaves unchanged
(``reference_bytecode``: compiled once per process, cached). They are *checked-hash* pycs
(PEP 552): the importer compares the hash of the copy's own source with the one stored in
the pyc and compiles the source when they differ, so a pyc can never stand for a source it
was not made from (the mutated file gets none, and were it given one, its hash would not
match); the importer sets each code object's file name to the copy's path
(``_imp._fix_co_filename``), so tracebacks name the copy, as before. What runs is the same
code; only the compiling is saved (~0.03 CPU s of a candidate's start, measured with the
reference's 17 modules).
"""

from __future__ import annotations

import functools
import importlib.util
import py_compile
import shutil
import sys
import tempfile
import threading
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


def edited_files(mutant: Mutant, reference: Path | None = None) -> dict[str, str]:
    """The files the mutant's edits change, as text (file -> the edited text); an edit that
    no longer applies raises ``PatchDoesNotApply``. This parses (``anchors.parse``)."""
    reference = Path(reference or reference_dir(mutant))
    files: dict[str, str] = {}
    for edit in mutant.edits:
        try:
            text = files.get(edit.file)
            if text is None:
                text = (reference / edit.file).read_text(encoding="utf-8")
            files[edit.file] = apply_edit(text, edit)
        except (EditDoesNotApply, FileNotFoundError) as exc:
            raise PatchDoesNotApply(f"{mutant.id}: {exc}") from None
    return files


_PREPARED: dict[tuple, dict[str, str] | PatchDoesNotApply] = {}   # (id, edits, reference) -> files or problem


def prepare(mutants, reference: Path | None = None) -> None:
    """Apply the mutants' edits now, in this thread (``edited_files``), so that ``materialize``
    later (in a task's thread) only copies and writes: the mutant runner calls this before it
    fans out, so no Python source is parsed in a thread."""
    for mutant in mutants:
        key = (mutant.id, mutant.edits, str(reference or reference_dir(mutant)))
        if key not in _PREPARED:
            try:
                _PREPARED[key] = edited_files(mutant, reference)
            except PatchDoesNotApply as exc:
                _PREPARED[key] = exc
        reference_bytecode(Path(reference or reference_dir(mutant)))   # compiled here, before any fan-out


def prepared(mutant: Mutant) -> dict:
    """The mutant's edited files as data (``{"files": {...}}``, or ``{"stale": reason}``), to send
    with a task, so the worker parses nothing (``remember``)."""
    prepare([mutant])
    found = _PREPARED[(mutant.id, mutant.edits, str(reference_dir(mutant)))]
    return {"stale": str(found)} if isinstance(found, PatchDoesNotApply) else {"files": dict(found)}


def remember(mutant: Mutant, data: dict) -> None:
    """Keep what ``prepared`` sent for ``mutant``, for ``materialize``."""
    key = (mutant.id, mutant.edits, str(reference_dir(mutant)))
    _PREPARED[key] = PatchDoesNotApply(data["stale"]) if "stale" in data else dict(data["files"])


def materialize(mutant: Mutant, root: Path, *, reference: Path | None = None) -> Path:
    """Copy ``reference`` (default ``reference_dir(mutant)``) to ``root/<mutant.package>``
    and apply the mutant's edits there (as ``prepare`` left them, when it did); one that no
    longer applies raises ``PatchDoesNotApply``."""
    source = Path(reference or reference_dir(mutant))
    files = _PREPARED.get((mutant.id, mutant.edits, str(source)))
    if files is None:
        files = edited_files(mutant, source)
    elif isinstance(files, PatchDoesNotApply):
        raise PatchDoesNotApply(str(files))
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    for file, text in files.items():
        (target / file).write_text(text, encoding="utf-8")
    _write_bytecode(target, source, changed=set(files))
    return target


def materialize_generated(mutant, root: Path) -> Path:
    """Copy the reference to ``root/<mutant.package>`` and write the mutated file into the copy."""
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(REFERENCE_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / mutant.file).write_text(mutant.source, encoding="utf-8")
    _write_bytecode(target, REFERENCE_DIR, changed={mutant.file})
    return target


_BYTECODE_LOCK = threading.Lock()


def reference_bytecode(source: Path) -> dict[str, bytes]:
    """file name -> the checked-hash pyc of that module of the package at ``source``
    (compiled once per process and per state of its files: their names, sizes and times)."""
    files = sorted(Path(source).glob("*.py"))
    state = tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    with _BYTECODE_LOCK:
        return _compiled(str(source), state)


@functools.lru_cache(maxsize=4)
def _compiled(source: str, state: tuple) -> dict[str, bytes]:
    found = {}
    with tempfile.TemporaryDirectory(prefix="constrain-pyc-") as scratch:
        for name, _, _ in state:
            pyc = Path(scratch) / (name + "c")
            py_compile.compile(str(Path(source) / name), cfile=str(pyc), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            found[name] = pyc.read_bytes()
    return found


def _write_bytecode(target: Path, source: Path, changed: set[str]) -> None:
    """The reference's pyc of every module of the copy the mutant leaves unchanged, in the copy's
    ``__pycache__`` (see the module docstring: checked-hash, so never used for another source)."""
    for name, data in reference_bytecode(source).items():
        if name in changed:
            continue
        pyc = Path(importlib.util.cache_from_source(str(target / name)))
        pyc.parent.mkdir(exist_ok=True)
        pyc.write_bytes(data)


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
