"""One batch submission as an executor task (``harness.fanout.executor``): data in, the record out.

``task(submission, options, fingerprint, run)`` is the ``Task`` the pool runs;
``grade_task(payload)`` grades it wherever it runs and returns its record
(``harness.grading.batch.records``), the same code as ``check`` and the autograder
(``grading.grade_submission``: a private copy, the confined check run).

Two kinds of payload:

- **local** (no scheduler): the submission's path, and the id of this process's
  ``LocalRun`` (the class budget of ``--class-limit`` and the stop flag of an ending
  batch: objects that cannot cross a process, so only a task run here uses them);
- **remote** (``--scheduler``): the submission's **bytes**, read here through the
  autograder's intake (``intake.regular_files``: its bounds, and symlinks and special
  files skipped with a note, exactly as a local grading would), base64 in the JSON; the
  worker writes them into a private folder under the same name and grades that, then
  puts the intake's notes first, as ``grade_submission`` does. A submission the intake
  refuses is sent as that refusal. No path of this machine reaches a worker.

The options carry the batch's course secret (``GradeOptions.course_secret``), so a worker
computes the same run seed as a local run: it goes to the staff's own workers, and from there
only ``--seed N`` reaches the check process (never the candidate).

A task writes nothing shared: the state file is written here, by the pool, when a record
arrives (``BatchState.save``: atomically), so a task rerun after a lost worker only
replaces a record nobody had yet.
"""

from __future__ import annotations

import base64
import dataclasses
import secrets
import tempfile
import threading
from pathlib import Path

from harness.fanout.executor import Task
from harness.grading.autograder.bounded import ClassBudget
from harness.grading.autograder.grading import GradeOptions, _refused, display_name, grade_submission, printable
from harness.grading.batch.records import record
from harness.grading.batch.submissions import Submission
from harness.intake import IntakeError, regular_files

__all__ = ["LocalRun", "grade_task", "task"]

FUNCTION = "harness.grading.batch.tasks:grade_task"
OPTION_FIELDS = ("tier", "ref_deps", "timeout", "memory", "submission_cpu", "wall", "twin", "course_secret")


@dataclasses.dataclass
class LocalRun:
    """What the tasks of one local batch share in this process (never sent anywhere)."""

    budget: ClassBudget | None
    stopping: threading.Event = dataclasses.field(default_factory=threading.Event)
    running: int = 0
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    id: str = dataclasses.field(default_factory=lambda: secrets.token_hex(6))

    def __enter__(self) -> LocalRun:
        _LOCAL_RUNS[self.id] = self
        return self

    def __exit__(self, *exc) -> None:
        _LOCAL_RUNS.pop(self.id, None)


_LOCAL_RUNS: dict[str, LocalRun] = {}


def task(submission: Submission, options: GradeOptions, fingerprint: str, run: LocalRun | None) -> Task:
    """The task grading ``submission``: local (``run`` given) or remote (its bytes)."""
    payload = {"student": submission.student, "fingerprint": fingerprint,
               "options": {name: getattr(options, name) for name in OPTION_FIELDS}}
    if run is not None:
        payload.update(path=str(submission.path), run=run.id)
    else:
        payload.update(_packed(submission.path))
    return Task(submission.student, FUNCTION, payload)


def _packed(path: Path) -> dict:
    """The submission as data: ``{"name", "is_file", "files": {relative: base64}, "skipped": [note]}``,
    or ``{"refused": message}`` when the intake refuses it."""
    files, skipped = {}, []
    try:
        for relative, data, note in regular_files(path):
            if note:
                skipped.append(note)
            else:
                files[relative] = base64.b64encode(data).decode("ascii")
    except IntakeError as exc:
        return {"refused": str(exc)}
    return {"name": Path(path).name, "is_file": Path(path).is_file(), "files": files, "skipped": skipped}


def grade_task(payload: dict) -> dict:
    """Grade one submission from its payload; its record (``{}`` when the local batch is stopping)."""
    options = GradeOptions(**payload["options"])
    if "run" in payload:
        return _grade_local(payload, options)
    if "refused" in payload:
        grade = _refused("no submission", printable(payload["refused"]))
        return record(payload["student"], grade, payload["fingerprint"])
    with tempfile.TemporaryDirectory(prefix="constrain-harness-task-") as folder:
        path = _unpacked(payload, Path(folder))
        grade = grade_submission(path, options)
    notes = tuple(printable(display_name(note), 500) for note in payload["skipped"])
    return record(payload["student"], dataclasses.replace(grade, notes=notes + grade.notes), payload["fingerprint"])


def _grade_local(payload: dict, options: GradeOptions) -> dict:
    run = _LOCAL_RUNS.get(payload["run"])
    if run is None or run.stopping.is_set():   # the batch is ending: start nothing more
        return {}
    with run.lock:
        run.running += 1
    try:
        grade = grade_submission(Path(payload["path"]), options, run.budget)
    finally:
        with run.lock:
            run.running -= 1
    return record(payload["student"], grade, payload["fingerprint"])


def _unpacked(payload: dict, folder: Path) -> Path:
    name = payload["name"]
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"a submission's name must be one path component, not {name!r}")
    target = folder / name
    if payload["is_file"]:
        (data,) = payload["files"].values()
        target.write_bytes(base64.b64decode(data))
        return target
    for relative, data in payload["files"].items():
        path = (target / relative).resolve()
        if not path.is_relative_to(target.resolve()):
            raise ValueError(f"a submission's file must stay inside it, not {relative!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
    target.mkdir(exist_ok=True)
    return target
