"""Benchmark: ``check --batch`` throughput, submissions graded per minute (issues 18, 23),
and where the batch's own time goes.

Subject: a class of 40 mixed submissions built in a temporary folder from this
checkout: 16 copies of the reference (package folders in the spec's layout
``python/tinyllm/infer/constrain/``), the Brzozowski candidate twice (correct, a file
each), the 12 ``wrong_*`` pitfall candidates plus ``wrong_missing_names``, 7 hostile ones
(exit on import, loop forever, ``os._exit``, ``sys.exit``, segfault, allocate forever,
monkeypatch) and 2 more (``skips_tests``, ``needs_ref_deps``), all from
``tests/candidates/``. Graded with ``--jobs 2 --timeout 10`` (so the looping candidate
costs 10 CPU s per test it hangs in, not 60). The issue's figure is the rate on a class of
correct and wrong submissions: the same class without the 7 hostile ones, graded after it
(the hanging candidate alone costs its lane ~100 CPU s by policy, which no fixed cost
explains). Unless ``--quick``, three runs (median); the
issue asks for the rate, not a ratio, so no peer is measured (a ``--jobs 1`` run would
cost twice as long again on a shared machine). The load average is printed before and
after each run (the rate is only comparable at a similar load).

The batch's own overhead, per submission, measured apart (medians of 5):

- ``start check``: starting the check process, ``python -I -m
  harness.commands.check_entry --help`` (what the batch runs), against ``python -I -m
  harness.cli check --help`` (what it ran before: ``harness.cli`` builds every verb's
  parser, and ``conform``'s imports ``openai``);
- ``intake``: the private copy, locating the module and compiling it (the syntax check),
  for one reference package;
- ``/proc scan``: one sample of the process table (the per-submission CPU limit's cost,
  taken at most every 0.25 s near a limit and every 5 s far from it);
- ``fixed cost of one check run``: the CPU seconds of a whole ``check`` run's process
  tree (the check process, its grader child, the confined candidate) on the reference
  with one trivial test (``--only test_vocab_bytes``), started as the batch starts it, with
  the grader child forked from the warm check process (``harness.run.launch``) and as a
  new interpreter (``CONSTRAIN_HARNESS_GRADER_FORK=0``): what each submission costs
  besides its tests. CPU seconds, not wall time: comparable under load.

The batch rows' note gives the CPU seconds per submission (every process tree the batch
started, and the batch's own process apart): the figure the target rests on (30 a minute
with 2 jobs is 4 CPU s per submission, all included, on 2 cores kept busy).

**Another class** (``bench batch --class DIR``): the folder DIR (a class as ``check --batch``
takes it) is copied to a temporary folder (its own batch state is never touched) and graded
as above, instead of the built classes; its rate is the row.

**The worst case** (``bench batch --class worst-case``, issue 50): a class of
``WORST_CASE_CORRECT`` correct submissions (copies of the reference in the spec's layout)
plus the three that cost a batch most, from ``tests/candidates/``: ``loops_forever``
(spins in ``regex_to_dfa``: stopped by its CPU limit), ``sleeps`` (sleeps in ``regex_to_dfa``,
using no CPU: stopped by the calibrated wall limit, ``harness.policy.WallCalibration``) and
``resources_forks_to_the_limit`` (forks until its cgroup's task limit at import); then the
same class without those three. The row gives both times and their ratio, whose target is
``WORST_CASE_TARGET`` (the worst case within 3x the correct class's time).

Needs the source checkout (``tests/candidates``); an installed copy prints why it skips.
"""

from __future__ import annotations

import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.bench.timing import Row, Timing, measure
from harness.sandbox import lending

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
REFERENCE_COPIES = 16
HOSTILE = ("exits_on_import.py", "loops_forever.py", "exits_os.py", "exits_sys.py", "crashes_interpreter.py",
           "allocates_forever.py", "monkeypatches.py")
OTHERS = ("skips_tests.py", "needs_ref_deps.py", "wrong_missing_names.py")
TIMEOUT = 10
WORST_CASE_CORRECT = 10
WORST_CASE = ("loops_forever.py", "sleeps.py", "resources_forks_to_the_limit.py")
WORST_CASE_TARGET = 3.0   # the worst-case class's time, at most this times the correct class's


