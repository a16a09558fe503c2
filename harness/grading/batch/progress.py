"""A progress bar for ``check --batch``: redrawn in place on a terminal, one line per
finished submission otherwise (a log, a CI job, a test's StringIO); and, while a
submission takes long, which ones are running and for how long.

``Progress(total, out, order=students, jobs=N)`` follows a local run's order: the pool
starts the submissions in the order given, ``jobs`` at a time, the next one as one
finishes, so the running ones are the first ``jobs`` not finished yet, each started when
a slot freed up (on a Dask cluster the order is the scheduler's: the names are then a
guess, and said as "in the queue" nowhere else). ``tick()`` (every ``TICK`` seconds from a
thread started by ``start()``, stopped by ``close()``) says who is running past ``TICK``
seconds: on a terminal it redraws the line with the name and elapsed time instead of an
ETA that cannot know; in a log it prints ``  still grading bob (2 min 5 s)``.

Example (not a terminal)::

    [ 3/40] alice: passed 16/16 (3.1 s)
      still grading bob (1 min 0 s), carol (35 s)
"""

from __future__ import annotations

import threading
import time

from harness.grading.autograder.grading import printable
from harness.report.progress import bar

__all__ = ["Progress", "TICK"]

_WIDTH = 30
TICK = 30.0   # seconds between two "still grading" lines in a log (a terminal redraws every second)


class Progress:
    def __init__(self, total: int, out, skipped: int = 0, order=(), jobs: int = 1, tick: float = TICK):
        self.total, self.done, self.skipped = total, 0, skipped
        self.out = out
        self.start_time = time.monotonic()
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.jobs = max(1, int(jobs))
        self.queue = [str(s) for s in order]     # not started yet, in the pool's order
        self.running: dict[str, float] = {}       # started -> when (monotonic)
        self.tick_seconds = 1.0 if self.tty else tick
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fill()

    def start(self) -> "Progress":
        """Say who is running every ``tick`` seconds from now on (a daemon thread)."""
        if self._thread is None and self.queue + list(self.running):
            self._thread = threading.Thread(target=self._ticking, name="batch-progress", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def update(self, record: dict) -> None:
        with self._lock:
            self.done += 1
            name = str(record["student"])
            self.running.pop(name, None)
            if name in self.queue:
                self.queue.remove(name)
            self._fill()
            if self.tty:
                line = self._line(f"last {printable(name, 30)}: {record['verdict']}")
                print(f"{line:<100}", end="" if self.done < self.total else "\n", file=self.out, flush=True)
            else:
                width = len(str(self.total))
                print(f"[{self.done:>{width}}/{self.total}] {record['student']}: {record['verdict']} "
                      f"{record['passed']}/{record['total']} ({record['seconds']:.1f} s)", file=self.out, flush=True)

    def tick(self) -> None:
        """Say which submissions have been running for longer than one tick, with their time."""
        with self._lock:
            now = time.monotonic()
            slow = [(name, now - since) for name, since in self.running.items() if now - since >= self.tick_seconds]
            if not slow or self.done >= self.total:
                return
            words = ", ".join(f"{printable(name, 30)} ({_duration(seconds)})" for name, seconds in slow)
            if self.tty:
                line = self._line(f"grading {words}")
                print(f"{line:<100}", end="", file=self.out, flush=True)
            else:
                print(f"  still grading {words}", file=self.out, flush=True)

    def _line(self, tail: str) -> str:
        return f"\r{bar(self.done, self.total, _WIDTH)} {self.done}/{self.total} graded, {tail}"

    def _fill(self) -> None:
        now = time.monotonic()
        while self.queue and len(self.running) < self.jobs:
            self.running[self.queue.pop(0)] = now

    def _ticking(self) -> None:
        while not self._stop.wait(self.tick_seconds):
            self.tick()


def _duration(seconds: float) -> str:
    """``35 s``, ``2 min 5 s``, ``1 h 3 min``."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
