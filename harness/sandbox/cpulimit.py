"""A candidate's ``RLIMIT_CPU`` pair: the soft limit, whose signal is SIGXCPU, and the hard
fence ``MARGIN`` CPU seconds above it, whose signal is SIGKILL.

``pair(cpu_seconds, ceiling) -> (soft, hard)``, ``ceiling`` being the hard limit the process
that sets it runs under (a limit can only be lowered: the mutant runner's grader child runs
under one, and the zygote under the grader's). Guarantees: ``hard <= ceiling``; ``soft <=
cpu_seconds``; ``soft < hard`` whenever ``ceiling`` > 1, so the kernel's signal at the
candidate's limit is SIGXCPU (its words: ``harness.sandbox.wording``), SIGKILL only for a
candidate that ignores it. Where the ceiling leaves no ``MARGIN`` the soft limit moves down
under it, never the fence up: ``pair(900, 35)`` is ``(30, 35)``. The kernel sends SIGKILL at
the hard limit before it looks at the soft one, so a soft limit equal to the hard one, which
clipping both at the ceiling gave (``(35, 35)``), is a SIGKILL at the candidate's own limit.

Pure, and imports nothing: the zygote's server (``harness.sandbox.zygote_server``) uses it too.

    >>> pair(8, None), pair(900, 35), pair(8, 10), pair(8, 1)
    ((8, 13), (30, 35), (5, 10), (1, 1))
"""

MARGIN = 5  # CPU seconds from a candidate's soft limit (SIGXCPU) to its hard one (SIGKILL)


def pair(cpu_seconds: int, ceiling: int | None) -> tuple[int, int]:
    """(soft, hard) ``RLIMIT_CPU`` for ``cpu_seconds`` under ``ceiling`` (None: no hard limit)."""
    hard = cpu_seconds + MARGIN if ceiling is None else min(cpu_seconds + MARGIN, ceiling)
    soft = min(cpu_seconds, hard - MARGIN) if hard > MARGIN else hard - 1
    return min(max(1, soft), hard), hard
