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

``under_own_limit(cpu_seconds)`` is the pair under the hard limit this process runs under, as
``confine`` and the zygote's server (``harness.sandbox.zygote_server``) both set it; this module
imports only ``resource``, so the zygote's server may use it.

    >>> pair(8, None), pair(900, 35), pair(8, 10), pair(8, 1)
    ((8, 13), (30, 35), (5, 10), (1, 1))
"""

import resource

MARGIN = 5  # CPU seconds from a candidate's soft limit (SIGXCPU) to its hard one (SIGKILL)


def pair(cpu_seconds: int, ceiling: int | None) -> tuple[int, int]:
    """(soft, hard) ``RLIMIT_CPU`` for ``cpu_seconds`` under ``ceiling`` (None: no hard limit)."""
    hard = cpu_seconds + MARGIN if ceiling is None else min(cpu_seconds + MARGIN, ceiling)
    soft = min(cpu_seconds, hard - MARGIN) if hard > MARGIN else hard - 1
    return min(max(1, soft), hard), hard


def under_own_limit(cpu_seconds: int, ceiling: int | None = None) -> tuple[int, int]:
    """``pair(cpu_seconds, ceiling)``, the ceiling being this process's own hard ``RLIMIT_CPU``
    (None where it has none), or ``ceiling`` where that is lower: what a candidate started or
    forked from here gets. A zygote's child is given the hard limit of the grader that asked
    for it (``harness.sandbox.zygote``), so its limits are the ones a fresh start from that
    grader has (the zygote itself runs under a day's limit).

    >>> under_own_limit(900, 35)   # under no lower limit of this process's own
    (30, 35)
    """
    _, current = resource.getrlimit(resource.RLIMIT_CPU)
    own = None if current == resource.RLIM_INFINITY else current
    if ceiling is not None and (own is None or ceiling < own):
        own = ceiling
    return pair(cpu_seconds, own)


def own_hard_limit() -> int | None:
    """This process's hard ``RLIMIT_CPU`` (None: none): the ``ceiling`` it hands a zygote."""
    _, current = resource.getrlimit(resource.RLIMIT_CPU)
    return None if current == resource.RLIM_INFINITY else int(current)
