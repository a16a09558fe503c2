"""The candidate processes' CPU log, for benchmarks and the mutants verb's CPU line: not
confinement, accounting.

A confined candidate's tree ends with its PID namespace, so no ``getrusage`` of the grader sees
its CPU. When the variable ``CPU_LOG`` names a file, each candidate process appends there, as it
closes (``harness.sandbox.client.Candidate.close``), the CPU seconds its tree used, one line
each; ``read_cpu_log`` sums the lines and removes the log.

Invariant: writing the log never fails a candidate's close (an unwritable log is skipped), and
reading it never raises (no log, or an unreadable one, reads as 0.0).
"""

from __future__ import annotations

import os

CPU_LOG = "CONSTRAIN_HARNESS_CPU_LOG"
"""Benchmarks and the mutants verb's CPU line (``harness.mutants.process_cpu``): when this variable
names a file, each candidate process appends there the CPU seconds of its tree as it closes (a
grader's ``getrusage`` never sees them: the confined tree is not reaped into its children's times)."""


def log_cpu(path: str, seconds: float) -> None:
    """Append ``seconds`` to the log ``path`` names, one line (an unwritable log is skipped)."""
    try:
        with open(path, "a", encoding="ascii") as log:
            log.write(f"{seconds:.3f}\n")
    except OSError:  # a benchmark's log: never a reason to fail closing
        pass


def read_cpu_log(path: str) -> float:
    """The CPU seconds the candidate processes logged in ``path`` (``CPU_LOG``) as they closed,
    and the log removed (0.0 when there is none). A confined candidate's tree ends with its PID
    namespace, so no ``getrusage`` of the grader sees its CPU: this log is how a caller counts it."""
    try:
        with open(path, encoding="ascii") as log:
            seconds = sum(float(line) for line in log if line.strip())
        os.remove(path)
    except (OSError, ValueError):
        return 0.0
    return seconds
