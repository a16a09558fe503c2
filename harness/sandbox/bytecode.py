"""The harness's compiled bytecode: written before a run takes its manifest, never during one.

Every process of a run starts with ``PYTHONDONTWRITEBYTECODE=1`` and ``-B``
(``harness.sandbox.isolated.GRADER_PYTHON_ENV``, ``harness.sandbox.confine.FIXED_ENV``): nothing
may appear in the verified tree while a candidate runs (``harness.sandbox.files``). An
installation from a wheel has its ``.pyc`` files (pip compiles them); a checkout installed
editable, where nothing compiles the packages, had none, so each process of a run compiled
every module of the harness it imported from source: a grader child imports about 290 of them
(~0.2 CPU s of compiling each time, two grader children in a ``check``), the verb and the
candidate process behind the wall more.

``refresh(roots)`` writes, for each ``.py`` file under ``roots`` whose bytecode cache is missing
or stale, the ``.pyc`` Python itself would write there (``importlib.util.cache_from_source``;
timestamp-validated, as ``py_compile`` writes it). ``take_manifest(roots)`` is ``refresh`` then
``Manifest.take``: every process that takes a run's manifest calls it (``harness.sandbox.guard``,
``harness.grading.check``, grade-tests, the golden replay's session), so the files it writes
are part of what the run verifies, and a ``.pyc`` changed during a run is
still deleted by ``verify`` (a forged one does not outlive the run).

Invariants:

- nothing but ``__pycache__`` folders and ``.pyc`` files is ever added under ``roots``: each file
  is compiled into a temporary file in ``staging`` (the folder holding the packages, which no
  manifest covers) and moved into place with one ``os.replace``, so a concurrent run verifying
  its manifest never sees a half-written file or importlib's temporary names
  (``x.pyc.140213``);
- a source changed between its compile and the move leaves a ``.pyc`` whose header names the old
  mtime and size: Python ignores it and compiles the source (never runs stale code);
- it never raises for the file system (a read-only installation, a full disk): what it cannot
  write stays uncompiled, as before;
- bounded by the installed packages (about 400 files); a fresh tree costs one ``stat`` and a
  16-byte read a file (~5 ms).

``CONSTRAIN_HARNESS_BYTECODE=0`` turns it off (the harness then writes no bytecode at all).

Example::

    >>> from harness.paths import protected_roots
    >>> refresh(protected_roots()) >= 0
    True
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
import tempfile
from pathlib import Path

from harness.sandbox.files import Manifest

SWITCH = "CONSTRAIN_HARNESS_BYTECODE"
_MAGIC = importlib.util.MAGIC_NUMBER
_HEADER = 16  # magic, flags, source mtime, source size (PEP 552, timestamp-based)


def enabled() -> bool:
    """Whether ``refresh`` writes anything (``CONSTRAIN_HARNESS_BYTECODE`` is not ``0``)."""
    return os.environ.get(SWITCH, "1") != "0"


def take_manifest(roots: list[Path]) -> Manifest:
    """``refresh(roots)``, then the manifest of ``roots`` (what the run verifies after it)."""
    refresh(roots)
    return Manifest.take(roots)


def refresh(roots: list[Path], staging: Path | None = None) -> int:
    """Compile every ``.py`` under ``roots`` whose ``.pyc`` is missing or stale; return how many
    were written. ``staging``: where temporary files are made (default: the folder holding the
    first root, outside every root)."""
    if not enabled() or sys.flags.optimize or not roots:
        return 0  # -O names its caches .opt-1.pyc: the run's processes (no -O) would not read them
    staging = Path(staging) if staging is not None else Path(roots[0]).parent
    written = 0
    for root in roots:
        for source in _sources(Path(root)):
            if not _fresh(source) and _write(source, staging):
                written += 1
    return written


def _sources(root: Path):
    """The ``.py`` files under ``root``, links never followed (a linked file or folder is not
    the harness's own: the manifest lists it as a link)."""
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders
                      if name != "__pycache__" and not os.path.islink(os.path.join(folder, name))]
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and not os.path.islink(path):
                yield Path(path)


def _fresh(source: Path) -> bool:
    """Whether the ``.pyc`` Python would read for ``source`` is there and names its mtime and size."""
    try:
        stat = source.stat()
        with open(importlib.util.cache_from_source(str(source)), "rb") as cache:
            header = cache.read(_HEADER)
    except OSError:
        return False
    if len(header) < _HEADER or header[:4] != _MAGIC:
        return False
    flags = int.from_bytes(header[4:8], "little")
    if flags != 0:  # a hash-based .pyc (PEP 552): valid as Python checks it; not ours to rewrite
        return True
    mtime, size = int.from_bytes(header[8:12], "little"), int.from_bytes(header[12:16], "little")
    return mtime == (int(stat.st_mtime) & 0xFFFFFFFF) and size == (stat.st_size & 0xFFFFFFFF)


def _write(source: Path, staging: Path) -> bool:
    """Compile ``source`` into a temporary file in ``staging``, then move it into place."""
    target = Path(importlib.util.cache_from_source(str(source)))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".constrain-harness-bytecode-", suffix=".pyc", dir=staging)
    except OSError:
        return False
    os.close(handle)
    try:
        py_compile.compile(str(source), cfile=temporary, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
        os.chmod(temporary, 0o644)
        if os.path.islink(target.parent):  # not a cache folder of ours: the manifest lists the link
            return False
        target.parent.mkdir(exist_ok=True)
        os.replace(temporary, target)
        return True
    except (OSError, py_compile.PyCompileError, SyntaxError, ValueError):
        return False
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
