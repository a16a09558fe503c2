"""A progress bar for ``check --batch``: redrawn in place on a terminal, one line per
finished submission otherwise (a log, a CI job, a test's StringIO).

Example (not a terminal)::

    [ 3/40] alice: passed 16/16 (3.1 s)
"""

from __future__ import annotations

import time

from harness.grading.autograder.grading import printable
from harness.report.progress import bar

__all__ = ["Progress"]

_WIDTH = 30


class Progress:
    def __init__(self, total: int, out, skipped: int = 0):
        self.total, self.done, self.skipped = total, 0, skipped
        self.out = out
        self.start = time.monotonic()
        self.tty = bool(getattr(out, "isatty", lambda: False)())

    def update(self, record: dict) -> None:
        self.done += 1
        if self.tty:
            elapsed = time.monotonic() - self.start
            eta = elapsed / self.done * (self.total - self.done)
            line = (f"\r{bar(self.done, self.total, _WIDTH)} {self.done}/{self.total} graded, "
                    f"last {printable(record['student'], 30)}: {record['verdict']}, eta {eta:.0f} s")
            print(f"{line:<100}", end="" if self.done < self.total else "\n", file=self.out, flush=True)
        else:
            width = len(str(self.total))
            print(f"[{self.done:>{width}}/{self.total}] {record['student']}: {record['verdict']} "
                  f"{record['passed']}/{record['total']} ({record['seconds']:.1f} s)", file=self.out, flush=True)