def build_class(folder: Path, hostile: bool = True) -> int:
    """Lay out the class in ``folder`` (with ``hostile``: also the candidates that hang, crash
    or attack); returns how many submissions."""
    for i in range(REFERENCE_COPIES):
        shutil.copytree(ROOT / "oracles" / "automaton",
                        folder / f"ref{i:02d}" / "python" / "tinyllm" / "infer" / "constrain",
                        ignore=shutil.ignore_patterns("__pycache__"))
    # grade-tests' wheats (package data)
    brzozowski = ROOT / "harness" / "grading" / "gradetests" / "wheats" / "brzozowski.py"
    wrong = sorted(p for p in CANDIDATES.glob("wrong_*.py") if p.name != "wrong_missing_names.py")
    files = [brzozowski, brzozowski, *wrong, *(CANDIDATES / name for name in ((*HOSTILE, *OTHERS) if hostile
                                                                              else OTHERS))]
    for i, path in enumerate(files):
        shutil.copy2(path, folder / f"s{i:02d}_{path.stem}.py")
    return REFERENCE_COPIES + len(files)


def build_worst_case_class(folder: Path, hostile: bool = True) -> int:
    """Lay out the worst-case class in ``folder``: ``WORST_CASE_CORRECT`` copies of the reference
    and (with ``hostile``) the ``WORST_CASE`` candidates; returns how many submissions."""
    for i in range(WORST_CASE_CORRECT):
        shutil.copytree(ROOT / "oracles" / "automaton",
                        folder / f"correct{i:02d}" / "python" / "tinyllm" / "infer" / "constrain",
                        ignore=shutil.ignore_patterns("__pycache__"))
    for name in WORST_CASE if hostile else ():
        shutil.copy2(CANDIDATES / name, folder / f"worst_{name}")
    return WORST_CASE_CORRECT + (len(WORST_CASE) if hostile else 0)


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _cpu() -> tuple[float, float]:
    """CPU seconds so far: of the reaped process trees (every check run), of this process."""
    children, own = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    return children.ru_utime + children.ru_stime, own.ru_utime + own.ru_stime


def _grade_class(folder: Path, jobs: int) -> tuple[float, str, float, float]:
    """(wall seconds, the verdicts line, CPU seconds of the runs' trees, CPU seconds of the batch itself)."""
    from harness.cli import main
    from harness.grading.batch.state import state_path

    state_path(folder).unlink(missing_ok=True)   # every run grades the whole class
    out = io.StringIO()
    trees, own = _cpu()
    start = time.perf_counter()
    code = main(["check", "--batch", str(folder), "--jobs", str(jobs), "--timeout", str(TIMEOUT)], out, io.StringIO())
    seconds = time.perf_counter() - start
    trees_after, own_after = _cpu()
    verdicts = out.getvalue().split("students: ", 1)[-1].split("\n", 1)[0] if code == 0 else f"exit {code}"
    return seconds, verdicts, trees_after - trees, own_after - own


def _fixed_cost(report) -> None:
    """CPU seconds of one check run with one trivial test: its grader child forked, and a new interpreter."""
    from harness.grading.autograder.grading import CHECK_ENTRY
    from harness.run.launch import FORK_ENV
    from harness.sandbox import isolated

    for label, fork in (("forked grader child", "1"), ("new interpreter", "0")):
        seconds = []
        with tempfile.TemporaryDirectory() as scratch:
            for _ in range(5):
                before, _own = _cpu()
                subprocess.run(isolated.command(CHECK_ENTRY, "--impl", str(ROOT / "oracles" / "automaton"), "--only",
                                                "test_vocab_bytes", "--json", str(Path(scratch) / "r.json")),
                               env=isolated.environment({FORK_ENV: fork}), cwd=scratch, capture_output=True, check=True)
                seconds.append(_cpu()[0] - before)
        report.add(Row("batch overhead", f"fixed cost of one check run, {label}",
                       Timing(statistics.median(seconds), min(seconds), len(seconds)),
                       note=f"CPU s of the run's process tree (median of 5), {_load()}"))


def _overheads(report, folder: Path) -> None:
    """The batch's own costs per submission, apart from check's work."""
    from harness.grading.autograder.bounded import _processes
    from harness.grading.autograder.grading import CHECK_ENTRY
    from harness.grading.autograder.locate import locate_module, syntax_problem
    from harness.intake import copy_submission

    for label, argv in (("start check (check_entry)", ["-m", CHECK_ENTRY]), ("start check (harness.cli)",
                                                                            ["-m", "harness.cli", "check"])):
        timing = measure(lambda argv=argv: subprocess.run([sys.executable, "-I", *argv, "--help"], check=True,
                                                          capture_output=True, cwd=tempfile.gettempdir()),
                         repeat=5, warmup=1)
        report.add(Row("batch overhead", label, timing, note=_load()))

    def intake() -> None:
        with tempfile.TemporaryDirectory() as scratch:
            copy_submission(folder / "ref00", Path(scratch) / "submission")
            syntax_problem(locate_module(Path(scratch) / "submission"))

    report.add(Row("batch overhead", "intake + locate + syntax", measure(intake, repeat=5, warmup=1)))
    report.add(Row("batch overhead", "/proc scan", measure(_processes, repeat=20, warmup=2),
                   note=f"{len(_processes())} processes"))
    _fixed_cost(report)


