"""The submissions of a class in one folder, and a fingerprint of each.

``discover(folder)`` lists one ``Submission`` per entry of the folder, sorted by name:

- a folder per student (``alice/``, anything inside, e.g. the seed's
  ``python/tinyllm/infer/constrain.py``): the student's module is found by
  ``harness.autograder.locate``;
- a file per student (``alice.py``): that file is the module.

Hidden entries (``.x``), ``__pycache__`` and the batch's own files are skipped; any other
file is listed in ``ignored`` so the grader sees it was not graded.

``fingerprint(submission)`` hashes every file's relative path and content (SHA-256), so
``--resume`` regrades a submission that changed since it was graded. Bounded: at most
``MAX_FILES`` files and ``MAX_BYTES`` bytes are read; beyond that the fingerprint says so
(and stays stable for an unchanged upload).

Example::

    >>> [s.student for s in discover(Path("submissions")).submissions]
    ['alice', 'bob', 'carol']
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Submission", "Discovery", "discover", "fingerprint", "MAX_FILES", "MAX_BYTES"]

MAX_FILES = 5_000
MAX_BYTES = 200 * 2**20


@dataclass(frozen=True)
class Submission:
    student: str      # the entry's name without .py
    path: Path        # the student's folder, or their .py file

    @property
    def is_file(self) -> bool:
        return self.path.is_file()


@dataclass(frozen=True)
class Discovery:
    submissions: tuple[Submission, ...]
    ignored: tuple[str, ...]   # entries that are neither a folder nor a .py file


def discover(folder: Path, skip: frozenset[Path] = frozenset()) -> Discovery:
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"--batch {folder}: not a folder of submissions")
    submissions, ignored = [], []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.startswith(".") or entry.name == "__pycache__" or entry.resolve() in skip:
            continue
        if entry.is_dir() and not entry.is_symlink():
            submissions.append(Submission(entry.name, entry))
        elif entry.is_file() and not entry.is_symlink() and entry.suffix == ".py":
            submissions.append(Submission(entry.stem, entry))
        else:
            ignored.append(entry.name)
    names = [s.student for s in submissions]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"--batch {folder}: both a folder and a .py file for {', '.join(twice)}; keep one each")
    return Discovery(tuple(submissions), tuple(ignored))


def fingerprint(submission: Submission) -> str:
    digest = hashlib.sha256()
    files = [submission.path] if submission.is_file else _files(submission.path)
    total = 0
    for path in files[:MAX_FILES]:
        relative = path.name if submission.is_file else str(path.relative_to(submission.path))
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        try:
            size = path.stat().st_size
            if total + size > MAX_BYTES:
                digest.update(f"size {size}\0".encode())
                continue
            total += size
            digest.update(path.read_bytes())
        except OSError as exc:
            digest.update(f"unreadable {exc.errno}".encode())
        digest.update(b"\0")
    if len(files) > MAX_FILES:
        digest.update(f"and {len(files) - MAX_FILES} more files".encode())
    return digest.hexdigest()


def _files(folder: Path) -> list[Path]:
    found = []
    for directory, dirs, names in os.walk(folder):  # os.walk never follows links to folders
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found += [Path(directory, n) for n in sorted(names) if not n.endswith(".pyc")]
        if len(found) > MAX_FILES:
            break
    return found
