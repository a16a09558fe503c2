"""Grade a student's suite: every wheat twice, then every chaff once, within a CPU budget.

``grade(GradeOptions(suite=Path("tests/student_suites/strong")), progress)`` returns a
``Graded``: the ``scoring.Grade`` plus the run's facts (confinement, seed, policy,
seconds, files check). Wheats run first, twice each (validity and flakiness); when no test
is valid the chaffs are skipped (the score is 0 whatever they do); otherwise every chaff
runs the whole suite, exactly as the wheats did (the same hello, the same tests: invalid
tests are filtered when scoring, so a suite cannot tell a chaff by what it is asked to
run). Chaffs run in an order shuffled by ``seed``, ``jobs`` runs at a time, through
``harness.fanout.executor`` (``gradetests.tasks``); with ``scheduler`` (``--scheduler``) each run
goes to a Dask worker as data (the suite's bytes, the implementation's name) and the CPU
budget is charged here as the results arrive.

Limits are CPU seconds of the suite's and the implementation's process trees
(``suite_run.RunLimits``): ``test_cpu`` per test, ``timeout`` per run, ``budget`` for the
whole grading (a run that cannot start within it is "not run"); wall time is only the
backstop (``POLICY.backstop``, 10x each), and a run a backstop ended is run once more
before its verdict stands. The run seed (``--seed``; by default derived from the suite's
content, so a regrade draws the same) goes to every run (``random``, numpy, Hypothesis)
and is printed in every report: the same suite and seed give the same report, timings
aside. The harness's files are verified (and restored) after the grading: a change is
reported.

Example::

    >>> graded = grade(GradeOptions(suite=Path("tests/student_suites/weak"), chaffs=("s01", "s10")))
    >>> graded.grade.total
    2
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import random
import secrets
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harness.fanout import executor
from harness.fanout.executor import RunStats, Task
from harness.grading.gradetests import tasks
from harness.grading.gradetests.implementations import Implementation, all_chaffs, default_wheats, wheat
from harness.grading.gradetests.limits import RUN_CPU_SECONDS, RunLimits
from harness.grading.gradetests.readings import declared_readings
from harness.grading.gradetests.scoring import Grade, score
from harness.grading.gradetests.suite_run import RunResult, run_suite, secret_roots
from harness.policy import POLICY
from harness.sandbox import confine
from harness.sandbox.bytecode import take_manifest

MIN_RUN_CPU = 2.0  # a run with less CPU budget left than this is not started
SEED_BITS = 31


@dataclass(frozen=True)
class GradeOptions:
    suite: Path
    module: str = "tinyllm.infer.constrain"
    test_cpu: float = POLICY.test_cpu_seconds   # CPU seconds of one test (both process trees)
    timeout: float = RUN_CPU_SECONDS            # CPU seconds of one run of the suite
    budget: float = POLICY.suite_cpu_seconds    # CPU seconds of the whole grading
    wheats: tuple[str, ...] = ()     # specs ("reference", paths); empty: default_wheats()
    chaffs: tuple[str, ...] = ()     # catalogue ids; empty: all
    jobs: int = 2
    seed: int | None = None          # None: derived from the suite's content (suite_seed)
    limits: confine.Limits = confine.Limits(memory_mb=POLICY.memory_mb)
    scheduler: str | None = None     # a Dask scheduler's address: the runs go to its workers (harness.fanout.executor)

    def __post_init__(self):
        if not Path(self.suite).is_dir():
            raise ValueError(f"the student's suite {self.suite} is not a folder")
        if not self.module or not all(p.isidentifier() for p in self.module.split(".")):
            raise ValueError(f"--module must be a dotted module name, not {self.module!r}")
        for name, value in (("--test-cpu", self.test_cpu), ("--timeout", self.timeout), ("--budget", self.budget)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a finite number of CPU seconds > 0, not {value!r}")
        if not self.timeout <= self.budget:
            raise ValueError(f"--timeout ({self.timeout:g}) must be at most --budget ({self.budget:g})")
        if self.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, not {self.jobs}")
        if self.seed is not None and not 0 <= self.seed < 1 << SEED_BITS:
            raise ValueError(f"--seed must be in [0, {1 << SEED_BITS}), not {self.seed}")

    def policy_line(self) -> str:
        """The limits in force, for the header of every report."""
        return (f"limits: {self.test_cpu:g} CPU s per test, {self.timeout:g} CPU s per run, {self.budget:g} CPU s "
                f"in all (suite and implementation process trees); wall-clock backstops "
                f"{POLICY.backstop(self.test_cpu):g} s, {POLICY.backstop(self.timeout):g} s, "
                f"{POLICY.backstop(self.budget):g} s (a run they end is run once more); ref-deps "
                f"{'on' if POLICY.ref_deps else 'off'}; {self.limits.memory_mb} MB")


@dataclass
class Graded:
    grade: Grade
    options: GradeOptions
    seed: int
    marker: str
    confinement: str
    mode: str
    seconds: float
    wheats: list[str]
    chaffs: list[str]
    tampered: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    retried: list[str] = field(default_factory=list)   # on Dask: runs done again after a worker was lost


Progress = Callable[[int, int, RunResult], None]


def suite_seed(suite: Path) -> int:
    """The run seed a suite gets by default: a hash of its files (names and bytes), so the
    same hand-in always draws the same inputs."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(suite).rglob("*") if p.is_file() and not p.is_symlink()
                       and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts):
        digest.update(str(path.relative_to(suite)).encode() + b"\0" + path.read_bytes() + b"\0")
    return int.from_bytes(digest.digest()[:4], "big") % (1 << SEED_BITS)


