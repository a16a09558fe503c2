"""Benchmark: ``check --batch`` throughput, submissions graded per minute (issue 18).

Subject: a class of 40 mixed submissions built in a temporary folder from this
checkout: 16 copies of the reference (package folders in the seed's layout
``python/tinyllm/infer/constrain/``), the Brzozowski candidate twice (correct, a file
each), the 12 ``wrong_*`` pitfall candidates plus ``wrong_missing_names``, 7 hostile ones
(exit on import, loop forever, ``os._exit``, ``sys.exit``, segfault, allocate forever,
monkeypatch) and 2 more (``skips_tests``, ``needs_ref_deps``), all from
``tests/candidates/``. Graded with ``--jobs 2 --timeout 10`` (so the looping candidate
costs 10 s per test it hangs in, not 60). Unless ``--quick``, three runs (median); the
issue asks for the rate, not a ratio, so no peer is measured (a ``--jobs 1`` run would
cost twice as long again on a shared machine).

Needs the source checkout (``tests/candidates``); an installed copy prints why it skips.
"""

from __future__ import annotations

import io
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from harness.bench.timing import Row, Timing

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ROOT / "tests" / "candidates"
REFERENCE_COPIES = 16
HOSTILE = ("exits_on_import.py", "loops_forever.py", "exits_os.py", "exits_sys.py", "crashes_interpreter.py",
           "allocates_forever.py", "monkeypatches.py")
OTHERS = ("skips_tests.py", "needs_ref_deps.py", "wrong_missing_names.py")
TIMEOUT = 10


def build_class(folder: Path) -> int:
    """Lay out the 40 submissions in ``folder``; returns how many."""
    for i in range(REFERENCE_COPIES):
        shutil.copytree(ROOT / "oracles" / "automaton",
                        folder / f"ref{i:02d}" / "python" / "tinyllm" / "infer" / "constrain",
                        ignore=shutil.ignore_patterns("__pycache__"))
    brzozowski = ROOT / "harness" / "gradetests" / "wheats" / "brzozowski.py"  # grade-tests' wheats (package data)
    wrong = sorted(p for p in CANDIDATES.glob("wrong_*.py") if p.name != "wrong_missing_names.py")
    files = [brzozowski, brzozowski, *wrong, *(CANDIDATES / name for name in (*HOSTILE, *OTHERS))]
    for i, path in enumerate(files):
        shutil.copy2(path, folder / f"s{i:02d}_{path.stem}.py")
    return REFERENCE_COPIES + len(files)


def _grade_class(folder: Path, jobs: int) -> tuple[float, str]:
    from harness.cli import main

    out = io.StringIO()
    start = time.perf_counter()
    code = main(["check", "--batch", str(folder), "--jobs", str(jobs), "--timeout", str(TIMEOUT)], out, io.StringIO())
    seconds = time.perf_counter() - start
    verdicts = out.getvalue().split("students: ", 1)[-1].split("\n", 1)[0] if code == 0 else f"exit {code}"
    return seconds, verdicts


def run(report, quick: bool) -> None:
    if not CANDIDATES.is_dir():
        print(f"  skipped: no tests/candidates next to this harness ({ROOT}); run it from the checkout",
              file=report.out)
        return
    with tempfile.TemporaryDirectory(prefix="constrain-harness-bench-batch-") as scratch:
        folder = Path(scratch) / "class"
        n = build_class(folder)
        runs = [_grade_class(folder, 2) for _ in range(1 if quick else 3)]
        seconds = [s for s, _ in runs]
        median = statistics.median(seconds)
        print(f"    verdicts: {runs[0][1]}", file=report.out)
        report.add(Row("batch", f"{n} submissions, --jobs 2", Timing(median, min(seconds), len(runs)),
                       note=f"{60 * n / median:.1f} submissions/min (median of {len(runs)})", target="per minute"))
