"""Grade a student's suite: every wheat twice, then every chaff once, within a budget.

``grade(GradeOptions(suite=Path("tests/student_suites/strong")), progress)`` returns a
``Graded``: the ``scoring.Grade`` plus the run's facts (confinement, seed, seconds, files
check). Wheats run first, twice each (validity and flakiness); when no test is valid the
chaffs are skipped (the score is 0 whatever they do); otherwise each chaff run runs only
the valid tests (the others cannot catch anything). Chaffs run in an order shuffled by
``seed`` (recorded), ``jobs`` runs at a time, each bounded by ``timeout`` seconds and all
by ``budget`` seconds: a run that cannot start within the budget is "not run". The
harness's files are verified (and restored) after the grading: a change is reported.

Example::

    >>> graded = grade(GradeOptions(suite=Path("tests/student_suites/weak"), chaffs=("s01", "s10")))
    >>> graded.grade.total
    2
"""

from __future__ import annotations

import random
import secrets
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harness.gradetests.implementations import Implementation, all_chaffs, default_wheats, wheat
from harness.gradetests.scoring import Grade, score
from harness.gradetests.suite_run import RunResult, run_suite, secret_roots
from harness.sandbox import confine
from harness.sandbox.files import Manifest

MIN_RUN_SECONDS = 2.0  # a run with less budget left than this is not started


@dataclass(frozen=True)
class GradeOptions:
    suite: Path
    module: str = "tinyllm.infer.constrain"
    timeout: float = 60.0
    budget: float = 900.0
    wheats: tuple[str, ...] = ()     # specs ("reference", paths); empty: default_wheats()
    chaffs: tuple[str, ...] = ()     # catalogue ids; empty: all
    jobs: int = 2
    seed: int | None = None
    limits: confine.Limits = confine.Limits(memory_mb=2048)

    def __post_init__(self):
        if not Path(self.suite).is_dir():
            raise ValueError(f"the student's suite {self.suite} is not a folder")
        if not self.module or not all(p.isidentifier() for p in self.module.split(".")):
            raise ValueError(f"--module must be a dotted module name, not {self.module!r}")
        if not 0 < self.timeout <= self.budget:
            raise ValueError(f"--timeout ({self.timeout}) must be positive and at most --budget ({self.budget})")
        if self.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, not {self.jobs}")


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


Progress = Callable[[int, int, RunResult], None]


def grade(options: GradeOptions, progress: Progress | None = None) -> Graded:
    from harness.check import protected_roots

    start = time.monotonic()
    seed = options.seed if options.seed is not None else secrets.randbelow(1 << 31)
    marker = "gradetests-" + secrets.token_hex(6)
    wheats = [wheat(s) for s in options.wheats] if options.wheats else default_wheats()
    root = Path(tempfile.mkdtemp(prefix="constrain-chaffs-"))
    manifest = Manifest.take(protected_roots())
    try:
        chaffs = all_chaffs(root, options.chaffs)
        random.Random(seed).shuffle(chaffs)
        runner = _Runner(options, marker, secret_roots(wheats + chaffs), start + options.budget,
                         2 * len(wheats) + len(chaffs), progress)
        wheat_results = runner.run_all([w for w in wheats for _ in range(2)])
        wheat_runs: dict[str, list[RunResult]] = {w.id: [] for w in wheats}
        for result in wheat_results:
            wheat_runs[result.implementation].append(result)
        valid = score(wheat_runs, {}).valid
        if valid:
            chaff_results = runner.run_all(chaffs, only=valid)
        else:
            chaff_results = [RunResult(c.id, "chaff", "skipped", "no valid test: the score is 0") for c in chaffs]
        chaff_runs = {r.implementation: r for r in sorted(chaff_results, key=lambda r: r.implementation)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
        tampered = manifest.verify()
        if tampered:
            manifest.restore()
    plan = confine.plan(options.limits, [], [], root, marker)
    return Graded(score(wheat_runs, chaff_runs), options, seed, marker, plan.description, plan.mode,
                  time.monotonic() - start, [w.id for w in wheats], sorted(chaff_runs), tampered)


class _Runner:
    """Runs implementations ``jobs`` at a time within the total budget."""

    def __init__(self, options: GradeOptions, marker: str, hidden: list[Path], budget_end: float, total: int,
                 progress: Progress | None):
        self.options, self.marker, self.hidden, self.budget_end = options, marker, hidden, budget_end
        self.total, self.done, self.progress = total, 0, progress
        self.lock = threading.Lock()

    def run_all(self, implementations: list[Implementation], only: list[str] | None = None) -> list[RunResult]:
        with ThreadPoolExecutor(max_workers=self.options.jobs) as pool:
            futures = [pool.submit(self.run_one, impl, only) for impl in implementations]
            return [f.result() for f in futures]

    def run_one(self, impl: Implementation, only: list[str] | None) -> RunResult:
        left = self.budget_end - time.monotonic()
        if left < MIN_RUN_SECONDS:
            result = RunResult(impl.id, impl.role, "not run", f"the total budget ({self.options.budget:g} s) was spent")
        else:
            result = run_suite(self.options.suite, impl, module=self.options.module,
                               timeout=min(self.options.timeout, left), marker=self.marker, secrets=self.hidden,
                               limits=self.options.limits, only=only)
        with self.lock:
            self.done += 1
            if self.progress:
                self.progress(self.done, self.total, result)
        return result
