"""grade-tests' runs as executor tasks (``harness.fanout.executor``): one run of the student's
suite against one wheat or chaff per task, its ``RunResult`` back as JSON.

- **local** (no scheduler): the task names a ``_Runner`` of this process and the index of
  the implementation; the runner does exactly what it always did (its CPU budget, checked
  before each run starts, and the second run after a wall-clock backstop), in the
  executor's threads.
- **remote** (``--scheduler``): the payload carries the student's suite as **bytes**
  (through the autograder's intake: ``intake.regular_files``, its bounds), the
  implementation as a name the worker can rebuild from its own harness (``reference``, a
  wheat of ``harness/grading/gradetests/wheats``, a catalogue chaff id, which the worker
  materializes) or, for another wheat, its bytes; the run's seed, marker, module and
  limits. The worker runs ``suite_run.run_suite`` behind the same wall, once more after a
  backstop, and returns the ``RunResult``. The grading's CPU budget is charged on the
  caller's side, in the implementations' order (``charge_budget``): a run that would have
  started after the budget was spent is "not run", as locally.

The suite is student code: it crosses only as file bytes and runs only in the confined
student process on the worker.
"""

from __future__ import annotations

import base64
import dataclasses
import tempfile
from pathlib import Path

from harness.grading.gradetests.implementations import WHEATS, Implementation, catalogue_chaffs, wheat
from harness.grading.gradetests.limits import RunLimits
from harness.grading.gradetests.suite_run import RunResult, run_suite, secret_roots
from harness.intake import regular_files
from harness.sandbox import confine

LOCAL_FUNCTION = "harness.grading.gradetests.tasks:run_local"
REMOTE_FUNCTION = "harness.grading.gradetests.tasks:run_remote"
_RUNNERS: dict[str, object] = {}   # runner id -> grade._Runner of this process (never sent anywhere)


def register(runner_id: str, runner) -> None:
    _RUNNERS[runner_id] = runner


def unregister(runner_id: str) -> None:
    _RUNNERS.pop(runner_id, None)


def run_local(payload: dict) -> dict:
    runner = _RUNNERS[payload["runner"]]
    return dataclasses.asdict(runner.run_one(runner.implementations[payload["index"]]))


def result_from(record: dict) -> RunResult:
    return RunResult(**record)


# --- remote -------------------------------------------------------------------------------------

def pack_folder(path: Path) -> dict[str, str]:
    """A folder's regular files as ``{relative: base64}`` (the intake's bounds; links skipped)."""
    return {relative: base64.b64encode(data).decode("ascii")
            for relative, data, note in regular_files(Path(path)) if not note}


def _unpack(files: dict[str, str], target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for relative, data in files.items():
        path = (target / relative).resolve()
        if not path.is_relative_to(target.resolve()):
            raise ValueError(f"a file must stay inside its folder, not {relative!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
    return target


def describe(impl: Implementation) -> dict:
    """What a worker needs to rebuild ``impl`` from its own harness (or the wheat's bytes)."""
    if impl.mutant is not None:
        return {"chaff": impl.mutant.id}
    if impl.spec is None:
        return {"wheat": "reference"}
    path = Path(impl.spec)
    if path.parent == WHEATS.resolve() or path.parent == WHEATS:
        return {"wheat": "harness:" + path.name}
    if path.is_file():
        return {"wheat_file": path.name, "bytes": base64.b64encode(path.read_bytes()).decode("ascii")}
    return {"wheat_folder": path.name, "files": pack_folder(path)}


def _rebuild(description: dict, root: Path) -> Implementation:
    if "chaff" in description:
        (chaff,) = catalogue_chaffs(root, (description["chaff"],))
        return chaff
    name = description.get("wheat")
    if name == "reference":
        return wheat("reference")
    if name is not None:
        return wheat(str(WHEATS / name.removeprefix("harness:")))
    if "wheat_file" in description:
        path = root / "wheat" / Path(description["wheat_file"]).name
        path.parent.mkdir()
        path.write_bytes(base64.b64decode(description["bytes"]))
        return wheat(str(path))
    return wheat(str(_unpack(description["files"], root / "wheat" / Path(description["wheat_folder"]).name)))


def remote_payload(suite_files: dict[str, str], impl: Implementation, options, seed: int, marker: str) -> dict:
    return {"suite": suite_files, "implementation": describe(impl), "module": options.module,
            "test_cpu": options.test_cpu, "run_cpu": options.timeout, "seed": seed, "marker": marker,
            "memory_mb": options.limits.memory_mb}


def run_remote(payload: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="constrain-gradetests-task-") as folder:
        suite = _unpack(payload["suite"], Path(folder) / "suite")
        impl = _rebuild(payload["implementation"], Path(folder))
        limits = RunLimits(test_cpu=payload["test_cpu"], run_cpu=payload["run_cpu"])

        def once() -> RunResult:
            return run_suite(suite, impl, module=payload["module"], limits=limits, seed=payload["seed"],
                             marker=payload["marker"], hidden=secret_roots([impl]),
                             sandbox=confine.Limits(memory_mb=payload["memory_mb"]))
        return dataclasses.asdict(run_twice_after_backstop(once))


def run_twice_after_backstop(once) -> RunResult:
    """``once()``, and once more when a wall-clock backstop ended it (the machine may have starved it)."""
    result = once()
    if result.backstop and result.verdict != "not run":
        again = once()
        if again.verdict != "not run":
            result = again
            result.detail = (result.detail + " " if result.detail else "") + \
                "(run twice: a wall-clock backstop ended the first run)"
    return result
