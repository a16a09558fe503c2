"""CPU seconds of process trees, read from ``/proc``: what grade-tests' limits count.

A run of a student's suite is two process trees (the suite's, the implementation's), each
under a root the grader started. ``tree_cpu_seconds(roots)`` is the CPU time (user +
system) of every live process descending from ``roots`` plus what their reaped children
used (``cutime``/``cstime``), so a process that forks workers and waits for them is
charged for them; a machine busy with other work does not change it (a wall-clock limit
would). ``TreeClock`` keeps the largest value read (a process that ends before its parent
reaps it is briefly missing from both).

Example::

    >>> clock = TreeClock()
    >>> clock.read([os.getpid()]) >= 0.0
    True
"""

from __future__ import annotations

import os

TICKS = os.sysconf("SC_CLK_TCK")


def _own_seconds(pid: int) -> float | None:
    """CPU seconds of ``pid`` and its reaped children (None: it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    # cutime cstime (proc(5))
    return sum(int(x) for x in fields[11:15]) / TICKS


def _children(pid: int) -> list[int]:
    """The live children of ``pid``, from every thread's ``children`` list (proc(5))."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found += [int(x) for x in f.read().split()]
        except OSError:
            continue
    return found


def tree_cpu_seconds(roots: list[int]) -> float:
    """CPU seconds of the live process trees under ``roots`` (module docstring); the walk
    reads only the trees' own ``/proc`` entries, not every process of the machine."""
    seen: set[int] = set()
    stack, total = list(roots), 0.0
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        own = _own_seconds(pid)
        if own is None:
            continue
        total += own
        stack.extend(_children(pid))
    return total


class TreeClock:
    """The CPU seconds of a set of process trees, never decreasing (module docstring)."""

    def __init__(self):
        self.seconds = 0.0

    def read(self, roots: list[int]) -> float:
        self.seconds = max(self.seconds, tree_cpu_seconds([r for r in roots if r]))
        return self.seconds
