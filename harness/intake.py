"""Taking in a submission: a private copy holding only its regular files, within stated bounds.

A submission (a student's folder, or one ``.py`` file) is never graded where it lies: the
grader copies it into a folder of its own first, and check binds only that copy into the
candidate's sandbox, so a submission sees its own files and nothing else (not a
classmate's ``alice.py`` it could import, not a ``numpy.py`` shadowing the library for
everyone in the class folder).

``copy_submission(source, dest)`` copies ``source`` (a folder: its tree; a file: that
file, as ``dest/constrain.py``, the spec's module name) into the new folder ``dest``:

- regular files only, opened without following a link (``O_NOFOLLOW``) and without
  blocking (``O_NONBLOCK``: a FIFO never hangs the grader), and checked to be regular with
  ``fstat`` on the open descriptor (no race with a swap); a symbolic link, FIFO, socket or
  device is skipped, and the skip is a note the student reads (``skipped python/x.py: a
  symbolic link (only regular files are graded)``); ``__pycache__`` folders and ``.pyc``
  files are left out silently (bytecode is never trusted: the sources compile afresh);
- bounded: at most ``MAX_FILES`` files, ``MAX_BYTES`` bytes in all, ``MAX_DEPTH`` folders
  deep and ``MAX_ENTRIES`` entries looked at, each checked before the work it bounds; a
  submission past a bound is refused whole (``IntakeError``, a ``ValueError`` naming the
  bound), never graded on a part of itself;
- the copy is world-readable (folders 0755, files 0644) and keeps no timestamps, links
  or modes of the original.

``regular_files(source)`` is the same walk without writing (the batch's fingerprint).

Example::

    >>> intake = copy_submission(Path("class/alice.py"), Path("/tmp/x/alice"))
    >>> intake.files, intake.skipped
    (1, ())
    >>> sorted(p.name for p in Path("/tmp/x/alice").iterdir())
    ['constrain.py']
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["IntakeError", "Intake", "copy_submission", "regular_files", "MAX_FILES", "MAX_BYTES", "MAX_DEPTH",
           "MAX_ENTRIES", "FILE_MODULE_NAME"]

MAX_FILES = 2_000            # regular files in one submission
MAX_BYTES = 32 * 2**20       # bytes of those files in all (the spec's module is ~50 KB)
MAX_DEPTH = 16               # folders below the submission's top
MAX_ENTRIES = 20_000         # directory entries looked at, skipped ones included
FILE_MODULE_NAME = "constrain.py"   # a one-file submission is graded under the spec's module name
_UPLOAD_LESS = "upload only your module, or your repository's python/ folder"


class IntakeError(ValueError):
    """The submission is past a bound, or its top is neither a folder nor a regular file."""


@dataclass(frozen=True)
class Intake:
    """What a copy took in: ``files`` regular files of ``size`` bytes in all; ``skipped``
    one note per entry left out (a link, FIFO, socket, device, or an unreadable file)."""

    files: int
    size: int
    skipped: tuple[str, ...]


def copy_submission(source: Path, dest: Path) -> Intake:
    """Copy ``source`` into the new folder ``dest`` (see the module docstring); nothing is
    written unless the whole submission is within the bounds."""
    files, skipped = [], []
    for relative, data, note in regular_files(source):
        if note:
            skipped.append(note)
        else:
            files.append((relative, data))
    dest = Path(dest)
    dest.mkdir(mode=0o755)
    os.chmod(dest, 0o755)
    for relative, data in files:
        _write(dest, relative, data)
    return Intake(len(files), sum(len(d) for _, d in files), tuple(skipped))


def regular_files(source: Path) -> Iterator[tuple[str, bytes | None, str]]:
    """``(relative path, contents, "")`` per regular file and ``(relative path, None,
    note)`` per entry skipped, in sorted order; ``IntakeError`` past a bound."""
    source = Path(source)
    try:
        mode = os.lstat(source).st_mode
    except OSError as exc:
        raise IntakeError(f"cannot read the submission {source.name!r}: {exc.strerror}") from None
    budget = _Budget()
    if stat.S_ISREG(mode):
        data, note = _read(source, FILE_MODULE_NAME, budget)
        if note:
            raise IntakeError(note)
        yield FILE_MODULE_NAME, data, ""
    elif stat.S_ISDIR(mode):
        yield from _walk_folder(source, "", 0, budget)
    else:
        raise IntakeError(f"the submission {source.name!r} is {_kind(mode)}, not a folder or a regular file")


class _Budget:
    """The bounds of one walk, counted as it goes."""

    def __init__(self):
        self.files = self.bytes = self.entries = 0

    def entry(self) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise IntakeError(f"the submission has more than {MAX_ENTRIES} files and folders: not graded "
                              f"({_UPLOAD_LESS})")

    def file(self) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise IntakeError(f"the submission has more than {MAX_FILES} files: not graded ({_UPLOAD_LESS})")

    def bytes_left(self, size: int) -> int:
        """Bytes that may still be read once ``size`` more are counted; raises past the bound."""
        if self.bytes + size > MAX_BYTES:
            raise IntakeError(f"the submission holds more than {MAX_BYTES:,} bytes: not graded ({_UPLOAD_LESS})")
        return MAX_BYTES - self.bytes


def _walk_folder(folder: Path, prefix: str, depth: int, budget: _Budget):
    if depth > MAX_DEPTH:
        raise IntakeError(f"the submission is more than {MAX_DEPTH} folders deep: not graded")
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        yield prefix or ".", None, f"skipped {prefix or 'the top folder'}: unreadable ({exc.strerror})"
        return
    for entry in entries:
        budget.entry()
        relative = prefix + entry.name
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError as exc:
            yield relative, None, f"skipped {relative}: unreadable ({exc.strerror})"
            continue
        if stat.S_ISDIR(mode):
            if entry.name != "__pycache__":
                yield from _walk_folder(Path(entry.path), relative + "/", depth + 1, budget)
        elif stat.S_ISREG(mode):
            if not entry.name.endswith(".pyc"):
                data, note = _read(Path(entry.path), relative, budget)
                yield relative, data, note
        else:
            yield relative, None, f"skipped {relative}: {_kind(mode)} (only regular files are graded)"


def _read(path: Path, relative: str, budget: _Budget) -> tuple[bytes | None, str]:
    """The contents of the regular file at ``path``, opened without following a link or
    blocking and checked on the open descriptor; at most the bytes the budget has left."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return None, f"skipped {relative}: unreadable ({exc.strerror})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, f"skipped {relative}: {_kind(info.st_mode)} (only regular files are graded)"
        budget.file()
        left = budget.bytes_left(info.st_size)
        chunks, got = [], 0
        while chunk := os.read(fd, min(1 << 20, left + 1 - got)):  # one byte past the bound: a file that grew
            chunks.append(chunk)
            got += len(chunk)
            if got > left:
                budget.bytes_left(got)  # raises
        budget.bytes += got
        return b"".join(chunks), ""
    except OSError as exc:
        return None, f"skipped {relative}: unreadable ({exc.strerror})"
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _write(dest: Path, relative: str, data: bytes) -> None:
    path = dest / relative
    for parent in reversed(Path(relative).parents[:-1]):  # e.g. python, python/tinyllm, ...
        folder = dest / parent
        if not folder.is_dir():
            folder.mkdir(mode=0o755)
            os.chmod(folder, 0o755)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        os.fchmod(fd, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
