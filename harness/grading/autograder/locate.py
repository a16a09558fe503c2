"""Find the student's ``constrain`` module inside a submission folder.

The seed (``000_4b494d6fc237472e.txt``, "You build") puts the module at
``python/tinyllm/infer/constrain.py``. Students also upload the file alone, or the
whole repository one folder deeper, or a package ``constrain/`` with an
``__init__.py``. ``locate_module(folder)`` tries, in order:

1. the spec's place: ``python/tinyllm/infer/constrain.py`` (or the package
   ``python/tinyllm/infer/constrain/``);
2. the top of the folder: ``constrain.py`` or ``constrain/``;
3. anywhere below (at most ``MAX_DEPTH`` folders deep, ``MAX_ENTRIES`` entries looked
   at): the one ``constrain.py`` / ``constrain/`` package, if there is exactly one
   outside test folders.

When nothing is found, the message lists the top of the upload, a near miss
(``python/tinyllm/infer/constrian.py``: "did you mean constrain.py? ... rename it") and
what a ``.zip`` upload holds (archives are listed, never unpacked).

Guarantee: it returns a path that is inside ``folder`` (symbolic links are never
followed out of it) or raises ``SubmissionError`` (a ``ValueError``) whose message says
what was looked for and what was found, e.g. "2 files could be constrain.py:
a/constrain.py, b/constrain.py; keep one". It never imports or runs anything.

Example::

    >>> locate_module(Path("/autograder/submission"))
    PosixPath('/autograder/submission/python/tinyllm/infer/constrain.py')
"""

from __future__ import annotations

import difflib
import os
import re
import zipfile
from pathlib import Path

__all__ = ["SubmissionError", "locate_module", "impl_target", "syntax_problem", "SPEC_PATH", "MAX_DEPTH",
           "MAX_ENTRIES"]

SPEC_PATH = Path("python", "tinyllm", "infer", "constrain.py")
MODULE = "constrain"
MAX_DEPTH = 8            # folders below the submission searched for a unique module
MAX_ENTRIES = 20_000     # directory entries looked at before giving up (a hostile upload)
NEAR_MISS_CUTOFF = 0.75   # difflib ratio from which a name is suggested ("constrian" -> "constrain": 0.89)
MAX_ARCHIVE_BYTES = 2 * 2**20   # a .zip larger than this is named, never opened (its listing could be huge)
MAX_ARCHIVE_NAMES = 2_000       # names of an archive's listing looked at
_SKIPPED_DIRS = {"__pycache__", ".git", "node_modules", ".venv", "venv", "site-packages"}


class SubmissionError(ValueError):
    """The submission holds no gradable module (missing, ambiguous, unreadable, bad syntax)."""


