"""The pool of ``check --batch``: grade the pending submissions N at a time, save each
as it finishes, then print and write the reports.

Every submission is graded the way the Gradescope autograder grades it
(``harness.grading.autograder.grading.grade_submission``: a private copy, the grading policy's
defaults, the per-submission limit in CPU seconds with its wall backstop), and the header
prints the policy line. ``--class-limit S`` bounds the whole class in CPU seconds (wall
backstop 10x): when it runs out, the runs in progress are stopped without a verdict and
the batch ends like an interruption (what finished is saved; ``--resume`` grades the rest).

The pool is ``harness.fanout.executor``'s: locally a thread per job waits on one ``check``
process (the work is in the processes, so threads are enough); with ``--scheduler`` (or
``$CONSTRAIN_HARNESS_SCHEDULER``) the submissions' bytes go to the Dask workers, each
grades behind the same wall, and the records come back (``harness.grading.batch.tasks``); tasks
a lost worker was running are graded again and counted. Ctrl-C kills every run in
progress here (``stop_all_runs``; on Dask, cancels the tasks), keeps what had finished in
the state, and says how to resume.

Exit codes (``harness.exitcodes``), whatever the students' verdicts: 0 when the class was
graded and everything asked for was written; 1 when the batch was interrupted or the class
limit ran out (what finished is saved); 2 for bad arguments, and when an output asked for
was not written: a gradebook refused (a roster student with no submission, or two
submissions for one student, without ``--allow-missing-students`` /
``--allow-duplicate-students``) or a report or feedback file that could not be written.
The refusal is said on stderr, and the rest (the state, the reports, the feedback files) is
written all the same.

Example::

    >>> run_batch(BatchOptions(folder=Path("submissions"), jobs=2), sys.stdout, sys.stderr)
    0
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from harness.exitcodes import ExitCode
from harness.fanout import executor
from harness.fanout.executor import RunStats
from harness.grading.autograder.bounded import ClassBudget
from harness.grading.autograder.grading import ClassLimitReached, GradeOptions, display_name, stop_all_runs
from harness.grading.batch import report
from harness.grading.batch.course import Course
from harness.grading.batch.options import MAX_JOBS, BatchOptions
from harness.grading.batch.progress import Progress
from harness.grading.batch.state import BatchState, ClassLock, state_path
from harness.grading.batch.submissions import discover, fingerprint
from harness.grading.batch.tasks import LocalRun, task
from harness.paths import PACKAGE_ROOT, inside_harness
from harness.policy import POLICY

__all__ = ["run_batch", "MAX_JOBS"]


def run_batch(options: BatchOptions, stdout, stderr) -> int:
    """Grade the class ``options`` names (built by ``harness.commands.check`` from the command line,
    validated when made); the exit code."""
    try:
        scheduler = executor.scheduler_from(options.scheduler)
        if scheduler is not None and options.class_limit is not None:
            raise ValueError("--class-limit cannot be combined with --scheduler (the budget is this machine's)")
        folder = Path(options.folder)
        course = Course.open(options.course, folder)   # the roster, due date, late policy (batch.course)
        named = _outputs(options)
        outputs = frozenset(p.resolve() for _, p in named)
        out = _output_folder(named)
        _refuse_inside_harness([("--batch", folder), *named, ("the batch state", state_path(folder, out))])
        found = discover(folder, skip=outputs | course.skip | {state_path(folder, out)})
        if not found.submissions:
            raise ValueError(f"{display_name(str(folder))} holds no submissions (a folder or a .py file per "
                             f"student)" + (f"; ignored: {', '.join(found.ignored[:10])}" if found.ignored else ""))
        lock = ClassLock(folder).__enter__()   # one run per class; released when this run returns
    except (ValueError, OSError) as exc:
        print(f"check --batch: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    try:
        return _run_locked(options, stdout, stderr, scheduler, folder, course, found, out)
    finally:
        lock.__exit__(None, None, None)


def _run_locked(batch: BatchOptions, stdout, stderr, scheduler, folder, course, found, out) -> int:
    options, jobs, budget = batch.grade, batch.jobs, _budget(batch.class_limit)
    try:
        state = BatchState.open(folder, _state_options(options), resume=batch.resume, out=out)
        state.check_secret_hidden()
        # the run seeds: keyed by the batch's secret (harness.suite.seeding.course_seed), kept in its state
        options = dataclasses.replace(options, course_secret=state.course_secret)
        forced = course.regrade_targets(found.submissions)
    except (ValueError, OSError) as exc:
        print(f"check --batch: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    prints = {s.student: fingerprint(s) for s in found.submissions}
    pending = [s for s in found.submissions if s.student in forced or not state.finished(s.student, prints[s.student])]
    done = len(found.submissions) - len(pending)
    print(f"check --batch {display_name(str(folder))}: {len(found.submissions)} submissions, {len(pending)} to grade"
          + (f" ({done} already graded, from {state.path.name})" if done else "")
          + (f" (regraded on request: {', '.join(sorted(forced))})" if forced else "")
          + (f", on the Dask scheduler {scheduler}" if scheduler else f", {jobs} at a time")
          + f"; state: {display_name(str(state.path))}", file=stdout)
    print(options.header() + (f"; class limit {budget.cpu_limit:g} CPU s (wall backstop {budget.wall_limit:g} s)"
                              if budget else ""), file=stdout, flush=True)
    if found.ignored:
        print(f"ignored (not a submission): {', '.join(found.ignored[:10])}"
              + (f", ... ({len(found.ignored)} in all)" if len(found.ignored) > 10 else ""), file=stdout)
    try:
        progress = Progress(len(pending), stderr, order=[s.student for s in pending], jobs=jobs)
        stats = _grade_all(pending, options, jobs, state, prints, progress, budget, scheduler)
    except executor.SchedulerProblem as exc:
        print(f"check --batch: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(state.records)} graded and saved in {state.path}; "
              f"rerun with --resume to grade the rest", file=stderr)
        return int(ExitCode.FAILED)
    except ClassLimitReached:
        print(f"\nthe class limit of {budget.cpu_limit:g} CPU s ran out: {len(state.records)} graded and saved in "
              f"{state.path}, {len(found.submissions) - len(state.records)} not graded (no verdict); "
              f"rerun with --resume (and a larger --class-limit) to grade the rest", file=stderr)
        return int(ExitCode.FAILED)
    if stats.retried:
        print(f"{len(stats.retried)} submission(s) graded again after a Dask worker was lost: "
              f"{', '.join(stats.retried[:10])}", file=stdout)
    records = course.annotate([state.records[s.student] for s in found.submissions], found.submissions)
    if not _report(records, folder, state, found.ignored, batch, stdout, stderr, course):
        return int(ExitCode.USAGE)  # a gradebook refused or a file asked for missing: never exit 0
    return int(ExitCode.OK)


def _outputs(options: BatchOptions) -> list[tuple[str, Path]]:
    """(option, path) of every file and folder the batch writes: the reports, the
    gradebooks, the feedback folder."""
    from harness.report.registry import FORMATS

    named = [(f.option, options.reports[f.name]) for f in FORMATS if f.name in options.reports]
    named += [(option, Path(path)) for option, path in (("--gradebook", options.course.gradebook),
                                                        ("--canvas-gradebook", options.course.canvas_gradebook))
              if path]
    if options.feedback:
        named.append(("--feedback", Path(options.feedback)))
    return named


def _output_folder(named: list[tuple[str, Path]]) -> Path | None:
    """The batch's output folder, where its state goes: the folder of the first report or
    gradebook, else the feedback folder; None when nothing is written (module ``state``)."""
    files = [path.resolve().parent for option, path in named if option != "--feedback"]
    folders = [path.resolve() for option, path in named if option == "--feedback"]
    return (files + folders or [None])[0]


def _refuse_inside_harness(named) -> None:
    """A ValueError in one line when a class folder, report or the state lies inside the
    harness's own folder: what is there is what every submission's sandbox reads."""
    for option, path in named:
        if inside_harness(path):
            raise ValueError(f"{option} {display_name(str(path))} is inside the harness's folder {PACKAGE_ROOT}, "
                             f"which every submission's sandbox can read; keep the class and its reports outside it")


def _budget(class_limit: float | None) -> ClassBudget | None:
    """The whole class's budget (``--class-limit``, CPU seconds; its wall backstop), or None."""
    return ClassBudget(class_limit, POLICY.backstop(class_limit)) if class_limit is not None else None


