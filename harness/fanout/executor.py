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
its time in a confined child process, so threads are enough and start nothing new. Tasks
that compute in Python themselves (the sweep's and the corpus's: trusted code, the
reference and the oracles) ask for ``processes=True``: a pool of ``jobs`` processes
(forkserver: clean children, not forks of a threaded parent), so ``--jobs 2`` uses both
cores; a payload and a record cross as the same JSON-able data either way.

**Dask** (``scheduler="tcp://HOST:PORT"``, the verbs' ``--scheduler``, or
``$CONSTRAIN_HARNESS_SCHEDULER``): the tasks go to a ``dask.distributed`` scheduler and run
on its workers (``pip install 'constrain-harness[dask]'``; imported only here, only when a
scheduler is given). What crosses is text: the function's dotted name and the payload as
JSON go out, the record comes back as JSON (``execute_json``); Dask pickles only the
reference to ``execute_json`` itself, which every worker imports from its own installed
harness. Before any task is sent, every worker must report the same build digest as this
process (``build_digest``: the harness's and the oracles' sources), so a worker with
another version can never grade. A worker lost mid-task (killed, crashed, cut off) is
Dask's to handle: the scheduler reruns its tasks elsewhere; ``RunStats.retried`` lists the
keys it had to rerun (the scheduler's count of workers that died running the task), and a
task whose workers died more than ``distributed.scheduler.allowed-failures`` times (3)
raises ``WorkerLost``. ``jobs`` means nothing there: the workers' threads decide.

Example::

    >>> tasks = [Task(f"t{i}", "harness.fanout.executor:echo", {"n": i}) for i in range(3)]
    >>> sorted(r["n"] for _, r in run(tasks, jobs=2))
    [0, 1, 2]
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import multiprocessing
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = ["SCHEDULER_ENV", "RunStats", "SchedulerProblem", "Task", "WorkerLost", "build_digest", "echo",
           "execute_json", "resolve", "run", "scheduler_from"]

SCHEDULER_ENV = "CONSTRAIN_HARNESS_SCHEDULER"
CONNECT_SECONDS = 30.0   # a scheduler that does not answer within this is an error, not a hang
MAX_KEY_CHARS = 500      # a task key is a name, not a payload
ROOT = Path(__file__).resolve().parents[2]
DIGEST_FOLDERS = ("harness", "oracles", "golden")   # what a worker grades with: must equal ours


class SchedulerProblem(ValueError):
    """The Dask side cannot be used as given: dask missing, no scheduler, no or mismatched workers."""


class WorkerLost(RuntimeError):
    """A task's workers kept dying (more than Dask's ``allowed-failures``): it is not retried again."""


@dataclass(frozen=True)
class Task:
    """One unit of work (see the module docstring for the invariants)."""

    key: str
    function: str
    payload: Mapping = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.key, str) or not self.key or len(self.key) > MAX_KEY_CHARS:
            raise ValueError(f"a task's key must be a non-empty string of at most {MAX_KEY_CHARS} characters, "
                             f"not {self.key!r:.80}")
        if not isinstance(self.function, str) or self.function.count(":") != 1:
            raise ValueError(f"task {self.key}: function must read 'package.module:function', not {self.function!r}")


@dataclass
class RunStats:
    """What a run reports beyond its results: where it ran, and the tasks it had to rerun."""

    where: str = "local"
    retried: list[str] = field(default_factory=list)   # keys of tasks a lost worker was running


def resolve(dotted: str):
    """The function named ``"package.module:function"``."""
    module_name, _, name = dotted.partition(":")
    return getattr(importlib.import_module(module_name), name)


def execute(function: str, payload: Mapping) -> dict:
    """Run one task's function on its payload (here, or on a worker)."""
    return resolve(function)(payload)


def execute_json(function: str, payload_json: str) -> str:
    """A worker's side of a task: JSON text in, JSON text out (nothing else crosses)."""
    return json.dumps(execute(function, json.loads(payload_json)), sort_keys=True)


def scheduler_from(option: str | None) -> str | None:
    """The scheduler address in force: the option, else ``$CONSTRAIN_HARNESS_SCHEDULER``, else None (local)."""
    return option or os.environ.get(SCHEDULER_ENV) or None


