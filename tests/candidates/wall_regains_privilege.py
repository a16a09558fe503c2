"""Hostile (issue 48.5): at import, tries every way back to privilege (``_privilege.py``):
``unshare(CLONE_NEWUSER)`` (alone and with a mount namespace), ``clone(CLONE_NEWUSER)``,
the ``unshare -U -r`` command, ``setns``, a tmpfs ``mount``, ``ptrace`` of its parent and
``PTRACE_TRACEME``, ``keyctl``, ``bpf``, ``perf_event_open``, ``userfaultfd``,
``io_uring_setup``, ``personality(ADDR_NO_RANDOMIZE)``, ``clone3``; and checks that a thread,
``posix_spawn`` and a subprocess importing numpy still work. Otherwise the reference.
``attempts()`` and ``still_works()`` answer what happened (0 or the errno of each).
Expected: every attempt refused (EPERM; clone3 ENOSYS), the rest works, the reference's
verdict. Where an attempt worked or something needed failed, ``regex_to_dfa`` raises
naming it, so the verdict would say so."""

import _privilege

from oracles.automaton import *  # noqa: F401,F403
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

ATTEMPTS = _privilege.attempts()
WORKS = _privilege.still_works()
BROKEN = sorted([what for what, answer in ATTEMPTS.items() if answer == 0] +
                [what for what, answer in WORKS.items() if answer != 0])


def attempts() -> dict:
    return ATTEMPTS


def still_works() -> dict:
    return WORKS


def regex_to_dfa(pattern):
    if BROKEN:
        raise ValueError(f"the wall let these through or broke them: {BROKEN}")
    return _reference_regex_to_dfa(pattern)