def _state_options(options: GradeOptions) -> dict:
    from harness.sandbox import confine

    state = {"tier": options.tier, "ref_deps": options.ref_deps, "timeout": options.timeout,
             "memory": options.memory, "submission_cpu": options.submission_cpu}
    if confine.unconfined():  # --unconfined: in the state, so in the class JSON, and never resumed confined
        state["confinement"] = confine.UNCONFINED_HEADLINE
    return state


def _grade_all(pending, options, jobs, state, prints, progress, budget, scheduler=None) -> RunStats:
    """Grade ``pending`` through ``harness.fanout.executor`` (``batch.tasks``), saving each record as it arrives."""
    stats = RunStats()
    with LocalRun(budget) as local:
        run = None if scheduler is not None else local
        tasks = [task(s, options, prints[s.student], run) for s in pending]
        results = executor.run(tasks, jobs=jobs, scheduler=scheduler, stats=stats)
        progress.start()   # who is running, and for how long, while nothing finishes
        try:
            for finished, result in results:
                if result:
                    state.save(finished.key, result)
                    progress.update(result)
        except BaseException:
            local.stopping.set()
            results.close()      # nothing more starts
            while local.running:  # also a run that started while this one was stopping
                stop_all_runs()
                time.sleep(0.05)
            raise
        finally:
            progress.close()
    return stats


def _report(records, folder, state, ignored, options: BatchOptions, stdout, stderr, course: Course) -> bool:
    """Publish the class (``report.publish``); False when something asked for was not written."""
    return report.publish(records, folder, state.options, list(ignored), options, stdout, stderr, course)