def run(report, quick: bool, class_dir: str | None = None) -> None:
    """The benchmark (module docstring); ``class_dir``: ``--class``, a folder or ``"worst-case"``."""
    if class_dir is not None and class_dir != "worst-case":
        _other_class(report, Path(class_dir), quick)
        return
    if not CANDIDATES.is_dir():
        print(f"  skipped: no tests/candidates next to this harness ({ROOT}); run it from the checkout",
              file=report.out)
        return
    if class_dir == "worst-case":
        with lending.lent_to_staff_candidates():  # its hostile three come from the gallery, which wraps the reference
            _worst_case(report, quick)
        return
    # the gallery wraps the reference: the staff's own candidates, lent it (harness.sandbox.lending)
    with tempfile.TemporaryDirectory(prefix="constrain-harness-bench-batch-") as scratch, \
            lending.lent_to_staff_candidates():
        folder = Path(scratch) / "class"
        n = build_class(folder)
        _overheads(report, folder)
        _rate(report, folder, n, quick, "with the hostile gallery")
        honest = Path(scratch) / "honest"
        _rate(report, honest, build_class(honest, hostile=False), quick, "correct and wrong")


def _rate(report, folder: Path, n: int, quick: bool, label: str) -> None:
    """Grade the class in ``folder`` (once, or three times for a median) and add its rate."""
    runs = []
    for _ in range(1 if quick else 3):
        before = _load()
        runs.append(_grade_class(folder, 2))
        print(f"    {label}, run {len(runs)}: {runs[-1][0]:.0f} s, {before} before, {_load()} after", file=report.out)
    seconds = [run[0] for run in runs]
    median = statistics.median(seconds)
    trees = statistics.median(run[2] for run in runs) / n
    own = statistics.median(run[3] for run in runs) / n
    print(f"    verdicts ({label}): {runs[0][1]}", file=report.out)
    report.add(Row("batch", f"{n} submissions, {label}, --jobs 2", Timing(median, min(seconds), len(runs)),
                   note=f"{60 * n / median:.1f} submissions/min (median of {len(runs)}); {trees:.2f} CPU s per "
                        f"submission in its check run, {own:.2f} in the batch's own process",
                   target=">= 30 per minute" if label == "correct and wrong" else "per minute"))


def check_class_dir(text: str) -> str:
    """``--class``'s value: ``worst-case`` or a folder that exists; a ValueError naming it otherwise."""
    if text != "worst-case" and not Path(text).is_dir():
        raise ValueError(f"--class takes a class folder or 'worst-case': {text!r} is neither")
    return text


def _other_class(report, folder: Path, quick: bool) -> None:
    """Grade a copy of the class in ``folder`` (``--class DIR``) and add its rate."""
    check_class_dir(str(folder))
    with tempfile.TemporaryDirectory(prefix="constrain-harness-bench-batch-") as scratch:
        copy = Path(scratch) / folder.resolve().name
        shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns("*.batch-state.json"))
        n = sum(1 for entry in copy.iterdir() if not entry.name.startswith("."))
        _rate(report, copy, n, quick, f"the class {folder.name}")


def _worst_case(report, quick: bool) -> None:
    """The worst-case class and its correct part, graded one after the other; the ratio of their times."""
    with tempfile.TemporaryDirectory(prefix="constrain-harness-bench-batch-") as scratch:
        worst, correct = Path(scratch) / "worst", Path(scratch) / "correct"
        n_worst, n_correct = build_worst_case_class(worst), build_worst_case_class(correct, hostile=False)
        times = {}
        for label, folder in (("correct", correct), ("worst case", worst)):
            runs = []
            for _ in range(1 if quick else 3):
                before = _load()
                runs.append(_grade_class(folder, 2))
                print(f"    {label}, run {len(runs)}: {runs[-1][0]:.0f} s, {before} before, {_load()} after; "
                      f"{runs[-1][1]}", file=report.out)
            seconds = [r[0] for r in runs]
            times[label] = (statistics.median(seconds), min(seconds), len(runs))
        ratio = times["worst case"][0] / times["correct"][0]
        report.add(Row("batch", f"{n_correct} correct submissions, --jobs 2", Timing(*times["correct"]),
                       note=f"the worst case's baseline, {_load()}"))
        report.add(Row("batch", f"worst case: the {n_correct} + looping, sleeping, fork-bombing, --jobs 2",
                       Timing(*times["worst case"]),
                       note=f"{ratio:.2f}x the correct class's time ({n_worst} submissions), {_load()}",
                       target=f"<= {WORST_CASE_TARGET:g}x the correct class"))
