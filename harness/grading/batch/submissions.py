"""The submissions of a class in one folder, and a fingerprint of each.

``discover(folder)`` lists one ``Submission`` per entry of the folder, sorted by name:

- a folder per student (``alice/``, anything inside, e.g. the spec's
  ``python/tinyllm/infer/constrain.py``): the student's module is found by
  ``harness.grading.autograder.locate``;
- a file per student (``alice.py``): that file is the module.

Each is graded on a private copy (``harness.intake``): it never sees the class
folder or a classmate. Entries are classified with ``lstat`` (a link is never followed):
a symbolic link, FIFO, socket or device at the top is not a submission and is listed in
``ignored`` with the reason, like any other file that is not a ``.py``; hidden entries
(``.x``), ``__pycache__`` and the batch's own files are skipped silently. A student's
name is the entry's name without ``.py``, escaped by ``display_name`` (a newline, an ANSI
escape or a byte that is not UTF-8 in a file name cannot break a table or a report).

``fingerprint(submission)`` hashes every regular file's relative path and content
(SHA-256) as the intake would copy them, so ``--resume`` regrades a submission that
changed since it was graded. Bounded by the intake's bounds (``MAX_FILES``, ``MAX_BYTES``):
past one, the fingerprint says so (and stays stable for an unchanged upload); a link, a
FIFO or a device is never opened.

Example::

    >>> [s.student for s in discover(Path("submissions")).submissions]
    ['alice', 'bob', 'carol']
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from harness.grading.autograder.grading import display_name
from harness.intake import IntakeError, regular_files

__all__ = ["Submission", "Discovery", "discover", "fingerprint", "MAX_ENTRIES"]

MAX_ENTRIES = 10_000   # entries of the class folder looked at (students, stray files)


@dataclass(frozen=True)
class Submission:
    student: str      # the entry's name without .py, escaped (display_name)
    path: Path        # the student's folder, or their .py file

    @property
    def is_file(self) -> bool:
        return self.path.suffix == ".py" and stat.S_ISREG(os.lstat(self.path).st_mode)


@dataclass(frozen=True)
class Discovery:
    submissions: tuple[Submission, ...]
    ignored: tuple[str, ...]   # "name (why)" per entry that is not a submission, escaped


def discover(folder: Path, skip: frozenset[Path] = frozenset()) -> Discovery:
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"--batch {display_name(str(folder))}: not a folder of submissions")
    submissions, ignored = [], []
    for entry in _entries(folder):
        if entry.name.startswith(".") or entry.name == "__pycache__" or Path(entry.path).resolve() in skip:
            continue
        mode = entry.stat(follow_symlinks=False).st_mode
        name = display_name(entry.name)
        if stat.S_ISDIR(mode):
            submissions.append(Submission(name, Path(entry.path)))
        elif stat.S_ISREG(mode) and entry.name.endswith(".py"):
            submissions.append(Submission(display_name(entry.name[:-3]), Path(entry.path)))
        else:
            ignored.append(f"{name} ({_why_not(mode)})")
    names = [s.student for s in submissions]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"--batch {display_name(str(folder))}: both a folder and a .py file for "
                         f"{', '.join(twice)}; keep one each")
    return Discovery(tuple(submissions), tuple(ignored))


def _entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as it:
        entries = []
        for entry in it:
            entries.append(entry)
            if len(entries) > MAX_ENTRIES:
                raise ValueError(f"--batch {display_name(str(folder))}: more than {MAX_ENTRIES} entries; "
                                 f"split the class into folders of at most {MAX_ENTRIES}")
    return sorted(entries, key=lambda e: e.name)


def _why_not(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link: not followed"
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "not a regular file"
    return "neither a folder nor a .py file"


def fingerprint(submission: Submission) -> str:
    digest = hashlib.sha256()
    try:
        for relative, data, note in regular_files(submission.path):
            digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
            digest.update(data if data is not None else f"skipped: {note}".encode("utf-8", "surrogateescape"))
            digest.update(b"\0")
    except IntakeError as exc:   # past a bound: the prefix read so far, and which bound
        digest.update(f"refused: {exc}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()
