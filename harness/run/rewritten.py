"""pytest's rewritten bytecode of the catalogue, written before a run takes its manifest, never during one.

A grader child imports the catalogue's test modules, its ``conftest.py`` and its plugin through
pytest's assertion rewriter (``REWRITTEN``: pytest rewrites the ``test_*.py`` and ``conftest.py``
it collects and every ``-p`` plugin). pytest caches the rewritten code in a ``.pyc`` of its own
beside Python's (``__pycache__/NAME.cpython-311-pytest-9.2.0.pyc``, checked by the source's hash),
but a grader child starts with ``-B`` and ``PYTHONDONTWRITEBYTECODE`` (nothing may appear in the
verified tree while a candidate runs: ``harness.sandbox.bytecode``), so pytest never wrote it and
each grader child parsed, rewrote and compiled those modules again: 0.03-0.04 CPU s of each
child's start, two children a ``check`` (a CPU-time sampler in the grader children, 2026-12-07,
``docs/performance.md``).

``refresh()`` writes, for each of ``REWRITTEN`` whose pytest cache file is missing or names
another source, the file pytest itself would write there, made by pytest's own functions
(``_pytest.assertion.rewrite._rewrite_test`` and ``_write_pyc_fp``, without a config: the
rewriter's one compile-time setting, the assertion-pass hook, off, as ``launch.pytest_arguments``
pins it with ``-o enable_assertion_pass_hook=false``). ``harness.grading.check.run_check`` calls
it just before it takes the run's manifest, so the files it writes are part of what the run
verifies.

**Not for a module whose code reads otherwise from a file.** A ``.pyc`` holds the code
``marshal``'d, and a set constant (``x in {2, 3, 11}``, ``allowed={2, 3, 11}``) comes back from
``marshal`` with its members in another order where they collide in the set's table: a failure
message that prints it would read ``{11, 2, 3}`` where the code compiled in memory printed
``{3, 2, 11}`` (``test_masks.test_constraint_lifecycle``'s expected mask; found by comparing
``check``'s reports before and after). A module whose code, loaded back from its ``.pyc``, iterates
any set constant in another order than the code compiled in memory (``same_when_loaded``) gets no
``.pyc`` (one found there, stale or written by another process that imported the module under pytest's
rewriter without ``-B``, is removed before each run: pytest reads it even under ``-B``): pytest
rewrites it in memory as before, and every report reads byte for byte as before.

Invariants (those of ``harness.sandbox.bytecode``):

- nothing but ``.pyc`` files in ``__pycache__`` folders is ever added under the catalogue: each
  file is written to a temporary file in ``staging`` (the folder holding the packages, which no
  manifest covers) and moved into place with one ``os.replace``;
- pytest reads a cache file only where its recorded hash is the source's (``_read_pyc``), so a
  source changed since never runs as stale code: pytest rewrites it as before;
- it never raises: a read-only installation, a pytest without these functions, or
  ``sys.pycache_prefix`` set (the grader children would look elsewhere) writes nothing, and pytest
  rewrites as before; ``CONSTRAIN_HARNESS_BYTECODE=0`` turns it off with the rest of the bytecode.

Example::

    >>> refresh() >= 0
    True
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
import tempfile
import types
from pathlib import Path

from harness.run.launch import SUITE_DIR
from harness.sandbox import bytecode

__all__ = ["REWRITTEN", "cache_file", "refresh", "same_when_loaded"]

PLUGIN = "plugin.py"   # the ``-p harness.suite.plugin`` of ``launch.pytest_arguments``


def _rewritten() -> tuple[Path, ...]:
    names = sorted(p.name for p in SUITE_DIR.glob("*.py")
                   if p.name == "conftest.py" or p.name == PLUGIN or p.name.startswith("test_"))
    return tuple(SUITE_DIR / name for name in names)


REWRITTEN = _rewritten()
"""The catalogue's modules pytest's assertion rewriter imports in a grader child: its ``conftest.py``,
its plugin and its ``test_*.py`` (pytest's default ``python_files``; a file it would not rewrite only
costs a file nobody reads)."""


def _pytest_rewrite():
    """pytest's rewriter module, or None (not importable, or without the functions used here)."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return None
    needed = ("PYC_TAIL", "_rewrite_test", "_write_pyc_fp")
    return rewrite if all(hasattr(rewrite, name) for name in needed) else None


def cache_file(source: Path) -> Path | None:
    """The file where pytest looks for ``source``'s rewritten code (None: no pytest to ask)."""
    rewrite = _pytest_rewrite()
    if rewrite is None:
        return None
    return source.parent / "__pycache__" / (source.name[:-3] + rewrite.PYC_TAIL)


