"""Shared timing helpers for the benchmarks: medians, ratios, one table.

``measure(fn, repeat=..., warmup=...)`` calls ``fn()`` ``warmup`` times untimed, then
``repeat`` times with ``time.perf_counter_ns`` and returns a ``Timing`` (median, min,
repeat count). ``Report`` collects rows ``(benchmark, subject, Timing, target)``
and prints them with ratios against the row named as peer, plus a machine line.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import statistics
import sys
import time
from typing import Callable, TextIO

from harness.report.units import format_seconds  # noqa: F401 - the benchmarks import it from here


@dataclasses.dataclass(frozen=True)
class Timing:
    median_s: float
    min_s: float
    repeat: int

    def fmt(self) -> str:
        return format_seconds(self.median_s)


def measure(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 1) -> Timing:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1e9)
    return Timing(statistics.median(samples), min(samples), repeat)


def machine_line() -> str:
    return (f"machine: {platform.machine()} {os.cpu_count()} cores, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}")


@dataclasses.dataclass
class Row:
    benchmark: str
    subject: str
    timing: Timing
    note: str = ""
    peer_of: str | None = None  # the subject this row is measured against, if any
    target: str = ""            # e.g. "<= 10 ms", "ratio <= 0.33"


class Report:
    """Rows of one benchmark run, printed as they arrive and as a closing table."""

    def __init__(self, out: TextIO = sys.stdout):
        self.out = out
        self.rows: list[Row] = []

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        print(f"  {row.benchmark:<28} {row.subject:<26} median {row.timing.fmt():>10}"
              f"  (n={row.timing.repeat}) {row.note}", file=self.out, flush=True)
        return row

    def ratio(self, benchmark: str, ours: str, peer: str) -> float | None:
        a = self._find(benchmark, ours)
        b = self._find(benchmark, peer)
        if a is None or b is None or b.timing.median_s == 0:
            return None
        return a.timing.median_s / b.timing.median_s

    def _find(self, benchmark: str, subject: str) -> Row | None:
        for row in self.rows:
            if row.benchmark == benchmark and row.subject == subject:
                return row
        return None

    def table(self) -> list[tuple]:
        """The closing table's rows: (benchmark, subject, median, runs, ratio, target)."""
        rows = []
        for row in self.rows:
            ratio = ""
            if row.peer_of is not None:
                r = self.ratio(row.benchmark, row.peer_of, row.subject)
                ratio = f"{r:.3f}" if r is not None else "-"
            rows.append((row.benchmark, row.subject, row.timing.fmt(), row.timing.repeat, ratio, row.target))
        return rows

    def summary(self) -> None:
        print(machine_line(), file=self.out)
        print(f"{'benchmark':<28} {'subject':<26} {'median':>10} {'n':>4}  {'ratio':>7}  target",
              file=self.out)
        for benchmark, subject, median, repeat, ratio, target in self.table():
            print(f"{benchmark:<28} {subject:<26} {median:>10} {repeat:>4}  {ratio:>7}  {target}", file=self.out)