def wheat_readings(wheats: list[Implementation]) -> dict[str, dict[str, str]]:
    """Each wheat's readings of the decisions the spec allows two ways (``readings``)."""
    return {w.id: declared_readings(w.spec) for w in wheats}


def grade(options: GradeOptions, progress: Progress | None = None) -> Graded:
    from harness.paths import protected_roots

    start = time.monotonic()
    seed = options.seed if options.seed is not None else suite_seed(options.suite)
    marker = "gradetests-" + secrets.token_hex(6)
    wheats = [wheat(s) for s in options.wheats] if options.wheats else default_wheats()
    root = Path(tempfile.mkdtemp(prefix="constrain-chaffs-"))
    manifest = take_manifest(protected_roots())
    try:
        chaffs = all_chaffs(root, options.chaffs)
        random.Random(seed).shuffle(chaffs)
        runner = _Runner(options, seed, marker, secret_roots(wheats + chaffs), start, 2 * len(wheats) + len(chaffs),
                         progress)
        wheat_results = runner.run_all([w for w in wheats for _ in range(2)])
        wheat_runs: dict[str, list[RunResult]] = {w.id: [] for w in wheats}
        for result in wheat_results:
            wheat_runs[result.implementation].append(result)
        readings = wheat_readings(wheats)
        if score(wheat_runs, {}, readings).valid:
            chaff_results = runner.run_all(chaffs)
        else:
            chaff_results = [RunResult(c.id, "chaff", "skipped", "no valid test: the score is 0") for c in chaffs]
        chaff_runs = {r.implementation: r for r in sorted(chaff_results, key=lambda r: r.implementation)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
        tampered = manifest.verify()
        if tampered:
            manifest.restore()
    plan = confine.plan(options.limits, [], [], root, marker)
    return Graded(score(wheat_runs, chaff_runs, readings), options, seed, marker, plan.description, plan.mode,
                  time.monotonic() - start, [w.id for w in wheats], sorted(chaff_runs), tampered, runner.cpu_used,
                  runner.stats.retried)


class _Runner:
    """Runs implementations ``jobs`` at a time within the CPU budget (and its backstop)."""

    def __init__(self, options: GradeOptions, seed: int, marker: str, hidden: list[Path], start: float, total: int,
                 progress: Progress | None):
        self.options, self.seed, self.marker, self.hidden = options, seed, marker, hidden
        self.wall_end = start + POLICY.backstop(options.budget)
        self.total, self.done, self.progress = total, 0, progress
        self.cpu_used = 0.0
        self.lock = threading.Lock()
        self.implementations: list[Implementation] = []
        self.stats = RunStats()   # on Dask: the runs a lost worker was running (done again)

    def run_all(self, implementations: list[Implementation]) -> list[RunResult]:
        """Every implementation's run, in order, through ``harness.fanout.executor`` (``gradetests.tasks``)."""
        if self.options.scheduler is not None:
            return self._run_remote(implementations)
        self.implementations = implementations
        runner_id = secrets.token_hex(6)
        tasks_ = [Task(f"{i}:{impl.id}", tasks.LOCAL_FUNCTION, {"runner": runner_id, "index": i})
                  for i, impl in enumerate(implementations)]
        tasks.register(runner_id, self)
        try:
            results = {t.key: tasks.result_from(r) for t, r in executor.run(tasks_, jobs=self.options.jobs)}
        finally:
            tasks.unregister(runner_id)
        return [results[t.key] for t in tasks_]

    def _run_remote(self, implementations: list[Implementation]) -> list[RunResult]:
        """The runs on the Dask workers; the CPU budget charged here, in order (``gradetests.tasks``)."""
        suite = tasks.pack_folder(self.options.suite)
        limits = dataclasses.replace(self.options, test_cpu=min(self.options.test_cpu, self.options.budget))
        tasks_ = [Task(f"{i}:{impl.id}", tasks.REMOTE_FUNCTION,
                       tasks.remote_payload(suite, impl, limits, self.seed, self.marker))
                  for i, impl in enumerate(implementations)]
        by_key = {t.key: impl for t, impl in zip(tasks_, implementations)}
        results = {}
        for task, record in executor.run(tasks_, jobs=self.options.jobs, scheduler=self.options.scheduler,
                                         stats=self.stats):
            results[task.key] = self._charged(by_key[task.key], tasks.result_from(record))
        return [results[t.key] for t in tasks_]

    def _charged(self, impl: Implementation, result: RunResult) -> RunResult:
        with self.lock:
            if self.options.budget - self.cpu_used < MIN_RUN_CPU:
                return RunResult(impl.id, impl.role, "not run",
                                 f"the CPU budget ({self.options.budget:g} CPU s) was spent")
            self.cpu_used += result.cpu_seconds
            self.done += 1
            if self.progress:
                self.progress(self.done, self.total, result)
        return result

    def run_one(self, impl: Implementation) -> RunResult:
        result = tasks.run_twice_after_backstop(lambda: self._run(impl))
        with self.lock:
            self.done += 1
            if self.progress:
                self.progress(self.done, self.total, result)
        return result

    def _run(self, impl: Implementation) -> RunResult:
        with self.lock:
            left = self.options.budget - self.cpu_used
        if left < MIN_RUN_CPU:
            return RunResult(impl.id, impl.role, "not run", f"the CPU budget ({self.options.budget:g} CPU s) was spent")
        if time.monotonic() > self.wall_end:
            return RunResult(impl.id, impl.role, "not run", f"the grading's wall-clock backstop "
                             f"({POLICY.backstop(self.options.budget):g} s) passed")
        limits = RunLimits(test_cpu=min(self.options.test_cpu, left), run_cpu=min(self.options.timeout, left))
        result = run_suite(self.options.suite, impl, module=self.options.module, limits=limits, seed=self.seed,
                           marker=self.marker, hidden=self.hidden, sandbox=self.options.limits)
        with self.lock:
            self.cpu_used += result.cpu_seconds
        return result
