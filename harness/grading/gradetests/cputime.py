"""CPU seconds of a set of process trees: what grade-tests' limits count.

A run of a student's suite is two process trees (the suite's, the implementation's), each
under a root the grader started. ``tree_cpu_seconds(roots)`` sums
``harness.sandbox.cputime.tree_seconds`` (user + system CPU of every live descendant plus
what their reaped children used) over the roots; a machine busy with other work does not
change it. ``TreeClock`` keeps the largest value read (a process that ends before its
parent reaps it is briefly missing from both).

Example::

    >>> clock = TreeClock()
    >>> clock.read([os.getpid()]) >= 0.0
    True
"""

from __future__ import annotations

import os  # noqa: F401 - the docstring's example

from harness.sandbox.cputime import tree_seconds


def tree_cpu_seconds(roots: list[int]) -> float:
    """CPU seconds of the process trees under ``roots`` (module docstring)."""
    return sum(tree_seconds(root) for root in roots if root)


class TreeClock:
    """The CPU seconds of a set of process trees, never decreasing (module docstring).
    ``read`` takes the roots' pids (counted from ``/proc``) or a reading already made (the
    trees' cgroups: every process they ever ran, ``grading.gradetests.suite_run``)."""

    def __init__(self):
        self.seconds = 0.0

    def read(self, roots: list[int] | float) -> float:
        seconds = roots if isinstance(roots, float) else tree_cpu_seconds(roots)
        self.seconds = max(self.seconds, seconds)
        return self.seconds
