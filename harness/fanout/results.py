"""Resumable fan-out for ``sweep`` and ``corpus``: the executor, a results file, a progress line.

``run_tasks(tasks, jobs=, scheduler=, results=, progress=)`` hands the tasks that the
results file does not already hold to ``harness.fanout.executor.run`` and yields ``(key, record)``
for every task, finished earlier or now.

The results file (JSON lines)::

    {"format": "constrain-harness-results", "format_version": 1, "verb": "sweep", "options": {...}}
    {"key": "size3/0", "record": {...}}
    {"key": "size3/1", "record": {...}}

Invariants:

- a record line is written with one ``write`` on a file opened for appending, then
  flushed and ``fsync``-ed before the next task's record: after a crash or Ctrl-C the file
  holds every finished task, and at most its last line is torn (a torn line is dropped
  when the file is read again, and cut off before appending);
- ``--resume`` refuses a file written by another verb or with other options (a run is
  resumed the way it was started), naming the options that differ; without ``--resume``
  the file is started afresh;
- a key is recorded once: a resumed run never runs a recorded key again;
- a line that is no task record (other than a torn last line) makes ``--resume`` refuse
  the file, naming the line: it was written by something else.

Example::

    >>> results = ResultsFile.open(Path("sweep.results.jsonl"), "sweep", {"max_size": 4}, resume=True)
    >>> for key, record in run_tasks(tasks, jobs=1, results=results, progress=Progress(len(tasks), out)):
    ...     ...
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from harness.fanout.executor import Task, run
from harness.report.progress import bar

__all__ = ["FORMAT", "Progress", "ResultsFile", "run_tasks"]

FORMAT = "constrain-harness-results"
FORMAT_VERSION = 1
MAX_RESULTS_BYTES = 1 << 30
"""A results file larger than this (1 GiB) is refused by ``--resume`` before it is read."""


class ResultsFile:
    """The records of finished tasks, kept in memory and appended to ``path``."""

    def __init__(self, path: Path | None, records: dict[str, dict]):
        self.path = path
        self.records = records

    @classmethod
    def open(cls, path: Path | None, verb: str, options: dict, *, resume: bool) -> ResultsFile:
        """The results of ``path`` (read when ``resume``, else started afresh); ``path``
        None keeps them in memory only."""
        if path is None:
            if resume:
                raise ValueError("--resume needs a results file (--results F)")
            return cls(None, {})
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "verb": verb, "options": options}
        records: dict[str, dict] = {}
        if resume and path.exists():
            records = _read(path, header)
        else:
            _write_atomically(path, json.dumps(header, sort_keys=True) + "\n")
        return cls(path, records)

    def record(self, key: str, record: dict) -> None:
        self.records[key] = record
        if self.path is None:
            return
        line = (json.dumps({"key": key, "record": record}, sort_keys=True, allow_nan=False) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def _read(path: Path, header: dict) -> dict[str, dict]:
    if path.stat().st_size > MAX_RESULTS_BYTES:
        raise ValueError(f"--resume: {path} is larger than MAX_RESULTS_BYTES={MAX_RESULTS_BYTES}")
    data = path.read_bytes()
    lines = data.split(b"\n")
    try:
        found = json.loads(lines[0])
    except ValueError:
        found = None
    if not isinstance(found, dict) or found.get("format") != FORMAT or found.get("verb") != header["verb"]:
        raise ValueError(f"--resume: {path} is not a results file of {header['verb']} (version {FORMAT_VERSION}); "
                         f"delete it to start afresh")
    differ = sorted(k for k in set(header["options"]) | set(found.get("options", {}))
                    if header["options"].get(k) != found.get("options", {}).get(k))
    if differ:
        raise ValueError(f"--resume: {path} was written with other options ({', '.join(differ)}); "
                         f"run with the same options, or delete it to start afresh")
    records: dict[str, dict] = {}
    whole = len(data) if data.endswith(b"\n") else data.rfind(b"\n") + 1
    for number, line in enumerate(data[:whole].split(b"\n")[1:], 2):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        is_record = isinstance(entry, dict) and isinstance(entry.get("key"), str)
        if not (is_record and isinstance(entry.get("record"), dict)):
            raise ValueError(f"--resume: {path} line {number} is not a task record (was the file written by "
                             f"something else?); delete it to start afresh")
        records[entry["key"]] = entry["record"]
    if whole < len(data):  # a torn last line: cut it off before appending after it
        os.truncate(path, whole)
    return records


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


class Progress:
    """A progress line: redrawn in place on a terminal, else a line every ``every``-th
    of the run (and at the end), so a log stays short however many tasks there are."""

    def __init__(self, total: int, out, *, label: str = "tasks", skipped: int = 0, every: float = 0.1):
        self.total, self.done, self.label = total, skipped, label
        self.out = out
        self.start = time.monotonic()
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.step = max(1, int(total * every))
        self.describe: Callable[[dict], str] = lambda record: ""

    def update(self, record: dict) -> None:
        self.done += 1
        if self.out is None:
            return
        elapsed = time.monotonic() - self.start
        text = f"{bar(self.done, self.total, 30)} {self.done}/{self.total} {self.label} {elapsed:.0f} s"
        extra = self.describe(record)
        if extra:
            text += f", {extra}"
        if self.tty:
            print(f"\r{text:<100}", end="" if self.done < self.total else "\n", file=self.out, flush=True)
        elif self.done % self.step == 0 or self.done == self.total:
            print(text, file=self.out, flush=True)


def run_tasks(tasks: Iterable[Task], *, jobs: int, scheduler: str | None = None, results: ResultsFile,
              progress: Progress | None = None) -> Iterator[tuple[str, dict]]:
    """Yield ``(key, record)`` for every task: recorded ones first, then the others as
    the executor finishes them (each recorded before it is yielded)."""
    tasks = list(tasks)
    todo = [t for t in tasks if t.key not in results.records]
    for task in tasks:
        if task.key in results.records:
            yield task.key, results.records[task.key]
    # CPU-bound, trusted code: past one job, processes (threads would share one core under the GIL)
    for task, record in run(todo, jobs=jobs, scheduler=scheduler, processes=jobs > 1):
        results.record(task.key, record)
        if progress is not None:
            progress.update(record)
        yield task.key, record
