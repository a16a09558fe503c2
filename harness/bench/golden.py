"""Benchmark: the golden verbs as a user runs them, cold, in a fresh process each time.

Subjects (issue 6's targets: ``golden write`` and ``golden check`` each <= 60 s on
the project's 2-core machine):

- ``golden write``: ``python -m harness.cli golden write --dir <tmp>`` (builds both
  files, every cross-check included, and writes them);
- ``golden check``: ``python -m harness.cli golden check`` (regenerates in memory,
  diffs, validates both files against their JSON Schemas);
- ``golden replay``: ``python -m harness.cli golden replay`` against the reference
  (both files, in-process: no child).

Each repetition is a new interpreter, so imports and every cache start cold, as in CI.

    constrain-harness bench golden [--quick]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from harness.bench.timing import Row, measure

ROOT = Path(__file__).resolve().parents[2]


def _verb(*argv: str):
    def call() -> None:
        proc = subprocess.run([sys.executable, "-m", "harness.cli", "golden", *argv], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"golden {' '.join(argv)} exited {proc.returncode}: "
                               f"{proc.stdout[-500:]}{proc.stderr[-500:]}")
    return call


def run(report, quick: bool) -> None:
    repeat = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="bench-golden-") as tmp:
        report.add(Row("golden", "golden write", measure(_verb("write", "--dir", tmp), repeat=repeat, warmup=0),
                       target="<= 60 s"))
    report.add(Row("golden", "golden check", measure(_verb("check"), repeat=repeat, warmup=0), target="<= 60 s"))
    report.add(Row("golden", "golden replay (reference)", measure(_verb("replay"), repeat=repeat, warmup=0)))