def locate_module(folder: Path) -> Path:
    """The student's module (a ``.py`` file or a package folder) inside ``folder``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SubmissionError(f"no submission folder at {folder}")
    for relative in (SPEC_PATH, Path(MODULE + ".py")):
        found = _module_at(folder, relative)
        if found is not None:
            return found
    found = _search(folder)
    if not found:
        raise SubmissionError(f"no {MODULE}.py in the submission: expected it at {SPEC_PATH} (the spec's "
                              f"layout) or at the top of the upload; files seen: {_listing(folder)}"
                              f"{_suggestions(folder)}")
    if len(found) > 1:
        names = ", ".join(str(p.relative_to(folder)) for p in found[:6])
        raise SubmissionError(f"{len(found)} files could be {MODULE}.py in the submission: {names}; "
                              f"keep one, or put it at {SPEC_PATH}")
    return found[0]


def _module_at(folder: Path, relative: Path) -> Path | None:
    """``folder/relative`` as a file, or its package folder ``.../constrain/``, if it
    exists inside ``folder`` without a symbolic link on the way."""
    for path in (folder / relative, folder / relative.with_suffix("") / "__init__.py"):
        if _is_regular_inside(folder, path):
            return path if path.name != "__init__.py" else path.parent
    return None


def _is_regular_inside(folder: Path, path: Path) -> bool:
    """Return True if and only if ``path`` is a regular file reached from ``folder``
    without a symbolic link anywhere on the way."""
    try:
        return path.is_file() and path.resolve() == folder.resolve() / path.relative_to(folder)
    except (OSError, ValueError):
        return False


def _search(folder: Path) -> list[Path]:
    """Every ``constrain.py`` / ``constrain/__init__.py`` below ``folder`` outside test
    folders, breadth first, within the depth and entry bounds."""
    found = []
    try:
        for entry in _walk(folder, _search_descends):
            path = Path(entry.path)
            if entry.is_file() and entry.name == MODULE + ".py" or _is_module_package(entry):
                found.append(path)
    except _TooMany:
        raise SubmissionError(f"the submission has more than {MAX_ENTRIES} files and folders: "
                              f"upload only your repository's python/ folder") from None
    return found


def _is_module_package(entry: os.DirEntry) -> bool:
    return entry.is_dir() and entry.name == MODULE and (Path(entry.path) / "__init__.py").is_file()


def _search_descends(entry: os.DirEntry) -> bool:
    return not _is_module_package(entry) and entry.name not in _SKIPPED_DIRS and not _is_test_dir(entry.name)


class _TooMany(Exception):
    """A walk met more than ``MAX_ENTRIES`` entries."""


def _walk(folder: Path, descends):
    """Every entry below ``folder`` but symlinks, breadth first (sorted by name per folder),
    at most ``MAX_DEPTH`` folders deep; a folder is entered when ``descends(entry)``.
    Raises ``_TooMany`` once more than ``MAX_ENTRIES`` entries were listed."""
    seen = 0
    level = [folder]
    for _depth in range(MAX_DEPTH + 1):
        below = []
        for directory in level:
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError:
                continue
            seen += len(entries)
            if seen > MAX_ENTRIES:
                raise _TooMany
            for entry in entries:
                if entry.is_symlink():
                    continue
                yield entry
                if entry.is_dir() and descends(entry):
                    below.append(Path(entry.path))
        level = below


def _is_test_dir(name: str) -> bool:
    return name in ("tests", "test") or name.startswith("l8-7")


def _listing(folder: Path, limit: int = 8) -> str:
    try:
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    except OSError as exc:
        return f"(unreadable: {exc.strerror})"
    if not names:
        return "(the upload is empty)"
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def syntax_problem(module: Path, label: str | None = None) -> str | None:
    """The first syntax error in the module's source files, as one line, or None.

    Compiles (never runs) ``module`` (a file) or every ``.py`` of a package folder, so a
    student sees "SyntaxError in constrain.py line 3: ..." rather than a crashed run;
    ``label`` names a one-file module as the student named it (the grader's copy is
    ``constrain.py``). A source too deep for the compiler (``RecursionError``,
    ``MemoryError``) is left to check, which reports what its import does."""
    files = [module] if module.is_file() else sorted(module.rglob("*.py"))
    for path in files:
        where = (label or path.name) if module.is_file() else str(path.relative_to(module.parent))
        try:
            source = path.read_bytes()
            compile(source, str(path), "exec", dont_inherit=True)
        except SyntaxError as exc:
            marker = conflict_marker(source)
            if marker is not None:   # e.g. "<<<<<<< HEAD" at line 12: git's, not a typo
                return (f"SyntaxError in {where} line {marker}: merge conflict markers left in the file "
                        f"(<<<<<<<, =======, >>>>>>>): resolve the conflict and keep one side")
            return f"SyntaxError in {where} line {exc.lineno}: {exc.msg}"
        except (OSError, ValueError) as exc:  # unreadable, or a NUL byte in the source
            return f"cannot read {where}: {exc}"
        except (RecursionError, MemoryError):
            continue
    return None


_CONFLICT = re.compile(rb"^(?:<{7}|={7}|>{7}|\|{7})(?: |\r?$)", re.MULTILINE)


def conflict_marker(source: bytes) -> int | None:
    """The line of the first merge-conflict marker in ``source`` (``<<<<<<< HEAD``,
    ``=======``, ``>>>>>>> branch``, diff3's ``|||||||``), or None."""
    found = _CONFLICT.search(source)
    return None if found is None else source.count(b"\n", 0, found.start()) + 1


# --------------------------------------------------------------------------- when nothing is found


def _suggestions(folder: Path) -> str:
    """What a student most likely meant, as ``"; did you mean ..."`` clauses, or ``""``:
    a file or package whose name is close to ``constrain.py`` (``difflib``, e.g.
    ``constrian.py``), and an archive (``.zip``) holding a ``constrain.py``, listed but never
    unpacked (one larger than ``MAX_ARCHIVE_BYTES`` is named, not opened). Bounded like
    the search: ``MAX_DEPTH`` folders, ``MAX_ENTRIES`` entries."""
    near, archives = [], []
    try:
        for entry in _walk(folder, lambda entry: entry.name not in _SKIPPED_DIRS):
            relative = str(Path(entry.path).relative_to(folder))
            if entry.is_file() and entry.name.lower().endswith(".zip"):
                archives.append((relative, Path(entry.path)))
            elif _close_to_module(entry):
                near.append(relative + ("/" if entry.is_dir() else ""))
    except _TooMany:
        pass   # what was seen so far
    return _clauses(near, archives)


def _close_to_module(entry: os.DirEntry) -> bool:
    name = entry.name.lower()
    if entry.is_file() and name.endswith(".py"):
        return bool(difflib.get_close_matches(name[:-3], [MODULE], n=1, cutoff=NEAR_MISS_CUTOFF))
    return entry.is_dir() and bool(difflib.get_close_matches(name, [MODULE], n=1, cutoff=NEAR_MISS_CUTOFF))


def _clauses(near: list[str], archives: list[tuple[str, Path]]) -> str:
    out = []
    if near:
        out.append(f"did you mean {MODULE}.py? found {', '.join(near[:4])} (rename it to {MODULE}.py"
                   + (f", or {MODULE}/ for a package" if any(n.endswith("/") for n in near) else "") + ")")
    for relative, path in archives[:3]:
        out.append(f"{relative} is an archive ({_archive_contents(path)}): upload the files themselves, not the "
                   f"archive (archives are not unpacked)")
    return "".join(f"; {clause}" for clause in out)


def _archive_contents(path: Path) -> str:
    """The interesting part of a zip's listing: where its ``constrain.py`` is, else a few names."""
    try:
        if path.stat().st_size > MAX_ARCHIVE_BYTES:
            return f"larger than {MAX_ARCHIVE_BYTES // 2**20} MiB, not opened"
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist()[:MAX_ARCHIVE_NAMES] if not n.endswith("/")]
    except (OSError, zipfile.BadZipFile, ValueError, RuntimeError) as exc:
        return f"unreadable: {type(exc).__name__}"
    modules = [n for n in names if n.rsplit("/", 1)[-1] == f"{MODULE}.py"]
    if modules:
        return f"it holds {', '.join(modules[:3])}"
    return f"{len(names)} files: {', '.join(names[:6])}" + (", ..." if len(names) > 6 else "") if names else "empty"


