"""The CPU seconds a mutants run costs this machine, its confined candidates included.

A mutant run is a chain of processes: the verb, its graders (a warm grader and the fork that
runs each catalogue pass, or a cold ``python -m pytest``; coverage recordings; replays) and,
behind the wall, each grader's candidate process tree. ``RUSAGE_CHILDREN`` counts the graders
once they are reaped (``runner.run_all`` ends the warm graders before it returns), but never a
candidate: bubblewrap starts it in a PID namespace of its own and its tree ends with that
namespace and its cgroup, so no ``getrusage`` of any ancestor ever holds its CPU. Measured
(2026-12-06, ``mutants --only s05,s12 --jobs 1`` inside a cpuacct cgroup of its own, every
candidate cgroup beneath it): the cgroup counted 32.5 CPU s, ``RUSAGE_CHILDREN`` 18 s.

So each candidate says what it used: its grader appends the candidate cgroup's CPU seconds
to the file ``harness.sandbox.cpulog.CPU_LOG`` names as it closes the candidate. ``RunCpu`` points that
variable at a log of its own for every process the run starts (a cold grader inherits it),
and adds what the warm graders' per-run logs held (``runner.CANDIDATE_CPU``). Input: the
run, between ``RunCpu()`` and ``RunCpu.seconds()``; output: ``(graders, candidates)``.

Guarantees: ``graders + candidates`` never counts a CPU second twice (a candidate's cgroup is
not in any grader's rusage, a log is read once); what it leaves out is named in ``NOT_COUNTED``.

Example (the verb's ``run``)::

    meter = RunCpu()                    # before the run's first process
    ...                                 # the self check, run_all
    graders, candidates = meter.seconds()    # e.g. (17.9, 13.1)
    meter.close()                       # CPU_LOG as it was
"""

from __future__ import annotations

import os
import resource
import tempfile

from harness.mutants import runner
from harness.sandbox.cpulog import CPU_LOG, read_cpu_log

NOT_COUNTED = "the verb's own process; a candidate whose grader was killed at its limit before closing it"
"""What ``RunCpu`` cannot see (and, with ``--scheduler``, every Dask worker: their records'
``cpu_seconds`` hold the CPU of each task's graders and candidates)."""


class RunCpu:
    """CPU seconds of the run's processes since this was made: graders and their candidates."""

    def __init__(self) -> None:
        self._previous = os.environ.get(CPU_LOG)
        handle, self._log = tempfile.mkstemp(prefix="constrain-mutants-cpu-", suffix=".log")
        os.close(handle)
        os.environ[CPU_LOG] = self._log   # inherited by every process the run starts
        self._children = _children_cpu()
        self._candidates = runner.CANDIDATE_CPU[0]
        self._cold = 0.0

    def seconds(self) -> tuple[float, float]:
        """(graders, candidates): the reaped processes' CPU seconds since the start, and the
        confined candidates' (cold runs' from this run's log, warm runs' from their own)."""
        self._cold += read_cpu_log(self._log)   # what it held so far: the log is removed as it is read
        warm = runner.CANDIDATE_CPU[0] - self._candidates
        return _children_cpu() - self._children, self._cold + warm

    def close(self) -> None:
        """Put ``CPU_LOG`` back as it was and remove the log if it is still there."""
        if self._previous is None:
            os.environ.pop(CPU_LOG, None)
        else:
            os.environ[CPU_LOG] = self._previous
        if os.path.exists(self._log):
            os.remove(self._log)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