def same_when_loaded(code: types.CodeType) -> bool:
    """Whether ``code``, loaded back from ``marshal`` (as from a ``.pyc``), iterates every set
    constant (in it and its nested code, tuples and sets) in the same order."""
    return _set_orders(code) == _set_orders(marshal.loads(marshal.dumps(code)))


def _set_orders(value) -> list:
    orders: list = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, types.CodeType):
            stack.extend(reversed(item.co_consts))
        elif isinstance(item, (frozenset, set)):
            orders.append([repr(member) for member in item])
            stack.extend(reversed(list(item)))
        elif isinstance(item, tuple):
            stack.extend(reversed(item))
    return orders


_IN_MEMORY: dict[Path, bytes] = {}
"""The sources (and their hash) this process found to be compiled in memory (``same_when_loaded``
false): not rewritten again here while unchanged. At most ``MAX_IN_MEMORY`` entries."""
MAX_IN_MEMORY = 64

_SAFE: dict[Path, bytes] = {}
"""The sources (and their hash) whose cache file this process wrote (``same_when_loaded`` true), so a
fresh one holding set constants is not rewritten again here. At most ``MAX_IN_MEMORY`` entries."""


def refresh(sources: tuple[Path, ...] | None = None, staging: Path | None = None) -> int:
    """Write pytest's rewritten bytecode of each of ``sources`` (default ``REWRITTEN``) where it is
    missing or stale; return how many files were written (module docstring)."""
    rewrite = _pytest_rewrite()
    if rewrite is None or not bytecode.enabled() or sys.flags.optimize or sys.pycache_prefix:
        return 0
    staging = Path(staging) if staging is not None else SUITE_DIR.parents[1]
    written = 0
    for source in REWRITTEN if sources is None else sources:
        try:
            data = source.read_bytes()
        except OSError:
            continue
        target = source.parent / "__pycache__" / (source.name[:-3] + rewrite.PYC_TAIL)
        source_hash = importlib.util.source_hash(data)
        if _IN_MEMORY.get(source) == source_hash:
            _remove(target)   # another process (a test's import, pytest run by hand) may have written one
            continue
        if _fresh(target, source_hash) and (_SAFE.get(source) == source_hash or not _holds_sets(target)):
            continue
        done = _write(rewrite, source, target, staging)
        if done is None:
            while len(_IN_MEMORY) >= MAX_IN_MEMORY:
                del _IN_MEMORY[next(iter(_IN_MEMORY))]
            _IN_MEMORY[source] = source_hash
        elif done:
            while len(_SAFE) >= MAX_IN_MEMORY:
                del _SAFE[next(iter(_SAFE))]
            _SAFE[source] = source_hash
        written += bool(done)
    return written


def _holds_sets(target: Path) -> bool:
    """Whether the cache file ``target`` holds a set constant (or cannot be read as code): then whether
    pytest may read it is decided by rewriting its source (``same_when_loaded``), as when it is missing.
    A cache file is not always this module's: a process that imports a catalogue module under pytest's
    rewriter without ``-B`` (a test's import, pytest run by hand) writes it in ``marshal``'s order."""
    try:
        with open(target, "rb") as cache:
            code = marshal.loads(cache.read()[16:])
    except (OSError, ValueError, EOFError, TypeError):
        return True
    return bool(_set_orders(code))


def _fresh(target: Path, source_hash: bytes) -> bool:
    """Whether ``target`` is a pytest cache file pytest would read for a source of ``source_hash``."""
    try:
        with open(target, "rb") as cache:
            header = cache.read(16)
    except OSError:
        return False
    return (len(header) == 16 and header[:4] == importlib.util.MAGIC_NUMBER and header[4:8] == b"\x03\x00\x00\x00"
            and header[8:16] == source_hash[:8])


def _write(rewrite, source: Path, target: Path, staging: Path) -> bool | None:
    """Write ``target``; whether it was written, None where the module is to be compiled in memory."""
    if os.path.islink(target.parent):   # not a cache folder of ours: the manifest lists the link
        return False
    try:
        # no config: the rewriter's one compile-time setting, the assertion-pass hook, off (pinned so in the
        # grader child by launch.pytest_arguments)
        source_hash, code = rewrite._rewrite_test(source, None)
    except (OSError, SyntaxError, ValueError, TypeError):
        return False
    if not same_when_loaded(code):   # its set constants would read otherwise: pytest compiles it in memory
        _remove(target)
        return None
    try:
        handle, temporary = tempfile.mkstemp(prefix=".constrain-harness-rewritten-", suffix=".pyc", dir=staging)
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as out:
            rewrite._write_pyc_fp(out, source_hash, code)
        os.chmod(temporary, 0o644)
        target.parent.mkdir(exist_ok=True)
        os.replace(temporary, target)
        return True
    except (OSError, ValueError):
        return False
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _remove(target: Path) -> None:
    try:
        os.unlink(target)   # never through a link: the entry itself
    except OSError:
        pass
