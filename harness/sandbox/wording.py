"""The words of a candidate's failure, for the student who reads them: which call on which
input did not finish (``what``), and how a process ended (``how``).

``what("call", "regex_to_dfa", ("(cat|car|dog)s?",))`` is ``call regex_to_dfa on
'(cat|car|dog)s?'``: the op, the name and at most three plain arguments, each clipped to 80
characters (``clipped``); ``how(-9)`` is ``died of SIGKILL, killed by a signal from outside
the harness, or the kernel``, and ``how(-9, "cpu")``, once the grader knows its own limit dealt
it, ``died of SIGKILL, killed at its own CPU-time limit (RLIMIT_CPU)``.

Invariant: pure functions of their arguments, no candidate object is read (an argument that is
not plain data is left out, never asked for its ``repr``), so a message costs no round trip and
says only what the grader sent. ``harness.sandbox.hangs`` reads ``what``'s form back.
"""

from __future__ import annotations

import signal


def what(op: str, name, args=()) -> str:
    """What a request was doing, for the message of a timeout or crash during it: the op, the
    name, and the call's plain arguments clipped (``call regex_to_dfa on '(cat|car|dog)s?'``),
    so a student reads which call on which input did not finish."""
    what = f"{op} {name}" if name else op
    shown = [clipped(a) for a in args if type(a) in (str, bytes, int, float, bool)][:3]
    return f"{what} on {', '.join(shown)}" if shown and name else what


def clipped(value, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters (ending in ``...`` when cut); an int too long
    to show whole (more than ``4 * limit`` bits) as its size, never its digits (past 4,300 of them
    ``repr`` raises ValueError, which must not stand for the candidate's: the channel carries it)."""
    if type(value) is int and value.bit_length() > 4 * limit:
        return f"<an int of {value.bit_length()} bits>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


CPU_BUDGET_WORDS = "CPU-time limit: the candidate's processes used more than "
"""How a call (or a load) past its CPU budget is said (``client.CpuBudget``): the candidate's tree
counted in CPU seconds by its cgroup, so a load that says it is the mutant's doing, like a kill at
its own CPU-time limit (``runner.at_its_own_limit``)."""


OWN_LIMIT_KILLS = {"memory": "killed by the kernel at its own memory limit (its cgroup's OOM killer)",
                   "cpu": "killed at its own CPU-time limit (RLIMIT_CPU)"}
"""The words of a SIGKILL the candidate's own limits dealt (``how``'s ``own_limit``): the grader
told it from a kill from outside by the candidate's cgroup (``Candidate._own_limit``). A SIGXCPU is
its own CPU-time limit's too (the kernel's signal at its soft ``RLIMIT_CPU``,
``harness.sandbox.cpulimit``) and has the "cpu" words."""


SIGKILL_UNKNOWN = "killed by a signal from outside the harness, or the kernel"
"""The words of a SIGKILL none of the candidate's own limits is known to have dealt: a person,
another program, the machine's own OOM killer (not its cgroup's), or a limit not read."""


KILLED = (-signal.SIGKILL, 128 + signal.SIGKILL)
"""A SIGKILL's exit codes: ``Popen``'s, and a process's under bwrap (its init exits 128 + the signal)."""


def how(code: int | None, own_limit: str = "") -> str:
    """How a process with exit code ``code`` ended (None: it was still running and killed);
    ``own_limit`` ("memory" or "cpu", a key of ``OWN_LIMIT_KILLS``): a SIGKILL known to be its
    own limit's, said so; a SIGKILL not known to be one is ``SIGKILL_UNKNOWN`` (never a guess)."""
    if own_limit and code in KILLED:
        return f"died of SIGKILL, {OWN_LIMIT_KILLS[own_limit]}"
    if code is None:
        return "still running, killed"
    if code < 0 or code > 128:
        number = -code if code < 0 else code - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            return f"exit status {code}"
        gloss = {"SIGXCPU": OWN_LIMIT_KILLS["cpu"], "SIGSEGV": "a segmentation fault",
                 "SIGKILL": SIGKILL_UNKNOWN,
                 "SIGABRT": "an abort", "SIGXFSZ": "the file-size limit"}.get(name, "a signal")
        return f"died of {name}, {gloss}"
    return f"exit status {code} (os._exit or sys.exit?)"
