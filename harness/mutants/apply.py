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
(``harness.mutants.generation``): the copy with one file replaced by the mutant's text, and
the bytecode of every other file (``compiled_reference``: compiled once per process, so the
confined candidate, the fingerprint and the evidence children of each of the run's mutants
read it instead of compiling the reference anew; the mutated file has none, so it is
compiled from the mutant's text).
``load(path)`` imports it under its own name in this process.
"""

from __future__ import annotations

import atexit
import compileall
import importlib.util
import os
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
    return target


def materialize_generated(mutant, root: Path) -> Path:
    """Copy the reference, with its bytecode (``compiled_reference``), to ``root/<mutant.package>``
    and write the mutated file into the copy, removing that file's bytecode."""
    target = Path(root) / mutant.package
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(compiled_reference(), target)   # copy2: each source keeps the mtime its .pyc records
    (target / mutant.file).write_text(mutant.source, encoding="utf-8")
    for stale in (target / "__pycache__").glob(f"{Path(mutant.file).stem}.*.pyc"):
        stale.unlink()
    return target


_COMPILED: list[Path] = []
_COMPILED_LOCK = threading.Lock()


def compiled_reference() -> Path:
    """A private copy of the reference with every module's bytecode (``compileall``, timestamp
    pycs: Python reads one only while its source's mtime and size match it, else compiles the
    source), made once per process and removed at the exit of that process (not by a forked child
    that exits normally: it shares the copy with its parent, ``remove_if_own``). The checkout's own
    ``__pycache__`` is never used (it may be absent, or written by another Python)."""
    with _COMPILED_LOCK:
        if not _COMPILED:
            folder = Path(tempfile.mkdtemp(prefix="constrain-reference-")) / REFERENCE_DIR.name
            shutil.copytree(REFERENCE_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
            if not compileall.compile_dir(str(folder), quiet=2, workers=1):
                raise RuntimeError(f"the reference copy {folder} does not compile")
            atexit.register(remove_if_own, str(folder.parent), os.getpid())
            _COMPILED.append(folder)
        return _COMPILED[0]


def remove_if_own(folder: str, maker: int) -> None:
    """An ``atexit`` handler: remove ``folder`` only in the process ``maker`` that made it (a
    forked child inherits its parent's handlers and would otherwise remove what the parent uses)."""
    if os.getpid() == maker:
        shutil.rmtree(folder, ignore_errors=True)


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
