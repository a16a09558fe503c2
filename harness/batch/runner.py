"""The pool of ``check --batch``: grade the pending submissions N at a time, save each
as it finishes, then print and write the reports.

A thread per job waits on one ``check`` process (the work is in the processes, so
threads are enough). Ctrl-C kills every run in progress (``stop_all_runs``), keeps what
had finished in the state, and says how to resume.

Example::

    >>> run_batch(parse(["check", "--batch", "submissions", "--jobs", "2"]), sys.stdout, sys.stderr)
    0
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from harness.autograder.grading import GradeOptions, grade_module, grade_submission, stop_all_runs
from harness.batch import reports
from harness.batch.progress import Progress
from harness.batch.records import record
from harness.batch.state import BatchState
from harness.batch.submissions import Submission, discover, fingerprint
from harness.exitcodes import ExitCode
from harness.report import registry

__all__ = ["run_batch", "MAX_JOBS"]

MAX_JOBS = 64
# check's options that mean nothing for a batch (each has its own per-run meaning)
_SINGLE_RUN_OPTIONS = {"impl": "--impl", "only": "--only", "deep": "--deep", "junit_xml": "--junit-xml",
                       "gradescope": "--gradescope", "golden_file": "--golden-file"}


def run_batch(args, stdout, stderr) -> int:
    try:
        options, jobs = _options(args)
        folder = Path(args.batch)
        outputs = frozenset(p.resolve() for p in registry.requested(args).values())
        found = discover(folder, skip=outputs)
        state = BatchState.open(folder, _state_options(options), resume=args.resume)
    except ValueError as exc:
        print(f"check --batch: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    prints = {s.student: fingerprint(s) for s in found.submissions}
    pending = [s for s in found.submissions if not state.finished(s.student, prints[s.student])]
    done = len(found.submissions) - len(pending)
    print(f"check --batch {folder}: {len(found.submissions)} submissions, {len(pending)} to grade"
          + (f" ({done} already graded, from {state.path.name})" if done else "")
          + f", {jobs} at a time; state: {state.path}", file=stdout, flush=True)
    if found.ignored:
        print(f"ignored (neither a folder nor a .py file): {', '.join(found.ignored[:10])}", file=stdout)
    try:
        _grade_all(pending, options, jobs, state, prints, Progress(len(pending), stderr))
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(state.records)} graded and saved in {state.path}; "
              f"rerun with --resume to grade the rest", file=stderr)
        return int(ExitCode.FAILED)
    records = [state.records[s.student] for s in found.submissions]
    _report(records, folder, state, found.ignored, args, stdout, stderr)
    return int(ExitCode.OK)


def _options(args) -> tuple[GradeOptions, int]:
    given = [flag for attr, flag in _SINGLE_RUN_OPTIONS.items() if getattr(args, attr, None)]
    if given:
        raise ValueError(f"{', '.join(given)} cannot be combined with --batch (they describe one run)")
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"--jobs must be between 1 and {MAX_JOBS}, not {jobs}")
    tier = "strict" if getattr(args, "strict", False) else "default"
    timeout = args.timeout if args.timeout is not None else 60.0
    return GradeOptions(tier=tier, ref_deps=args.ref_deps, timeout=timeout, memory=args.memory), jobs


def _state_options(options: GradeOptions) -> dict:
    from harness.sandbox import confine

    state = {"tier": options.tier, "ref_deps": options.ref_deps, "timeout": options.timeout,
             "memory": options.memory}
    if confine.unconfined():  # --unconfined: in the state, so in the class JSON, and never resumed confined
        state["confinement"] = confine.UNCONFINED_HEADLINE
    return state


def _grade_one(submission: Submission, options: GradeOptions, print_: str) -> dict:
    grade_fn = grade_module if submission.is_file else grade_submission
    return record(submission.student, grade_fn(submission.path, options), print_)


def _grade_all(pending, options, jobs, state, prints, progress) -> None:
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="batch")
    try:
        futures = {pool.submit(_grade_one, s, options, prints[s.student]): s for s in pending}
        for future in as_completed(futures):
            result = future.result()
            state.save(futures[future].student, result)
            progress.update(result)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all_runs()
        raise
    pool.shutdown(wait=True)


def _report(records, folder, state, ignored, args, stdout, stderr) -> None:
    print("", file=stdout)
    print(reports.summary_table(records), file=stdout)
    print("", file=stdout)
    print(reports.histogram_text(records), file=stdout)
    doc = reports.to_json(records, Path(folder).resolve(), state.options, list(ignored))
    registry.write_requested(args, reports.to_report(records, doc), stderr, announce=stdout)