def run(tasks: Iterable[Task], *, jobs: int, scheduler: str | None = None,
        stats: RunStats | None = None, processes: bool = False) -> Iterator[tuple[Task, dict]]:
    """Yield ``(task, result)`` for every task, as each finishes; ``stats`` (optional) is filled in.
    ``processes``: local tasks run in ``jobs`` processes, not threads (module docstring).

    Closing the iterator early (an exception in the caller, Ctrl-C) cancels every task not
    started; a local task already running finishes in its thread, a remote one is cancelled.
    """
    tasks = list(tasks)
    if len({t.key for t in tasks}) != len(tasks):
        raise ValueError("task keys must be unique within a run")
    stats = stats if stats is not None else RunStats()
    if scheduler is not None:
        stats.where = scheduler
        return _run_dask(tasks, scheduler, stats)
    return _run_local(tasks, max(1, int(jobs)), processes)


def _run_local(tasks: list[Task], jobs: int, processes: bool = False) -> Iterator[tuple[Task, dict]]:
    if processes:
        pool = ProcessPoolExecutor(max_workers=min(jobs, max(1, len(tasks))),
                                   mp_context=multiprocessing.get_context("forkserver"))
    else:
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="task")
    finished = False
    try:
        pending = {pool.submit(execute, t.function, t.payload): t for t in tasks}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()
        finished = True
    finally:
        if processes and not finished:   # stopped early: no worker process may outlive the run
            for process in list(getattr(pool, "_processes", {}).values()):  # no public terminate before 3.14
                process.terminate()
        pool.shutdown(wait=processes, cancel_futures=True)


# --- Dask -------------------------------------------------------------------------------------

def _distributed():
    try:
        import distributed
    except ImportError:
        raise SchedulerProblem("--scheduler needs Dask: pip install 'constrain-harness[dask]'") from None
    return distributed


def _connect(distributed, address: str):
    if not isinstance(address, str) or "://" not in address:
        raise SchedulerProblem(f"--scheduler must be an address such as tcp://127.0.0.1:8786, not {address!r}")
    try:
        return distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, asyncio.TimeoutError) as exc:
        raise SchedulerProblem(f"--scheduler {address}: no Dask scheduler answered ({exc})") from None


def _check_workers(client, address: str) -> None:
    """Every worker must have this very harness (``build_digest``), and there must be one."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_SECONDS)
    except (TimeoutError, asyncio.TimeoutError):
        raise SchedulerProblem(f"--scheduler {address}: no worker joined within {CONNECT_SECONDS:g} s") from None
    ours = build_digest()
    theirs = client.run(build_digest)
    wrong = sorted(worker for worker, digest in theirs.items() if digest != ours)
    if wrong:
        raise SchedulerProblem(f"--scheduler {address}: worker(s) {', '.join(wrong)} run another constrain-harness "
                         f"(build {theirs[wrong[0]][:12]}, ours {ours[:12]}): install the same version everywhere")


def _run_dask(tasks: list[Task], address: str, stats: RunStats) -> Iterator[tuple[Task, dict]]:
    distributed = _distributed()
    try:
        client = _connect(distributed, address)
    except distributed.TimeoutError as exc:  # pragma: no cover - depends on the Dask version
        raise SchedulerProblem(f"--scheduler {address}: no Dask scheduler answered ({exc})") from None
    futures = {}
    try:
        _check_workers(client, address)
        run_id = secrets.token_hex(6)
        for task in tasks:
            future = client.submit(execute_json, task.function, json.dumps(dict(task.payload), sort_keys=True),
                                   key=f"constrain-harness-{run_id}-{task.key}", pure=False)
            futures[future] = task
        for future in distributed.as_completed(list(futures), loop=client.loop):
            task = futures.pop(future)
            try:
                text = future.result()
            except distributed.KilledWorker as exc:
                raise WorkerLost(f"task {task.key}: its workers kept dying ({exc})") from None
            if client.run_on_scheduler(_workers_lost, keys=[future.key])[future.key]:
                stats.retried.append(task.key)
            future.release()
            yield task, json.loads(text)
    finally:
        if futures:
            client.cancel(list(futures), force=True)
        client.close()


def _workers_lost(keys: list[str], dask_scheduler=None) -> dict[str, int]:
    """On the scheduler: for each task, how many workers died while running it (Dask's ``suspicious``)."""
    found = {}
    for key in keys:
        state = dask_scheduler.tasks.get(key)
        found[key] = state.suspicious if state is not None else 0
    return found


@lru_cache(maxsize=1)
def build_digest() -> str:
    """SHA-256 over the sources a task grades with (``DIGEST_FOLDERS``: names and bytes)."""
    digest = hashlib.sha256()
    for folder in DIGEST_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".json"):
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def echo(payload: Mapping) -> dict:
    """A task function that returns its payload (for tests and the docstring)."""
    return dict(payload)
