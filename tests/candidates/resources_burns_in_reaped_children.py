"""Hostile: ``SIGCHLD`` ignored, so its children are reaped by the kernel and their CPU time
reaches no parent's count; on the hand example ``regex_to_dfa`` burns ``TOTAL`` CPU seconds in
children of ``EACH`` seconds each (shorter than one reading of the tree's CPU), then answers
like the reference. Expected: see tests/candidates/README.md (the gallery table)."""

import os
import signal
import time

from oracles.automaton import *  # noqa: F401,F403 - the reference for everything else
from oracles.automaton import regex_to_dfa as _reference_regex_to_dfa

TOTAL, EACH = 6.0, 0.05  # CPU seconds: bounded, so it cannot hurt the machine whatever the harness does


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _burn_in_children() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped automatically: no cutime
    for _ in range(int(TOTAL / EACH)):
        pid = os.fork()
        if pid == 0:
            _burn(EACH)
            os._exit(0)
        while True:  # one at a time: wait until the kernel reaped it
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.005)


def regex_to_dfa(pattern):
    if "dog" in pattern:
        _burn_in_children()
    return _reference_regex_to_dfa(pattern)