# --------------------------------------------------------------------------- check --impl, as the batch reads it


def impl_target(impl: str) -> str:
    """What ``check --impl IMPL`` grades, found as the batch finds a submission's module:
    a module name, a ``.py`` file or a package folder as given; a student's folder (no
    ``__init__.py``) through ``locate_module`` (the spec's layout, the top, the one module
    below); anything else a ``SubmissionError`` in one line with the batch's words: a path
    that does not exist (with the names close to it), a ``.zip`` (archives are not
    unpacked: what it holds), a folder with no module.

    e.g. ``impl_target("class/chen")`` -> ``"class/chen/python/tinyllm/infer/constrain.py"``."""
    path = Path(impl)
    if not ("/" in impl or impl.endswith((".py", ".zip")) or os.path.lexists(path)):
        return impl   # a module name, imported from the current folder
    if not os.path.lexists(path):
        parent = path.parent if str(path.parent) else Path(".")
        near = difflib.get_close_matches(path.name, os.listdir(parent), n=3) if parent.is_dir() else []
        raise SubmissionError(f"no such .py file or folder: {impl}"
                              + (f"; did you mean {', '.join(str(parent / n) for n in near)}?" if near else
                                 "" if parent.is_dir() else f" (the folder {parent} does not exist)"))
    if path.is_file() and impl.lower().endswith(".zip"):
        raise SubmissionError(_clauses([], [(impl, path)]).removeprefix("; "))
    if path.is_dir() and not (path / "__init__.py").is_file():
        path = locate_module(path)
    problem = syntax_problem(path) if path.is_file() else None
    if problem is not None and "merge conflict markers" in problem:   # named, in one line, before any run
        raise SubmissionError(problem)
    return str(path) if path != Path(impl) else impl
