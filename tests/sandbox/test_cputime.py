"""``harness.sandbox.cputime`` in this process (the fast loop's share of it; the process
trees of real candidates are in ``tests/sandbox/test_cpu_limits.py``, end to end): CPU seconds
read from ``/proc`` agree with the kernel's own account (``resource.getrusage``)."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

from harness.sandbox import cputime


def _own_rusage_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_this_process_s_seconds_agree_with_getrusage_and_grow_with_work():
    before = cputime.process_seconds(os.getpid())
    _burn(0.3)
    after, oracle = cputime.process_seconds(os.getpid()), _own_rusage_seconds()
    assert after - before >= 0.25  # clock ticks: 10 ms apart
    assert abs(after - oracle) < 0.1, (after, oracle)


def test_the_tree_holds_at_least_the_process_itself():
    assert cputime.tree_seconds(os.getpid()) >= cputime.process_seconds(os.getpid()) > 0


def test_a_process_that_does_not_exist_has_spent_nothing():
    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no pid is ever this large
    assert cputime.process_seconds(gone) == 0.0 and cputime.tree_seconds(gone) == 0.0
