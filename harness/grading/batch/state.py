"""The resumable state of ``check --batch``: one record per graded student, written
atomically after every submission.

File: ``<DIR name>.batch-state.json`` in the output folder, the folder of the reports
(``state_path(folder, out)``: the folder of the first of ``--json``, ``--csv``, ``--html``,
``--md``, ``--gradebook``, ``--canvas-gradebook`` given, else ``--feedback DIR``), so a
class export downloaded read-only is never written to; a batch that writes no report
keeps it next to the submissions folder (``submissions/`` -> ``submissions.batch-state.json``)::

    {"format": "constrain-harness-batch-state", "format_version": 1,
     "dir": "/abs/submissions", "options": {...how check was run...},
     "course_secret": "64 hex digits", "records": {"alice": {record, see records.py}, ...}}

**The course secret** (``course_secret``, ``harness.suite.seeding.course_seed``): made when a
batch starts afresh (``secrets.token_bytes``), kept here so a ``--resume`` grades the rest
under the same one (a record's run seed is a keyed hash of its upload under it: the same
upload, the same seed), never printed. The file is staff-only: it is written readable by its
owner alone (mode 0600), and a confined candidate never sees it (the sandbox's root holds no
folder of the machine but the system's, the interpreter's, the harness's and the candidate's;
as root, the candidate runs as ``nobody``).

One run per class at a time: ``ClassLock(folder)`` takes an exclusive ``flock`` on the
class folder itself (nothing is written into it); a second ``check --batch`` on the same
class while the first runs is refused with a ValueError saying so, instead of overwriting
its state mid-run. The lock ends with the process that holds it (a crash frees it).

Guarantees: after a crash or Ctrl-C the file holds every submission finished so far and
nothing half-written (write to ``.partial``, then ``os.replace``); ``--resume`` refuses a
state written with other options (a class is graded one way) with a ValueError saying
which ones differ; a student whose upload changed since (another fingerprint) is graded
again.

Example::

    >>> state = BatchState.open(Path("submissions"), options, resume=True)
    >>> state.finished("alice", fingerprint)
    True
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from pathlib import Path

from harness.suite.seeding import check_course_secret, new_course_secret

__all__ = ["BatchState", "ClassLock", "state_path", "FORMAT"]

FORMAT = "constrain-harness-batch-state"
FORMAT_VERSION = 1


def state_path(folder: Path, out: Path | None = None) -> Path:
    """The state file of the class in ``folder``: in the output folder ``out`` when given,
    else next to ``folder``."""
    folder = Path(folder).resolve()
    name = folder.name + ".batch-state.json"
    return Path(out).resolve() / name if out is not None else folder.with_name(name)


class ClassLock:
    """An exclusive lock on a class folder for one batch run (module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.fd: int | None = None

    def __enter__(self) -> "ClassLock":
        self.fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            raise ValueError(f"another check --batch is grading {self.folder} now (one run per class at a "
                             f"time): wait for it, or stop it, then rerun with --resume") from None
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)   # closing the descriptor releases the lock
            self.fd = None


class BatchState:
    def __init__(self, path: Path, folder: Path, options: dict, records: dict[str, dict],
                 course_secret: str | None = None):
        self.path = path
        self.folder = folder
        self.options = options
        self.records = records        # student -> record (see harness.grading.batch.records)
        self.course_secret = course_secret or new_course_secret()   # the run seeds' key: never printed
        self._lock = threading.Lock()

    def __repr__(self) -> str:   # the secret stays out of every repr, log and traceback
        return f"BatchState({str(self.path)!r}, {len(self.records)} records)"

    def check_secret_hidden(self) -> None:
        """Raise ValueError when a candidate could read this file: it lies in a folder every
        sandbox binds (the harness's checkout or site-packages, the interpreter's folders) and
        candidates run as this very user (no root to drop to ``nobody`` from), so mode 0600
        would not stop them. Elsewhere a sandbox holds no folder of the machine but those."""
        from harness.sandbox import confine
        from harness.sandbox.client import PACKAGE_ROOT

        if os.geteuid() == 0 and not os.environ.get("CONSTRAIN_HARNESS_AS_USER"):
            return
        path = self.path.resolve()
        for folder in (PACKAGE_ROOT, *confine.interpreter_paths()):
            if path.is_relative_to(Path(folder).resolve()):
                raise ValueError(f"the batch state {path} (it holds the course secret) would lie inside {folder}, "
                                 f"which every candidate's sandbox can read as this user: grade a class folder "
                                 f"outside it")

    @classmethod
    def open(cls, folder: Path, options: dict, resume: bool, out: Path | None = None) -> "BatchState":
        """The state of grading ``folder``: with ``resume``, the records and the course secret the
        file holds (a file without a secret keeps no record: they were graded under another seed);
        else none, and a fresh secret."""
        path = state_path(folder, out)
        records: dict[str, dict] = {}
        secret = None
        if resume and path.exists():
            records, secret = cls._load(path, options)
            if secret is None:
                records = {}
        return cls(path, Path(folder).resolve(), options, records, secret)

    @staticmethod
    def _load(path: Path, options: dict) -> tuple[dict[str, dict], str | None]:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"--resume: cannot read {path} ({exc}); delete it to start afresh") from exc
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"--resume: {path} is not a constrain-harness batch state (version {FORMAT_VERSION})")
        differ = sorted(k for k in set(options) | set(doc.get("options", {}))
                        if options.get(k) != doc.get("options", {}).get(k))
        if differ:
            raise ValueError(f"--resume: {path} was written with other options ({', '.join(differ)}); "
                             f"grade with the same options, or delete it to start afresh")
        records = doc.get("records")
        secret = doc.get("course_secret")
        try:
            secret = check_course_secret(secret) if secret is not None else None
        except (TypeError, ValueError) as exc:
            raise ValueError(f"--resume: {path} holds no usable course secret ({exc}); delete it to start "
                             f"afresh") from None
        return (dict(records) if isinstance(records, dict) else {}), secret

    def finished(self, student: str, fingerprint: str) -> bool:
        """Return True if and only if ``student`` was graded from this very upload, into a
        record of this version (an older record lacks what the reports now show)."""
        from harness.grading.batch.records import RECORD_VERSION

        record = self.records.get(student)
        return (isinstance(record, dict) and record.get("fingerprint") == fingerprint
                and record.get("record_version") == RECORD_VERSION)

    def save(self, student: str, record: dict) -> None:
        with self._lock:
            self.records[student] = record
            doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "dir": str(self.folder),
                   "options": self.options, "course_secret": self.course_secret, "records": self.records}
            partial = self.path.with_name(self.path.name + ".partial")
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()   # a torn earlier write: made afresh below with the owner-only mode
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(json.dumps(doc, indent=1, sort_keys=True) + "\n")
            os.replace(partial, self.path)
