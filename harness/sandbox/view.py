"""What the candidate's process sees of the file system: the harness's packages as lent
(``harness.sandbox.lending``), with the golden answers read as empty, and the candidate's own
folders, each bound as itself or as a world-readable copy.

``harness_binds(scratch, others, lent)`` gives the binds of the harness (its packages only,
never the rest of a checkout); ``readable(folder, scratch)`` the bind of one candidate folder;
``outermost(folders)`` drops folders another one holds; ``harness_own(folder)`` says whether a
folder is the harness's (bound already). A folder that cannot be handed over (not
world-readable while the candidate runs as nobody, and past ``MAX_COPY_BYTES`` or
``MAX_COPY_ENTRIES``) raises ``CandidateFolderError`` before any process starts.

Invariant: the candidate's process sees no file of the harness beyond ``lent``'s share, no
golden file's content (inputs in, answers out: ``harness.sandbox``), and its own folders at
the paths they have in the grader's file system. The binds are data for ``confine.plan``;
nothing here starts a process.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from harness.paths import protected_roots
from harness.sandbox import confine, lending

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
MAX_COPY_BYTES = 64 << 20  # a candidate folder copied to be readable by nobody, at most
MAX_COPY_ENTRIES = 10_000  # ... and at most this many files and folders (the walk stops past either)


class CandidateFolderError(ValueError):
    """The candidate's folder cannot be handed to its process (``readable``): a usage error
    of whoever named the candidate, decided before any process starts."""


def harness_binds(scratch: Path, others: list, lent: lending.Lending) -> list:
    """What of the harness a candidate's sandbox holds: its packages only, never the rest of
    a checkout (its tests, docs, or a class folder, report or batch state a TA left there).
    The checkout's folder is an empty read-only stand-in made in ``scratch``, holding an
    empty folder as the mount point of each package and of every other bind inside the
    checkout (``others``, the interpreter's: a venv in the checkout), bound before them. An
    installed harness (its packages in site-packages, which the interpreter binds whole)
    is bound as it is. Of each package, ``lent``'s share only (``harness.sandbox.lending``:
    for a student's candidate, its server's files and nothing else)."""
    interpreter = confine.interpreter_paths()
    golden = PACKAGE_ROOT / "golden"
    hidden = _golden_answers_hidden(scratch) if (golden, golden) in lent.binds else []
    if PACKAGE_ROOT in interpreter:
        return [PACKAGE_ROOT, *lent.binds, *hidden]
    stand_in = scratch / "harness-root"
    stand_in.mkdir()
    for other in [*protected_roots(), *interpreter, *others]:
        dest = Path(other if isinstance(other, Path) else other[1])
        if PACKAGE_ROOT in dest.parents:
            (stand_in / dest.relative_to(PACKAGE_ROOT)).mkdir(parents=True, exist_ok=True)
    for folder in [stand_in, *stand_in.rglob("*")]:
        folder.chmod(0o755)
    lent_packages = {dest for _, dest in lent.binds}
    own = [root for root in protected_roots() if root not in lent_packages]
    return [(stand_in, PACKAGE_ROOT), *own, *lent.binds, *hidden]


def harness_own(folder: Path) -> bool:
    """Whether ``folder`` is the harness's root or inside one of its packages (bound already)."""
    folder = Path(folder).resolve()
    return folder == PACKAGE_ROOT or any(root == folder or root in folder.parents for root in protected_roots())


def _golden_answers_hidden(scratch: Path) -> list:
    """The golden files (``golden/*.json``: expected masks, tables and tool events) read as
    empty inside the sandbox: an empty file of ``scratch`` bound over each (the wall's rule,
    inputs in, answers out, holds for the file system too; not ``/dev/null``, a device the
    sandbox's read-only binds do not open). The candidate's process needs none of them: it
    imports ``golden``'s modules only for the tools contract's names."""
    empty = scratch / "empty"
    empty.touch(mode=0o644)
    empty.chmod(0o644)
    return [(empty, path) for path in sorted((PACKAGE_ROOT / "golden").glob("*.json"))]


def outermost(folders: list[Path]) -> list[Path]:
    """``folders`` without those inside another of them (one bind holds both)."""
    return [f for f in folders if not any(o != f and f.is_relative_to(o) for o in folders)]


def readable(folder: Path, scratch: Path):
    """``folder`` as the candidate process will read it: itself, or, when the candidate
    runs as nobody and some file there is not world-readable (a folder made by mkdtemp,
    a home of mode 700), a world-readable copy bound at the same path."""
    if not confine.runs_as_nobody() or _world_readable(folder):
        return folder
    too_large = _past_copy_bounds(folder)
    if too_large:
        raise CandidateFolderError(f"the candidate's folder {folder} {too_large} and is not world-readable: make it "
                                   f"readable or move the candidate to its own folder")
    copy = Path(tempfile.mkdtemp(prefix="readable-", dir=scratch)) / folder.name
    shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    copy.chmod(0o755)
    for path in copy.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return (copy, folder)


def _past_copy_bounds(folder: Path) -> str | None:
    """What puts ``folder`` past ``MAX_COPY_BYTES`` or ``MAX_COPY_ENTRIES`` (regular files'
    sizes; symbolic links neither followed nor counted), or None. The walk stops as soon as
    either bound is passed: a candidate beside a home's worth of files costs no full scan."""
    size = entries = 0
    for path in folder.rglob("*"):
        entries += 1
        if entries > MAX_COPY_ENTRIES:
            return f"holds more than {MAX_COPY_ENTRIES} files and folders"
        if path.is_file() and not path.is_symlink():
            size += path.stat().st_size
            if size > MAX_COPY_BYTES:
                return f"holds more than {MAX_COPY_BYTES} bytes"
    return None


def _world_readable(folder: Path) -> bool:
    import stat as st

    try:
        for path in [folder, *folder.rglob("*")]:
            mode = path.lstat().st_mode
            if st.S_ISDIR(mode) and (mode & 0o005) != 0o005 or st.S_ISREG(mode) and not mode & 0o004:
                return False
        covered = [Path("/tmp"), Path("/root"), Path(tempfile.gettempdir()).resolve(), Path.home().resolve()]
        for parent in folder.parents:
            if not any(parent == c or c in parent.parents for c in covered) and not parent.stat().st_mode & 0o001:
                return False
    except OSError:
        return False
    return True
