"""One executor for every job that fans out: batch grading, grade-tests, mutant runs, sweeps.

A **task** is data in, data out: a stable ``key``, the dotted name of a top-level function
(``"package.module:function"``) and a JSON-able ``payload``; the function returns a JSON-able
dict. Nothing else crosses between the caller and the place the task runs (no pickled
candidate code, no open files, no locks), so the same task runs in a thread here or on a
Dask worker elsewhere and gives the same record.

Invariants:

- ``key`` is unique within one run; a result is recorded under it, which is what makes a
  rerun (``--resume``) and a retried task (a worker lost mid-task) idempotent.
- the task function does all its work through its payload and returns its whole record;
  it writes no shared file a half-finished attempt could leave behind.

Local runs (the default) use a thread pool of ``jobs`` threads: each grading task spends
its time in a confined child process, so threads are enough and start nothing new.

Example::

    >>> tasks = [Task(f"t{i}", "harness.executor:echo", {"n": i}) for i in range(3)]
    >>> sorted(r["n"] for _, r in run(tasks, jobs=2))
    [0, 1, 2]
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

__all__ = ["SCHEDULER_ENV", "Task", "echo", "resolve", "run", "scheduler_from"]

SCHEDULER_ENV = "CONSTRAIN_HARNESS_SCHEDULER"


@dataclass(frozen=True)
class Task:
    """One unit of work (see the module docstring for the invariants)."""

    key: str
    function: str
    payload: Mapping = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"a task's key must be a non-empty string, not {self.key!r}")
        if not isinstance(self.function, str) or self.function.count(":") != 1:
            raise ValueError(f"task {self.key}: function must read 'package.module:function', not {self.function!r}")


def resolve(dotted: str):
    """The function named ``"package.module:function"``."""
    module_name, _, name = dotted.partition(":")
    return getattr(importlib.import_module(module_name), name)


def execute(function: str, payload: Mapping) -> dict:
    """Run one task's function on its payload (here, or on a worker)."""
    return resolve(function)(payload)


def scheduler_from(option: str | None) -> str | None:
    """The scheduler address in force: the option, else ``$CONSTRAIN_HARNESS_SCHEDULER``, else None (local)."""
    return option or os.environ.get(SCHEDULER_ENV) or None


def run(tasks: Iterable[Task], *, jobs: int, scheduler: str | None = None) -> Iterator[tuple[Task, dict]]:
    """Yield ``(task, result)`` for every task, as each finishes."""
    tasks = list(tasks)
    if len({t.key for t in tasks}) != len(tasks):
        raise ValueError("task keys must be unique within a run")
    if scheduler is not None:
        raise ValueError(f"no distributed executor is available for scheduler {scheduler!r}")
    yield from _run_local(tasks, max(1, int(jobs)))


def _run_local(tasks: list[Task], jobs: int) -> Iterator[tuple[Task, dict]]:
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="task") as pool:
        futures = {pool.submit(execute, t.function, t.payload): t for t in tasks}
        for future in as_completed(futures):
            yield futures[future], future.result()


def echo(payload: Mapping) -> dict:
    """A task function that returns its payload (for tests and the docstring)."""
    return dict(payload)
